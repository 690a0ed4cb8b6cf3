#!/usr/bin/env bash
# A Keycard through the real PC/SC stack, on Satchel's simulated card behind its own pcscd
# (scripts/virtual-keycard.sh; never a real card: this script initializes the card it starts
# and throws it away). It initializes the card, pairs with it (the pairing goes into a
# throw-away key store), loads BIP39's public test phrase "abandon … about" (never fund it),
# derives the first Ethereum address with the card, signs two hashes with the card and checks
# the signatures against that address.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap '"$root/scripts/virtual-keycard.sh" stop "$work/stack" < /dev/null > /dev/null 2>&1; rm -rf "$work"' EXIT
umask 077
# Its own pcscd, beside any the machine runs: the tools find it through PCSCLITE_CSOCK_NAME.
eval "$("$root/scripts/virtual-keycard.sh" start "$work/stack" < /dev/null)"

# The card's secrets live in a 0600 file, never on a command line.
printf '{"pin":"%s","puk":"%s","duress_pin":"%s","pairing_password":"%s"}\n' 123456 123456789012 654321 KeycardTest > "$work/creds.json"
printf 'a throw-away key-store passphrase' > "$work/kspass"
store=(--keystore "$work/keystore" --keystore-pass-file "$work/kspass" --kdf interactive)
card=(--card --pairing my-card "${store[@]}" --credentials-file "$work/creds.json")

card-info init --credentials-file "$work/creds.json" | sed -E 's/.*"applet_version":"([^"]*)".*"free_pairing_slots":([0-9]+).*/card initialized: applet \1, \2 free pairing slots/'
card-info pair --store my-card "${store[@]}" --credentials-file "$work/creds.json" | sed -E 's/.*"index":([0-9]+).*/paired: slot \1 (the pairing key stays in the key store)/'
echo '{"mnemonic":"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"}' |
  card-info load-key --pairing my-card "${store[@]}" --credentials-file "$work/creds.json" | sed -E 's/.*"key_uid":"([^"]*)".*/key loaded: uid \1/'

address=$(derive "${card[@]}" --coin eth --path "m/44h/60h/0h/0/0" | sed -E 's/.*"address":"([^"]*)".*/\1/')
echo "m/44'/60'/0'/0/0: $address"
printf '{"hash":"%s"}\n' "$(printf 'Satchel Keycard example' | sha256sum | cut -c1-64)" "$(printf 'second message' | sha256sum | cut -c1-64)" |
  sign-hash "${card[@]}" --path "m/44h/60h/0h/0/0" --chain-id 1 |
  sign-hash verify --address "$address" | sed -E 's/.*"eth_v":([0-9]+).*"valid":(true|false).*/signed on the card: v=\1, valid=\2/'
