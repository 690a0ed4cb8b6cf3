#!/usr/bin/env bash
# A new 24-word BIP39 wallet with a passphrase, without the passphrase ever touching argv:
# it is read from file descriptor 3. (Here the passphrase file is a throwaway made on the spot;
# in real use, type it with --passphrase-prompt or keep it in a mode-0600 file.)
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
umask 077
printf 'example passphrase, not a real one\n' > "$dir/passphrase"

mnemonic generate --words 24 \
  | mnemonic validate \
  | mnemonic to-seed --passphrase-fd 3 3<"$dir/passphrase"
