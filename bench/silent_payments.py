#!/usr/bin/env python3
"""make bench: BIP352 silent payment scanning against libsecp256k1 in the same run.

bitcoin-bench silent-payments: 10,000 realistic transactions (2-3 inputs of mixed kinds, two
taproot outputs, one in a hundred paying the receiver). Two parts: the tweak data (A and
input_hash, once per transaction for every wallet) and the receiver's scan (the ECDH, t_0, P_0,
the outputs matched with and without the change label: per transaction and wallet), each as
microseconds per transaction on one core and as a ratio to libsecp256k1 doing the same work
through its public API. Then the scan as scan-blocks runs it, the shared points of 256
transactions at a time, on every path this CPU has; the ladder alone on each path beside
libsecp256k1's secp256k1_ecdh (the kernel's portable code is the reference the vector paths are
tested against, slower than libsecp256k1); and the fixed-base kernel alone (t_0*G + B_spend and
+ B_spend + change label) beside libsecp256k1's pubkey_create and two pubkey_combine.

Issue 46's goals (IFMA <= 0.4, AVX2 <= 0.8, portable <= 1.2) are for the whole job of an eligible
transaction, tweak data and scan, against libsecp256k1 doing the same work (ECDH, tweak-mul,
pubkey create and combine): ours makes A and input_hash and multiplies A by b_scan*input_hash
(one multiplication); the reference computes input_hash*A, then its ECDH with b_scan (two), as
BIP352 writes it. The portable path's scan is libsecp256k1's ECDH one by one.

Every measurement runs once a round, the rounds interleaved (bitcoin-bench's InterleavedRounds):
a ratio is taken within each round and the median reported, with the lowest and highest round's,
so that the machine's speed wandering during the run does not decide a ratio.
"""
import argparse, json, os, subprocess


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--transactions", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    out = subprocess.run(["taskset", "-c", "0", os.path.join(args.bin, "bitcoin-bench"), "silent-payments", str(args.transactions),
                          str(args.rounds)], capture_output=True, text=True, check=True).stdout
    r = {j["bench"]: j for j in map(json.loads, out.splitlines())}
    facts = r["sp_facts"]
    assert facts["found_per_round"] == facts["paying"] == facts["reference_found_per_round"], facts
    for path, found in facts["found_by_path"].items():
        assert found == facts["paying"], (path, found, facts)

    def rounds(*names):
        """Per round, the sum of these parts' seconds per transaction."""
        return [sum(values) for values in zip(*(r[n]["rounds"] for n in names))]

    def line(bench, ours, ref, **fields):
        ratios = sorted(o / f for o, f in zip(ours, ref))
        median = lambda v: sorted(v)[len(v) // 2]
        print(json.dumps({"bench": bench, **fields, "transactions": facts["transactions"], "rounds": len(ratios), "cores": 1,
                          "us": round(median(ours) * 1e6, 2), "reference_us": round(median(ref) * 1e6, 2),
                          "ratio": round(ratios[len(ratios) // 2], 3), "ratio_range": [round(ratios[0], 3), round(ratios[-1], 3)],
                          **({"goal": fields.pop("goal")} if "goal" in fields else {})}))

    goals = {"ifma": 0.4, "avx2": 0.8, "portable": 1.2}
    paths = list(facts["found_by_path"])
    whole_ref = rounds("sp_tweak_data_libsecp256k1", "sp_scan_libsecp256k1")
    for path in paths:
        line("sp_tweak_data_and_scan", rounds("sp_tweak_data_ours", "sp_scan_batched_" + path), whole_ref, path=path,
             in_use=path == facts["path"], per="eligible transaction", goal=goals[path])
    line("sp_tweak_data", rounds("sp_tweak_data_ours"), rounds("sp_tweak_data_libsecp256k1"), path="one transaction at a time",
         per="transaction")
    line("sp_scan", rounds("sp_scan_ours"), rounds("sp_scan_libsecp256k1"), path="one transaction at a time", per="transaction")
    for path in paths:
        line("sp_scan_batched", rounds("sp_scan_batched_" + path), rounds("sp_scan_libsecp256k1"), path=path,
             in_use=path == facts["path"], per="transaction")
    for path in paths:
        line("sp_ecdh_kernel", rounds("sp_ecdh_kernel_" + path), rounds("sp_ecdh_libsecp256k1"), path=path, per="point",
             reference="libsecp256k1 secp256k1_ecdh")
    for path in paths:
        line("sp_gen_kernel", rounds("sp_gen_kernel_" + path), rounds("sp_gen_libsecp256k1"), path=path, per="transaction",
             reference="libsecp256k1 pubkey_create, then two pubkey_combine and serialize")


if __name__ == "__main__":
    main()
