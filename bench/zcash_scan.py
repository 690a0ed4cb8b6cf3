#!/usr/bin/env python3
"""make bench, Zcash scanning: Sapling trial decryptions per second per core on real mainnet
compact blocks (fixtures/zcash-mainnet-sample: the sandblasted block 1,735,000 with 2,005
outputs, and 1,851 blocks of 663,150-665,000 with 666), measured as scan-blocks' CPU time per
trial decryption (every output, once per incoming viewing key). Against librustzcash's
published figure (about 100-120 µs per output per core, PRs #425 and #848) and, in the same
run, the Python reference (bench/zcash_reference.py) on the block's first outputs.
"""
import argparse, json, os, resource, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "Tests", "Fixtures", "fixtures", "zcash-mainnet-sample")
WALLET = os.path.join(ROOT, "Tests", "Fixtures", "fixtures", "zcash-sapling", "wallet.json")
SHARED_JSONL = os.path.join(ROOT, "..", "shared", "fixtures", "zcash-mainnet-sample", "mainnet_1735000_sandblasted.compact.jsonl")


def scan(binary, blocks, birthday, key, work, one_core=False, path=None):
    """(wall seconds, CPU seconds, records) of one scan-blocks run; `one_core` pins it to CPU 0
    (the per-core figure: on two hyperthreads of one core, CPU time per thread rises); `path`
    forces a curve-kernel path (SATCHEL_SIMD)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    pin = ["taskset", "-c", "0"] if one_core and shutil.which("taskset") else []
    env = dict(os.environ, SATCHEL_SIMD=path) if path else None
    p = subprocess.run(pin + [binary, "--chain", "zcash", "--blocks", blocks, "--birthday", str(birthday), "--state-dir",
                        tempfile.mkdtemp(dir=work), "--progress", "none"], input=json.dumps(key) + "\n", capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"bench: scan-blocks exited {p.returncode}: {p.stderr[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, [json.loads(l) for l in p.stdout.splitlines()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    args = ap.parse_args()
    binary = os.path.join(args.bin, "scan-blocks")
    wallet = json.load(open(WALLET))
    keys = {"uivk (1 IVK)": ({"uivk": wallet["unified"]["uivk"]}, 1), "ufvk (2 IVKs: receive and change)": ({"ufvk": wallet["unified"]["ufvk"]}, 2)}
    work = tempfile.mkdtemp(prefix="satchel-zbench-")
    results = {}
    print("Zcash Sapling trial decryption (scan-blocks, release; best of 7): CPU time per trial decryption on one core")
    print("(pinned), and wall time on all cores")
    for label, (file, birthday, outputs) in {"sandblasted block 1,735,000": ("mainnet_1735000_sandblasted.compact.pb", 1735000, 2005),
                                             "blocks 663,150-665,000": ("mainnet_663150-665000.compact.pb", 663150, 666)}.items():
        for name, (key, ivks) in keys.items():
            # Best of 7: on this kind of VM the same run's CPU time varies by up to 40 % (steal,
            # frequency); the minimum is the figure that repeats.
            runs = [scan(binary, os.path.join(SAMPLE, file), birthday, key, work, one_core=True) for _ in range(7)]
            _, cpu, records = min(runs, key=lambda r: r[1])
            wall = min(scan(binary, os.path.join(SAMPLE, file), birthday, key, work)[0] for _ in range(3))
            found = [r for r in records if r["type"] == "received"]
            per = cpu / (outputs * ivks) * 1e6
            results[f"{label} / {name}"] = {"cpu_us_per_trial": per, "wall_s": wall, "notes": len(found)}
            print(f"  {label:28s} {name:36s} {per:6.0f} µs/trial/core  wall (all cores) {wall:5.2f} s  "
                  f"{per / 110:4.1f}× librustzcash's ~110 µs  notes found: {len(found)}")
    try:
        import cryptography  # noqa: F401  (the reference's ChaCha20 and AES)
        have_reference = os.path.exists(SHARED_JSONL)
    except ImportError:
        have_reference = False
    if have_reference:
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import zcash_reference as z
        block = json.loads(open(SHARED_JSONL).readline())
        outs = [o for tx in block["vtx"] for o in tx["outputs"]][:40]
        h = bytearray(bytes.fromhex(wallet["sapling"]["ivk"]))
        ivk = int.from_bytes(h, "little")
        t = time.process_time()
        hits = [z.trial_decrypt(ivk, bytes.fromhex(o["cmu"]), bytes.fromhex(o["ephemeralKey"]), bytes.fromhex(o["ciphertext"])) for o in outs]
        py = (time.process_time() - t) / len(outs) * 1e6
        ours = results["sandblasted block 1,735,000 / uivk (1 IVK)"]["cpu_us_per_trial"]
        results["python_reference_us_per_trial"] = py
        print(f"  Python reference, same run, 40 outputs of that block: {py:8.0f} µs/trial/core "
              f"(Satchel {py / ours:4.0f}× faster); notes found: {sum(1 for x in hits if x is not None)}")
    else:
        print(f"  (Python reference skipped: no `cryptography` package, or {os.path.normpath(SHARED_JSONL)} is not there)")
    # Issue 23: the same scan on each curve-kernel path this CPU runs (IFMA: CCurveBatch's
    # Edwards ladder; AVX2: the same on two vectors of 4 lanes; portable: the Swift code), as a ratio to libsodium's X25519 in
    # the same run (goals: IFMA <= 0.85x, AVX2 <= 1.8x, portable <= 3.5x).
    flags = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    paths = [p for p, flag in (("ifma", "avx512ifma"), ("avx2", "avx2"), ("portable", "")) if flag == "" or f" {flag}" in flags]
    x = subprocess.run(["taskset", "-c", "0", os.path.join(args.bin, "zcash-bench"), "x25519"] if shutil.which("taskset")
                       else [os.path.join(args.bin, "zcash-bench"), "x25519"], capture_output=True, text=True)
    x25519 = json.loads(x.stdout.splitlines()[0])["seconds_per_op"] * 1e6
    # The sandblasted block 20 times as linked blocks (zcash-bench relink): 40,100 real outputs,
    # so that the process's start weighs little.
    blocks = os.path.join(work, "sandblasted-x20.pb")
    r = subprocess.run([os.path.join(args.bin, "zcash-bench"), "relink", "20", os.path.join(SAMPLE, "mainnet_1735000_sandblasted.compact.pb"), blocks],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench: zcash-bench relink exited {r.returncode}: {r.stderr[-400:]}")
    # The unit is per output (librustzcash's ~110 µs is one IVK's): the uivk gives it,
    # its epk decoding paid by one key; the ufvk's two keys share theirs (per trial).
    print(f"  per curve-kernel path, the sandblasted block 20 times as linked blocks (40,100 outputs), best of 3;"
          f" libsodium X25519 same run: {x25519:.1f} µs")
    for path in paths:
        one = min(scan(binary, blocks, 1735000, keys["uivk (1 IVK)"][0], work, one_core=True, path=path)[1] for _ in range(3))
        two = min(scan(binary, blocks, 1735000, keys["ufvk (2 IVKs: receive and change)"][0], work, one_core=True, path=path)[1] for _ in range(3))
        per, trial = one / 40100 * 1e6, two / (40100 * 2) * 1e6
        goal = {"ifma": 0.85, "avx2": 1.8, "portable": 3.5}[path]
        results[f"path {path}"] = {"cpu_us_per_output": per, "cpu_us_per_trial": trial, "x25519_us": x25519, "ratio": per / x25519, "notes": 0}
        print(f"    {path:8s} {per:6.1f} µs/output/core (uivk) = {per / x25519:4.2f}x X25519 (goal <= {goal}x);"
              f" ufvk {trial:6.1f} µs/trial/core = {trial / x25519:4.2f}x")
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    json.dump(results, open(os.path.join(ROOT, "bench", "results", "zcash-scan.json"), "w"), indent=1)
    if any(v["notes"] for k, v in results.items() if isinstance(v, dict)):
        sys.exit("bench: a note was found in blocks that hold none of this wallet's")


if __name__ == "__main__":
    main()
