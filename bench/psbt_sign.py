#!/usr/bin/env python3
"""make bench: sign-tx's PSBT signer against libsecp256k1's signing loop, in the same run.

bitcoin-bench psbt: a 100-input PSBT (P2WPKH inputs of one BIP84 account, each with its
previous transaction and witness UTXO, as Bitcoin Core's wallet writes them) read from base64,
checked (every UTXO, every derivation re-derived, scripts, fee), signed and written back, with a
fresh key ring each time, against libsecp256k1 signing the same 100 hashes with the same keys:
with Bitcoin Core's low-R grinding (the very signatures the signer writes: the reference) and,
for comparison, its plain RFC 6979 loop (no grinding: half the tries). Rounds alternate between
the three, so that a slow spell of the machine hits all alike; medians. Goal: at least 0.5x the
reference's signatures per second.
"""
import argparse, json, os, subprocess


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="directory of the release executables")
    ap.add_argument("--inputs", type=int, default=100)
    args = ap.parse_args()
    out = subprocess.run([os.path.join(args.bin, "bitcoin-bench"), "psbt", str(args.inputs)],
                         capture_output=True, text=True, check=True).stdout
    r = {json.loads(l)["bench"]: json.loads(l)["seconds_per_op"] for l in out.splitlines() if l.strip()}
    ours, low, plain = r["psbt_sign_input"], r["secp256k1_sign_low_r"], r["secp256k1_sign_rfc6979"]
    print(f"\nPSBT signing, a {args.inputs}-input P2WPKH PSBT (parse, checks, derivations, BIP143, low-R ECDSA, base64 out):")
    print(f"  sign-tx's signer            {ours * 1e6:8.1f} us an input  {1 / ours:8.0f} inputs/s")
    print(f"  libsecp256k1, low-R loop    {low * 1e6:8.1f} us a signature {1 / low:8.0f} /s   "
          f"ratio {low / ours:.2f}x (goal >= 0.5x)")
    print(f"  libsecp256k1, plain RFC 6979 {plain * 1e6:7.1f} us a signature {1 / plain:8.0f} /s   ratio {plain / ours:.2f}x (for comparison)")


if __name__ == "__main__":
    main()
