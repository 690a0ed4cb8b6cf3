#!/usr/bin/env bash
# Air-gapped signing in two halves.
#
#   examples/air-gapped.sh offline KEY.json HASHES.jsonl > SIGNATURES.jsonl   (the offline machine)
#   examples/air-gapped.sh online ACCOUNT.jsonl SIGNATURES.jsonl              (the online machine)
#
# The offline half holds the key (a 0600 file with a phrase, seed or xprv record) and signs
# every hash record at m/44'/60'/0'/0/0. The online half holds only the account record that
# `derive account` made (an xpub, no secret), derives the expected signer address from it, and
# checks every signature against that address. With no arguments, both halves run on bundled
# data with BIP39's public test phrase — never fund it.
set -euo pipefail
path="m/44h/60h/0h/0/0"

offline() {  # key file, hash records → signature records on stdout
  sign-hash --key-file "$1" --path "$path" < "$2"
}

online() {  # account record, signature records → verified records on stdout
  local expected
  expected=$(derive --coin eth --path "m/0/0" < "$1" | sed -E 's/.*"address":"([^"]*)".*/\1/')
  echo "expected signer: $expected" >&2
  sign-hash verify --address "$expected" < "$2"
}

case "${1:-demo}" in
  offline) offline "$2" "$3" ;;
  online) online "$2" "$3" ;;
  demo)
    here=$(cd "$(dirname "$0")" && pwd)
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    umask 077
    echo '{"mnemonic":"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"}' > "$work/key.json"
    # Once, at setup: the watch-only account record goes to the online machine.
    derive account --coin eth < "$work/key.json" > "$work/account.jsonl"
    offline "$work/key.json" "$here/data/hashes-to-sign.jsonl" > "$work/signatures.jsonl"   # carried over on a USB stick
    online "$work/account.jsonl" "$work/signatures.jsonl"
    # A signature over a changed hash must fail.
    if sed 's/"hash":"f8/"hash":"f9/' "$work/signatures.jsonl" | online "$work/account.jsonl" /dev/stdin > /dev/null 2>&1; then
      echo "a tampered record verified" >&2; exit 1
    fi
    ;;
  *) echo "usage: $0 [offline KEY HASHES | online ACCOUNT SIGNATURES]" >&2; exit 64 ;;
esac
