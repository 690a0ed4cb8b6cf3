#!/usr/bin/env bash
# Entropy from your own dice: 99 rolls of a six-sided die (any fair die; a roll of 1–4 gives
# two bits, 5 or 6 gives one) become a 12-word phrase. Write the rolls into a record on stdin,
# never on the command line. These rolls are an example; do not use them.
set -euo pipefail
rolls="3 1 6 4 2 5 5 1 3 6 2 2 4 1 6 3 5 2 1 4 6 6 3 2 5 1 4 3 2 6 1 5 4 4 2 3 6 1 2 5
3 3 1 6 5 2 4 6 1 3 2 5 6 4 1 2 3 5 6 1 4 2 6 3 5 1 2 4 6 3 1 5 2 6 4 3 1 2 5 4
6 3 2 1 5 4 6 2 3 1 4 5 6 2 1 3 5 4 2"
printf '{"dice":"%s"}\n' "$(echo $rolls)" \
  | mnemonic from-entropy --words 12 \
  | mnemonic to-entropy
