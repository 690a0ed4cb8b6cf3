#!/usr/bin/env bash
# The `make demo` tour, on bundled public test data only (never fund these keys):
#   1. a paper backup checked, and a typo in another one caught with suggestions;
#   2. that phrase → the first receive addresses of a BIP84 wallet;
#   3. an offline signature with the phrase's key, checked against the expected address;
#   4. a Monero wallet's payments found by view key in a bundled regtest chain, with its balance.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077
phrase="abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
say() { printf '\n# %s\n' "$*"; }

say "1. check two paper backups (the second has a typo)"
printf '%s\n%s\n' "$phrase" "${phrase% about} abuot" | mnemonic validate 2>/dev/null |
  sed -E 's/.*"words":([0-9]+),"valid":true.*/backup ok: \1 words, checksum good/; s/.*"code":"([^"]*)".*"line":([0-9]+),"position":([0-9]+).*"suggestions":\[([^]]*)\].*/backup on line \2: \1 at word \3, did you mean \4?/' || true

say "2. receive addresses (BIP84) from the good one"
echo "$phrase" > "$work/backup.txt"
derive --purpose 84 --count 3 < "$work/backup.txt" | sed -E 's/.*"path":"([^"]*)".*"address":"([^"]*)".*/\1  \2/'

say "3. sign a hash offline with that key (m/84'/0'/0'/0/0), verify it online against the address"
cp "$work/backup.txt" "$work/key.txt"
printf '{"hash":"%s"}\n' "$(printf 'pay 0.01 BTC to the coffee shop' | sha256sum | cut -c1-64)" |
  sign-hash --key-file "$work/key.txt" --path "m/84h/0h/0h/0/0" > "$work/signed.jsonl"
sed -E 's/.*"signature":"(.{16})[0-9a-f]*".*/signature: \1…/' "$work/signed.jsonl"
sign-hash verify --address bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu < "$work/signed.jsonl" |
  sed -E 's/.*"valid":(true|false).*/signed by bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu: \1/'

say "4. scan a Monero regtest chain (163 blocks, bundled) with a view key"
fixture=$here/../Tests/Fixtures/fixtures/monero-regtest
echo '{"view_key":"46e61ce455dbb62c97f6c9b50ea9790ed149658f13a38b1c723daa76d21c7206","address":"493aY7sV3XC2UsGpGxFkzzL69Q5d6ACf2SkTuxcpWDHGZtqwovxtrT5UqWmF6Gzo8rAozgRBpLib31mc51A5g8RJKPqnjzd"}' > "$work/view.json"
scan-blocks --blocks "$fixture/blocks.jsonl" --txs "$fixture/txs.jsonl" --key-file "$work/view.json" --birthday 0 \
    --state-dir "$work/scan" --lookahead 3,20 --progress none > "$work/events.jsonl"
echo "$(grep -c '"type":"received"' "$work/events.jsonl") payments received, $(grep -c '"type":"pending"' "$work/events.jsonl") waiting in the mempool"
sed -nE 's/.*"type":"balance".*"height":([0-9]+),"total":"([0-9]+)","unlocked":"([0-9]+)".*/balance at height \1 as the view key sees it (spends need the spend key): \2 piconero, \3 unlocked/p' "$work/events.jsonl"
