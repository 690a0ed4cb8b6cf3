#!/usr/bin/env bash
# Spending Zcash from an air-gapped signer, as a Keystone does it for Zashi and Zodl: the
# online side keeps a watch-only wallet, the offline side keeps the seed and signs PCZTs
# (ZIP 374) carried over QR codes. Pictures stand in for the screens and webcams: each side
# writes its frames as PNG images, and zbarimg reads them as a camera would.
#
#   1. pairing, once: the offline side shows its account as ur:zcash-accounts (the seed's ZIP 32
#      fingerprint and the UFVK); the online wallet watches with that UFVK;
#   2. online: the watch-only scan finds the notes (here in the bundled blocks across NU6.3,
#      Tests/Fixtures/fixtures/zcash-ironwood); the wallet makes a PCZT that spends one — Satchel
#      does not create or prove PCZTs, so examples/data/zcash-ironwood-spend.pczt stands in for
#      Zashi's (the tests build it from the unspent Ironwood note of 6 ZEC: 1 ZEC to a t-address,
#      the change to the wallet's own transparent change key, a ZIP 317 fee);
#      `sign-tx --convert` shows it as ur:zcash-pczt frames;
#   3. offline, with no network: the frames are read, the PCZT is checked against the seed's own
#      keys and summed up, signed, and answered as frames;
#   4. online: the signed frames are read back into a PCZT, which the wallet then proves and
#      sends.
#
# The wallet is the fixtures' public throw-away "abandon … art" one: never fund it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fixture=$here/../Tests/Fixtures/fixtures/zcash-ironwood
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077
command -v zbarimg > /dev/null || { echo "zbarimg is not installed (apt-get install zbar-tools)" >&2; exit 69; }
offline() { if unshare --net true 2> /dev/null; then unshare --net "$@"; else "$@"; fi; }
scan() { zbarimg --raw -q "$1"/*.png 2> /dev/null; }
field() { sed -E "s/.*\"$1\":\"([^\"]*)\".*/\1/"; }

# 1. Offline: the account as a pairing QR code; the online wallet keeps the UFVK it carries.
echo "{\"mnemonic\":\"$(printf 'abandon %.0s' $(seq 23))art\"}" > "$work/key.json"
offline derive account --coin zec --pool orchard --ur zcash-accounts --qr-dir "$work/pair" < "$work/key.json" > "$work/account.json"
echo "pairing: $(scan "$work/pair" | cut -c1-24)… (seed fingerprint $(field seed_fingerprint < "$work/account.json" | cut -c1-16)…)"
echo "{\"ufvk\":\"$(field ufvk < "$work/account.json")\"}" > "$work/view.json"

# 2. Online: the watch-only scan, then the wallet's PCZT as frames.
scan-blocks --chain zcash --blocks "$fixture/compact_blocks.pb" --birthday 3428123 --key-file "$work/view.json" \
  --state-dir "$work/state" --progress none > "$work/scan.jsonl"
python3 -c '
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
balance = [r for r in records if r["type"] == "balance"][-1]
print("watch-only: %d notes found; balance %s zatoshi (%s)" % (
    sum(r["type"] == "received" for r in records), balance["total"],
    ", ".join("%s %s" % (pool, v["total"]) for pool, v in sorted(balance["pools"].items()))))
' "$work/scan.jsonl"
sign-tx --convert --in "$here/data/zcash-ironwood-spend.pczt" --qr-transport ur --qr-fragment 300 --qr-dir "$work/unsigned" > /dev/null
echo "online: the PCZT as $(ls "$work/unsigned" | wc -l) frames ($(scan "$work/unsigned" | head -1 | cut -d/ -f1))"

# 3. Offline: read the frames, check and sign, answer with frames.
scan "$work/unsigned" | offline sign-tx --key-file "$work/key.json" --max-fee 100000 --qr-fragment 300 \
  --qr-dir "$work/signed" > "$work/signed.jsonl" 2> "$work/progress.txt"
tail -1 "$work/progress.txt"
python3 -c '
import json, sys
s = json.loads(open(sys.argv[1]).readline())
for spend in s["spends"]:
    print("  spend  %-9s %10s%s" % (spend["pool"], spend["amount"], "  ours, " + spend["path"] if spend["ours"] else ""))
for out in s["outputs"]:
    print("  output %-9s %10s  %-7s %s" % (out["pool"], out["amount"], out["role"], out["address"]))
print("  fee %s, %d signature to add" % (s["fee"], s["signatures"]))
' "$work/signed.jsonl"
echo "offline: the signed PCZT as $(ls "$work/signed" | wc -l) frames"

# 4. Online: read the answer back; the wallet proves and sends it.
scan "$work/signed" | sign-tx --convert 2> /dev/null | field pczt | base64 -d > "$work/signed.pczt"
echo "online: a signed PCZT of $(wc -c < "$work/signed.pczt") bytes ($(head -c 4 "$work/signed.pczt")), ready to prove and send"
