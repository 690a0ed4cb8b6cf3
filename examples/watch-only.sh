#!/usr/bin/env bash
# A watch-only setup: the signing machine derives the account's zpub and descriptors; the
# online machine gets only that record and derives receive addresses from it. The phrase is
# BIP39's public test vector ("abandon … about"): never send funds to it.
set -euo pipefail
phrase='{"mnemonic":"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"}'

# Offline: the account record (no secrets in it).
account=$(echo "$phrase" | derive account --coin btc --purpose 84)
echo "$account"

# Online: five receive addresses from the xpub alone, with full paths.
echo "$account" | derive --purpose 84 --count 5
