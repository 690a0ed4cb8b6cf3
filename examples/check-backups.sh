#!/usr/bin/env bash
# Counts good and bad phrases in a JSON Lines file (default: the bundled test backups),
# the way a cron job or a script would use the exit status and the error records.
set -uo pipefail
file=${1:-"$(dirname "$0")/data/backup-check.jsonl"}
out=$(mnemonic validate "$file" 2>/dev/null)
status=$?
good=$(grep -c '"valid":true' <<<"$out")
bad=$(grep -c '"type":"error"' <<<"$out")
echo "good: $good, bad: $bad (exit status $status)"
grep '"type":"error"' <<<"$out" | sed -E 's/.*"code":"([^"]*)".*"line":([0-9]+).*/line \2: \1/'
[ "$status" -eq 0 ] || [ "$status" -eq 65 ]
