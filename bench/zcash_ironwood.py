#!/usr/bin/env python3
"""make bench, Zcash Ironwood (NU6.3's pool): compact trial decryption per (action, IVK) of the
Ironwood actions of fixtures/zcash-ironwood beside its Orchard actions, in the same run, with
22 keys that own none of them (the pairs a scan tries are nearly all someone else's), on every
curve-kernel path this CPU runs, as a ratio to libsodium's X25519 measured in that run; then
the fixture wallet's own two keys, and what one found note costs. Ironwood is Orchard's machinery (same KA,
KDF, kernels): issue 43's goal is Orchard's, at most 0.5x X25519 on the IFMA path. The notes
found must be the fixture's: 11 Orchard and 14 Ironwood, every path alike.
"""
import argparse, json, os, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCKS = os.path.join(ROOT, "Tests", "Fixtures", "fixtures", "zcash-ironwood", "compact_blocks.jsonl")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    args = ap.parse_args()
    seeds = "\n".join(bytes([i] * 32).hex() for i in range(1, 23)) + "\n"
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    p = subprocess.run(pin + [os.path.join(args.bin, "zcash-bench"), "ironwood", BLOCKS], input=seeds, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"bench: zcash-bench ironwood exited {p.returncode}: {p.stderr[-400:]}")
    lines = {r["bench"]: r for r in (json.loads(l) for l in p.stdout.splitlines())}
    x25519 = lines["x25519"]["seconds_per_op"] * 1e6
    pairs = lines["ironwood_pairs"]
    print("Zcash Ironwood compact trial decryption (zcash-bench, release, one core pinned, median of 3):")
    print(f"  {pairs['ironwood_actions']} Ironwood and {pairs['orchard_actions']} Orchard actions x {pairs['keys']} keys that own none; libsodium X25519, same run: {x25519:.1f} µs")
    result = {"x25519_us": x25519, **pairs, "paths": {}}
    for path in ("ifma", "avx2", "portable"):
        if f"ironwood_per_pair_{path}" not in lines:
            continue
        iw = lines[f"ironwood_per_pair_{path}"]["seconds_per_op"] * 1e6
        orch = lines[f"orchard_fixture_per_pair_{path}"]["seconds_per_op"] * 1e6
        found = lines[f"ironwood_found_{path}"]
        goal = " (goal: <= 0.5x)" if path == "ifma" else ""
        print(f"  {path:8s} path: Ironwood {iw:6.1f} µs per pair ({iw / x25519:.2f}x X25519){goal}; Orchard {orch:6.1f} µs ({orch / x25519:.2f}x);"
              f" the wallet's keys find {found['ironwood_notes']} Ironwood and {found['orchard_notes']} Orchard notes")
        if (found["ironwood_notes"], found["orchard_notes"], found["others_found"]) != (14, 11, 0):
            sys.exit(f"bench: the {path} path found {found['ironwood_notes']} Ironwood and {found['orchard_notes']} Orchard notes with the wallet's keys"
                     f" (not 14 and 11) and {found['others_found']} with keys that own none")
        result["paths"][path] = {"ironwood_us_per_pair": iw, "orchard_us_per_pair": orch, "ironwood_ratio": iw / x25519}
    note = lines["ironwood_found_note"]["seconds_per_op"] * 1e6
    print(f"  a found Ironwood note's whole check (epk, V3 rcm, cmx: Sinsemilla over the note, its table read in full): {note:.0f} µs")
    result["found_note_us"] = note
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    json.dump(result, open(os.path.join(ROOT, "bench", "results", "zcash-ironwood.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
