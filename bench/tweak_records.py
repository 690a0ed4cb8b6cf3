#!/usr/bin/env python3
"""make bench: silent payment tweak records (scan-blocks --tweaks-out, --tweaks) on one core.

bitcoin-bench sp-tweak-records: 10,000 realistic eligible transactions (1-2 inputs of mixed kinds,
two taproot outputs, one in a hundred paying the receiver) in blocks of 250, written as tweak
records, read back through TweakRecordSource, parsed and scanned by one receiver; beside, in the
same rounds, the JSON of the records alone parsed (any reader's floor) and the reference: the
same receiver scanning the blocks themselves with their spent outputs (what a node's own scan
does: parse, tweak data, ECDH, outputs). Prints tweak records read per second (with and without
the receiver's scan), the ratio of a record's read and scan to a block transaction's scan (median
of the per-round ratios, with the lowest and highest), and the bytes written.
"""
import argparse, json, os, subprocess


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--transactions", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    out = subprocess.run(["taskset", "-c", "0", os.path.join(args.bin, "bitcoin-bench"), "sp-tweak-records", str(args.transactions),
                          str(args.rounds)], capture_output=True, text=True, check=True).stdout
    r = {j["bench"]: j for j in map(json.loads, out.splitlines())}
    size = r["sp_tweak_records_size"]

    def line(bench, ours, ref, **fields):
        ratios = sorted(o / f for o, f in zip(r[ours]["rounds"], r[ref]["rounds"]))
        median = lambda v: sorted(v)[len(v) // 2]
        print(json.dumps({"bench": bench, **fields, "transactions": size["transactions"], "rounds": len(ratios), "cores": 1,
                          "records_per_second": round(1 / median(r[ours]["rounds"])),
                          "us": round(median(r[ours]["rounds"]) * 1e6, 2), "reference": ref,
                          "reference_us": round(median(r[ref]["rounds"]) * 1e6, 2),
                          "ratio": round(ratios[len(ratios) // 2], 3), "ratio_range": [round(ratios[0], 3), round(ratios[-1], 3)]}))

    line("sp_tweak_records_read_and_scan", "sp_tweak_records_read_and_scan", "sp_blocks_parse_and_scan",
         per="eligible transaction, one receiver")
    line("sp_tweak_records_read", "sp_tweak_records_read_only", "sp_tweak_records_json_floor", per="record, no scan")
    line("sp_tweak_records_write", "sp_tweak_records_write", "sp_blocks_parse_and_scan", per="eligible transaction written")
    print(json.dumps({"bench": "sp_tweak_records_bytes", "bytes_per_block_record": size["bytes_per_block_record"],
                      "bytes_per_tweak_record": size["bytes_per_tweak_record"], "outputs_per_transaction": size["outputs_per_transaction"],
                      "blocks": size["blocks"], "transactions": size["transactions"]}))


if __name__ == "__main__":
    main()
