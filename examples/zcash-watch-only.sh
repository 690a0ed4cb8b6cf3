#!/usr/bin/env bash
# A Zcash shop's watch-only setup: the account's unified full viewing key is made from the
# phrase once (here the fixtures' public throw-away "abandon … art" wallet), and the scanning
# machine gets only that key: it finds the payments, the change, the spends and the memos in
# the bundled compact blocks (Tests/Fixtures/fixtures/zcash-sapling), without the seed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fixture=$here/../Tests/Fixtures/fixtures/zcash-sapling
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077

phrase="$(printf 'abandon %.0s' $(seq 23))art"
echo "{\"mnemonic\":\"$phrase\"}" | derive account --coin zec --pool sapling > "$work/account.json"
# Only the viewing key (and the wallet's birthday) leaves the offline machine.
sed -E 's/.*"ufvk":"([^"]*)".*/{"ufvk":"\1","birthday":2900000}/' "$work/account.json" > "$work/view.json"

scan-blocks --chain zcash --blocks "$fixture/compact_blocks.pb" --txs "$fixture/transactions.jsonl" \
  --key-file "$work/view.json" --state-dir "$work/state" --progress none
