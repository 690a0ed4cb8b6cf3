#!/usr/bin/env python3
"""make bench: BIP352 silent payment scanning against libsecp256k1 in the same run.

bitcoin-bench silent-payments: 10,000 realistic transactions (2-3 inputs of mixed kinds, two
taproot outputs, one in a hundred paying the receiver). Two parts: the tweak data (A and
input_hash*A, once per transaction for every wallet) and the receiver's scan (the ECDH, t_0,
P_0, the outputs matched with and without the change label: per transaction and wallet), each
as microseconds per transaction on one core and as a ratio to libsecp256k1 doing the same work
through its public API. Then the scan as scan-blocks runs it, the shared points of 256
transactions at a time, on every path this CPU has (issue 46's goals: IFMA <= 0.4, AVX2 <= 0.8,
portable <= 1.2 of the reference; the portable path is libsecp256k1's ECDH one by one), and the
ladder alone on each path beside libsecp256k1's secp256k1_ecdh (the kernel's portable code is
the reference the vector paths are tested against, slower than libsecp256k1), and the
fixed-base kernel alone (t_0*G + B_spend and + B_spend + change label) beside libsecp256k1's
pubkey_create and two pubkey_combine. And the whole job of a transaction, tweak data and scan:
ours makes A and input_hash and multiplies A by b_scan*input_hash (one multiplication); the
reference computes input_hash*A, then its ECDH with b_scan (two), as BIP352 writes it.
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
    for path, found in facts["found_by_path"].items():
        assert found == facts["paying"], (path, found, facts)
    for part, goal in (("tweak_data", None), ("scan", None)):
        ours, ref = r["sp_%s_ours" % part]["seconds_per_op"], r["sp_%s_libsecp256k1" % part]["seconds_per_op"]
        print(json.dumps({"bench": "sp_" + part, "path": "one transaction at a time", "transactions": facts["transactions"], "cores": 1,
                          "us_per_tx": round(ours * 1e6, 2), "reference_us_per_tx": round(ref * 1e6, 2), "ratio": round(ours / ref, 2)}))
    ref = r["sp_scan_libsecp256k1"]["seconds_per_op"]
    goals = {"ifma": 0.4, "avx2": 0.8, "portable": 1.2}
    # The whole job a transaction: its tweak data, then the receiver's scan (batched, each path).
    tweak_ours, tweak_ref = r["sp_tweak_data_ours"]["seconds_per_op"], r["sp_tweak_data_libsecp256k1"]["seconds_per_op"]
    for path in facts["found_by_path"]:
        ours = tweak_ours + r["sp_scan_batched_" + path]["seconds_per_op"]
        print(json.dumps({"bench": "sp_tweak_data_and_scan", "path": path, "in_use": path == facts["path"],
                          "transactions": facts["transactions"], "cores": 1, "us_per_tx": round(ours * 1e6, 2),
                          "reference_us_per_tx": round((tweak_ref + ref) * 1e6, 2), "ratio": round(ours / (tweak_ref + ref), 2),
                          "goal": goals[path]}))
    for path in facts["found_by_path"]:
        ours = r["sp_scan_batched_" + path]["seconds_per_op"]
        print(json.dumps({"bench": "sp_scan_batched", "path": path, "in_use": path == facts["path"], "transactions": facts["transactions"],
                          "cores": 1, "us_per_tx": round(ours * 1e6, 2), "reference_us_per_tx": round(ref * 1e6, 2),
                          "ratio": round(ours / ref, 2), "goal": goals[path]}))
    ecdh = r["sp_ecdh_libsecp256k1"]["seconds_per_op"]
    for path in facts["found_by_path"]:
        ours = r["sp_ecdh_kernel_" + path]["seconds_per_op"]
        print(json.dumps({"bench": "sp_ecdh_kernel", "path": path, "us_per_point": round(ours * 1e6, 2),
                          "reference": "libsecp256k1 secp256k1_ecdh", "reference_us_per_point": round(ecdh * 1e6, 2),
                          "ratio": round(ours / ecdh, 2)}))
    gen = r["sp_gen_libsecp256k1"]["seconds_per_op"]
    for path in facts["found_by_path"]:
        ours = r["sp_gen_kernel_" + path]["seconds_per_op"]
        print(json.dumps({"bench": "sp_gen_kernel", "path": path, "us_per_tx": round(ours * 1e6, 2),
                          "reference": "libsecp256k1 pubkey_create, then two pubkey_combine and serialize",
                          "reference_us_per_tx": round(gen * 1e6, 2), "ratio": round(ours / gen, 2)}))


if __name__ == "__main__":
    main()
