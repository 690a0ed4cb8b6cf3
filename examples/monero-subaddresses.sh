#!/usr/bin/env bash
# Monero: a 25-word seed (here a public test seed for the key 1 — never fund it) gives the
# primary address and subaddresses; the view-only record makes the same addresses without
# the spend key, as a view-only wallet or a scanner would.
set -euo pipefail
seed='{"mnemonic":"abducts abducts abducts abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey"}'

echo "$seed" | derive account --coin xmr
echo "$seed" | derive --coin xmr --account 1 --count 2
echo "$seed" | derive account --coin xmr --view-only | derive --coin xmr --account 1 --count 2
