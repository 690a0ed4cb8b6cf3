#!/usr/bin/env python3
"""make bench, Zcash Orchard: compact trial decryption per (action, IVK) on one core —
every action of fixtures/zcash-orchard (459) against 22 keys, 10,098 pairs — as a ratio to
libsodium's X25519 measured in the same run, on every curve-kernel path this CPU runs.
Issue 23's goals: at most 0.5x X25519 on the IFMA path, at most 3.5x on the portable one.
The scanner's path: a block's epks decoded together when it is parsed (batched square roots),
once for every wallet; decryptors made once per wallet; a block's actions in runs of 64, their
key agreements [ivk]epk by the GLV
endomorphism, 8 per ladder on IFMA and AVX2, one inversion per run. The portable path runs the
Swift curve code (faster there than the portable radix-2^52 C kernel).
"""
import argparse, json, os, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCKS = os.path.join(ROOT, "Tests", "Fixtures", "fixtures", "zcash-orchard", "compact_blocks.jsonl")
SANDBLASTED = os.path.join(ROOT, "Tests", "Fixtures", "fixtures", "zcash-mainnet-sample", "mainnet_1735000_sandblasted.compact.pb")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    args = ap.parse_args()
    seeds = "\n".join(bytes([i] * 32).hex() for i in range(1, 23)) + "\n"
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    p = subprocess.run(pin + [os.path.join(args.bin, "zcash-bench"), "orchard", BLOCKS, SANDBLASTED], input=seeds, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"bench: zcash-bench orchard exited {p.returncode}: {p.stderr[-400:]}")
    lines = {r["bench"]: r for r in (json.loads(l) for l in p.stdout.splitlines())}
    per_path = {k[len("orchard_trial_decryption_per_pair_"):]: v["seconds_per_op"] * 1e6
                for k, v in lines.items() if k.startswith("orchard_trial_decryption_per_pair_")}
    best = next(p for p in ("ifma", "avx2", "portable") if p in per_path)
    pair = per_path[best]
    x25519 = lines["x25519"]["seconds_per_op"] * 1e6
    mul = lines["pallas_scalar_mul"]["seconds_per_op"] * 1e6
    plain = lines["pallas_scalar_mul_plain_window"]["seconds_per_op"] * 1e6
    pairs = lines["orchard_pairs"]
    print("Zcash Orchard compact trial decryption (zcash-bench, release, one core pinned, median of 3):")
    print(f"  {pairs['pairs']} (action, IVK) pairs ({pairs['actions']} actions x {pairs['keys']} keys); libsodium X25519, same run: {x25519:.1f} µs")
    print(f"  per pair: the key agreement and trial decryption, plus the epk's decoding once per action shared by the {pairs['keys']} keys"
          " (the scanner decodes a block's epks when it parses it, for every wallet)")
    decoding = {}
    for name, us in per_path.items():
        goal = "goal: <= 0.5x" if name == "ifma" else "goal: <= 3.5x" if name == "portable" else "no goal of its own"
        decoding[name] = lines[f"orchard_decoding_per_action_{name}"]["seconds_per_op"] * 1e6
        trying = lines[f"orchard_trying_per_pair_{name}"]["seconds_per_op"] * 1e6
        print(f"    {name:8s} path: {us:7.1f} µs per pair  ->  {us / x25519:4.2f}x X25519 ({goal});"
              f" {trying:.1f} µs trying, {decoding[name]:.1f} µs decoding an epk; one wallet's two keys alone:"
              f" {trying + decoding[name] / 2:.1f} µs = {(trying + decoding[name] / 2) / x25519:.2f}x")
    swift_batch = lines["pallas_batch_swift_per_point"]["seconds_per_op"] * 1e6
    print(f"  of which [ivk]epk for a run of 64 with one inversion, per point: Swift {swift_batch:.1f} µs ({swift_batch / x25519:.2f}x X25519)", end="")
    for k, v in lines.items():
        if k.startswith("pallas_batch_per_point_"):
            us = v["seconds_per_op"] * 1e6
            print(f"; {k[len('pallas_batch_per_point_'):]} kernel {us:.1f} µs ({us / x25519:.2f}x, {swift_batch / us:.1f}x faster)", end="")
    print()
    if "jubjub_batch_swift_per_point" in lines:
        js = lines["jubjub_batch_swift_per_point"]["seconds_per_op"] * 1e6
        jd = lines["jubjub_decode_swift_per_point"]["seconds_per_op"] * 1e6
        print(f"  Sapling's [8·ivk]epk (Jubjub), runs of 64 mainnet epks, per point: Swift {js:.1f} µs ({js / x25519:.2f}x X25519)", end="")
        decodings = [f"Swift {jd:.1f} µs"]
        for path in ("avx2", "ifma"):
            if f"jubjub_batch_per_point_{path}" in lines:
                ji = lines[f"jubjub_batch_per_point_{path}"]["seconds_per_op"] * 1e6
                decodings.append(f"{path} {lines[f'jubjub_decode_per_point_{path}']['seconds_per_op'] * 1e6:.1f} µs")
                print(f"; {path} kernel {ji:.1f} µs ({ji / x25519:.2f}x, {js / ji:.1f}x faster)", end="")
        print("; decoding an epk: " + ", ".join(decodings))
    print(f"  one Swift GLV multiplication: {mul:.1f} µs (plain 4-bit window: {plain:.1f} µs, {plain / mul:.2f}x slower)")
    print("  the radix-2^52 field kernel (C), per product:")
    swift_mul = lines["pallas_fp_mul_swift"]["seconds_per_op"] * 1e9
    kernels = {k[len("fe52_mul_per_lane_"):]: v["seconds_per_op"] * 1e9 for k, v in lines.items() if k.startswith("fe52_mul_per_lane_")}
    print(f"    Swift PrimeField (4x64, R = 2^256): {swift_mul:6.2f} ns")
    for name, ns in kernels.items():
        print(f"    fe52 mul8, {name:8s} path: {ns:6.2f} ns per lane ({swift_mul / ns:4.1f}x the Swift field)")
    swift_double = lines["pallas_double_swift"]["seconds_per_op"] * 1e9
    doubles = {k[len("pallas_double_per_lane_"):]: v["seconds_per_op"] * 1e9 for k, v in lines.items() if k.startswith("pallas_double_per_lane_")}
    print(f"    a Pallas point doubling, Swift: {swift_double:6.1f} ns;" + "".join(
        f" {name} 8 lanes: {ns:6.1f} ns per lane ({swift_double / ns:4.1f}x);" for name, ns in doubles.items()))
    print("    (the portable radix-2^52 kernel is the bit-exact reference of the vector ones, not a fast path)")
    if pairs["notes_found"] != 0:
        sys.exit("bench: a note was found for keys that own none")
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    json.dump({"us_per_pair": pair, "path": best, "us_per_pair_per_path": per_path, "decoding_us_per_action": decoding, "x25519_us": x25519, "ratio": pair / x25519, "pallas_scalar_mul_us": mul, "pallas_plain_window_us": plain, "pallas_fp_mul_swift_ns": swift_mul,
               "fe52_mul_ns_per_lane": kernels, "pallas_double_swift_ns": swift_double, "pallas_double_ns_per_lane": doubles, **pairs},
              open(os.path.join(ROOT, "bench", "results", "zcash-orchard.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
