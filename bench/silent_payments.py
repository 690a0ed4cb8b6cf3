#!/usr/bin/env python3
"""make bench: BIP352 silent payment scanning against libsecp256k1 in the same run.

bitcoin-bench silent-payments: 10,000 realistic transactions (2-3 inputs of mixed kinds, two
taproot outputs, one in a hundred paying the receiver). Two parts: the tweak data (A and
input_hash*A, once per transaction for every wallet) and the receiver's scan (the ECDH, t_0,
P_0, the outputs matched with and without the change label: per transaction and wallet), each
as microseconds per transaction on one core and as a ratio to libsecp256k1 doing the same work
through its public API. Issue 46's goal for the scan: IFMA <= 0.4, AVX2 <= 0.8, portable <= 1.2
of the reference; today Satchel scans through libsecp256k1 itself (no batched kernel yet), so
only the portable figure exists, and the ratio is its overhead.
"""
import argparse, json, os, subprocess


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--transactions", type=int, default=10000)
    args = ap.parse_args()
    out = subprocess.run(["taskset", "-c", "0", os.path.join(args.bin, "bitcoin-bench"), "silent-payments", str(args.transactions)],
                         capture_output=True, text=True, check=True).stdout
    r = {j["bench"]: j for j in map(json.loads, out.splitlines())}
    facts = r["sp_facts"]
    assert facts["found_per_round"] == facts["paying"] == facts["reference_found_per_round"], facts
    for part, goal in (("tweak_data", None), ("scan", "IFMA <= 0.4, AVX2 <= 0.8, portable <= 1.2")):
        ours, ref = r["sp_%s_ours" % part]["seconds_per_op"], r["sp_%s_libsecp256k1" % part]["seconds_per_op"]
        line = {"bench": "sp_" + part, "path": facts["path"], "transactions": facts["transactions"], "cores": 1,
                "us_per_tx": round(ours * 1e6, 2), "reference_us_per_tx": round(ref * 1e6, 2), "ratio": round(ours / ref, 2)}
        if goal:
            line["goal"] = goal
        print(json.dumps(line))


if __name__ == "__main__":
    main()
