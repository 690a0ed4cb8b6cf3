#!/usr/bin/env bash
# Scan the Monero regtest chain in Tests/Fixtures/fixtures/monero-regtest (made by monerod 0.18)
# for its wallet, view-only: the payments it received, then a rerun that finds nothing new.
# The view key here is the fixture's throw-away test wallet, not a real one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fixture=$here/../Tests/Fixtures/fixtures/monero-regtest
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT

keys='{"view_key":"46e61ce455dbb62c97f6c9b50ea9790ed149658f13a38b1c723daa76d21c7206","public_spend_key":"c3da0d8e21269f08d9e1c6d9703a6f721fb7f0b3ced0e199f20b218c1bc877c4"}'
scan() {
  echo "$keys" | scan-blocks --blocks "$fixture/blocks.jsonl" --txs "$fixture/txs.jsonl" \
    --birthday 0 --state-dir "$state" --lookahead 5,50 --progress none
}
scan
echo "# again: only the balance, nothing reported twice" >&2
scan
