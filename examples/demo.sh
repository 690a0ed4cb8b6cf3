#!/usr/bin/env bash
# The `make demo` pipeline: check a box of paper backups (bundled test phrases, never funded),
# then turn the good ones into seeds. Bad backups come out as error records that name the
# line, the word's position and suggestions; the good ones go on down the pipeline.
set -uo pipefail
cd "$(dirname "$0")"
data=data/backup-check.jsonl

echo "# mnemonic validate $data | mnemonic to-seed" >&2
mnemonic validate "$data" 2>/dev/null | mnemonic to-seed
status=("${PIPESTATUS[@]}")
echo "# exit statuses: validate ${status[0]}, to-seed ${status[1]} (65 = some records were bad, as expected here)" >&2
[ "${status[0]}" -eq 65 ] && [ "${status[1]}" -eq 0 ]
