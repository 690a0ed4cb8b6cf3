#!/usr/bin/env bash
# A shop's cron job with several view-only wallets: one pass over the bundled Monero regtest
# chain (Tests/Fixtures/fixtures/monero-regtest) for all of them. Each record names its wallet;
# the chain is read and parsed once. The first wallet is the fixture's throw-away test wallet,
# the second one owns nothing on this chain (its keys are a fixed throw-away example too).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fixture=$here/../Tests/Fixtures/fixtures/monero-regtest
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077

# One line per wallet: a key record with a name (or a key-store entry's name).
derive account --coin xmr --view-only <<< '{"spend_key":"0101010101010101010101010101010101010101010101010101010101010101"}' > "$work/other.json"
{
  echo '# name, keys and birthday of each wallet'
  echo '{"name":"shop","view_key":"46e61ce455dbb62c97f6c9b50ea9790ed149658f13a38b1c723daa76d21c7206","public_spend_key":"c3da0d8e21269f08d9e1c6d9703a6f721fb7f0b3ced0e199f20b218c1bc877c4","birthday":0}'
  sed -e 's/^{/{"name":"kiosk","birthday":100,/' "$work/other.json"
} > "$work/wallets.jsonl"

scan-blocks --wallets "$work/wallets.jsonl" --blocks "$fixture/blocks.jsonl" --txs "$fixture/txs.jsonl" \
  --state-dir "$work/state" --lookahead 5,50 --progress none
