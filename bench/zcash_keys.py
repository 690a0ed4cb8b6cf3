#!/usr/bin/env python3
"""make bench, Zcash keys: ZIP-32 Sapling account keys and zs1 addresses per second, Satchel
(zcash-bench, in process) against the Python reference in bench/zcash_reference.py, in the
same run, on the same seeds; both must give the same incoming viewing keys and addresses.
The reference needs the `cryptography` package (AES), installed into .build/bench-venv.
"""
import argparse, json, os, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def venv_python():
    venv = os.path.join(ROOT, ".build", "bench-venv")
    py = os.path.join(venv, "bin", "python3")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    if subprocess.run([py, "-c", "import cryptography"], capture_output=True).returncode != 0:
        subprocess.run([py, "-m", "pip", "install", "-q", "cryptography"], check=False)
    return py if subprocess.run([py, "-c", "import cryptography"], capture_output=True).returncode == 0 else None


REFERENCE_RUN = r"""
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
import zcash_reference as z
seeds = [bytes.fromhex(l) for l in sys.stdin.read().split()]
def timed(fn):
    rounds = []
    for _ in range(3):
        t = time.perf_counter()
        for i, s in enumerate(seeds):
            fn(i, s)
        rounds.append((time.perf_counter() - t) / len(seeds))
    return statistics.median(rounds)
print(json.dumps({"bench": "account_keys", "seconds_per_op": timed(lambda i, s: z.account_ivk(s))}))
keys = [z.account_ivk(s) for s in seeds]
print(json.dumps({"bench": "address", "seconds_per_op": timed(lambda i, s: z.address(keys[i][0], keys[i][1], 10 * i))}))
for i, s in enumerate(seeds):
    j, a = z.address(keys[i][0], keys[i][1], 10 * i)
    print(json.dumps({"seed": s.hex(), "ivk": keys[i][0].to_bytes(32, "little").hex(), "index": j, "address": a}))
ivk, dk = z.account_ivk(bytes.fromhex(sys.argv[2]))
print(json.dumps({"abandon_art": z.address(ivk, dk, 0)[1]}))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--seeds", type=int, default=20)
    args = ap.parse_args()
    seeds = "".join(os.urandom(64).hex() + "\n" for _ in range(args.seeds))
    py = venv_python()
    if py is None:
        print("Zcash keys bench skipped: the `cryptography` package could not be installed for the Python reference")
        return
    ours = subprocess.run([os.path.join(args.bin, "zcash-bench")], input=seeds, capture_output=True, text=True, check=True).stdout
    # The reference checks itself on the "abandon … art" wallet (zcash-test-vectors) first.
    wallet = json.load(open(os.path.join(ROOT, "Tests", "Fixtures", "vectors", "zcash", "generated", "wallet_abandon_art_account0.json")))
    theirs = subprocess.run([py, "-c", REFERENCE_RUN, os.path.join(ROOT, "bench"), wallet["bip39_seed"]], input=seeds,
                            capture_output=True, text=True, check=True).stdout
    own = [json.loads(l) for l in theirs.splitlines() if "abandon_art" in l]
    if own != [{"abandon_art": wallet["sapling"]["default_address"]}]:
        sys.exit(f"bench: the Python reference does not give the vector wallet's address: {own}")
    def split(out):
        rows = [json.loads(l) for l in out.splitlines()]
        return {r["bench"]: r["seconds_per_op"] for r in rows if "bench" in r}, [r for r in rows if "seed" in r]
    (t_ours, k_ours), (t_ref, k_ref) = split(ours), split(theirs)
    agree = k_ours == k_ref and len(k_ours) == args.seeds
    print(f"Zcash Sapling keys ({args.seeds} random seeds; median of 3; Python reference: bench/zcash_reference.py)")
    for name, label in [("account_keys", "account key m/32'/133'/0' + FVK + IVK"), ("address", "next valid zs1 address")]:
        print(f"  {label:40s} Satchel {1 / t_ours[name]:8.1f}/s   Python {1 / t_ref[name]:8.1f}/s   "
              f"{t_ref[name] / t_ours[name]:5.1f}× the reference")
    print(f"  same ivk, diversifier index and address for every seed: {agree}")
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    json.dump({"seeds": args.seeds, "satchel": t_ours, "python": t_ref, "agree": agree},
              open(os.path.join(ROOT, "bench", "results", "zcash-keys.json"), "w"), indent=1)
    if not agree:
        sys.exit("bench: Satchel and the Python reference disagree")


if __name__ == "__main__":
    main()
