#!/usr/bin/env python3
"""make bench: sign-tx's PCZT signer (#58) on a PCZT with two Orchard spends, against the floor
of its cryptography, in the same run.

zcash-bench pczt: bench/data/pczt-two-orchard-spends.pczt (built by the tests from wallet W's
unspent notes O5 and O4 of fixtures/zcash-ironwood, v6 transaction, 1 ZEC paid, change to W's
transparent change key) read, reviewed against W's seed (ZIP 32 keys, rk, nullifiers, value
commitments, every output tried with the account's incoming and outgoing keys), signed and
written, against two bare RedPallas signatures with a known key. Rounds alternate; medians.
Goal: the signer is never what a user waits for (well under a second).
"""
import argparse, json, os, subprocess

here = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="directory of the release executables")
    args = ap.parse_args()
    wallet = json.load(open(os.path.join(here, "..", "Tests", "Fixtures", "fixtures", "zcash-ironwood", "wallet.json")))
    out = subprocess.run([os.path.join(args.bin, "zcash-bench"), "pczt", os.path.join(here, "data", "pczt-two-orchard-spends.pczt")],
                         input=wallet["bip39_seed"] + "\n", capture_output=True, text=True, check=True).stdout
    lines = [json.loads(l) for l in out.splitlines() if l.strip()]
    count = next(l["count"] for l in lines if l["bench"] == "pczt_signatures")
    r = {l["bench"]: l["seconds_per_op"] for l in lines if "seconds_per_op" in l}
    ours, floor = r["pczt_sign"], r["redpallas_signatures"]
    print(f"\nPCZT signing, two Orchard spends ({count} signatures; parse, review against the seed, sign, write):")
    print(f"  sign-tx's signer             {ours * 1e3:8.2f} ms a PCZT   (goal: well under a second)")
    print(f"  {count} RedPallas signatures     {floor * 1e3:8.2f} ms         ratio {floor / ours:.2f}x (the floor: keys known, nothing checked)")


if __name__ == "__main__":
    main()
