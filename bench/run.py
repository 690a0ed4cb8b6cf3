#!/usr/bin/env python3
"""make bench: Satchel's mnemonic benchmarks against references measured in the same run.

References: Python's hashlib.pbkdf2_hmac (OpenSSL's C PBKDF2-HMAC-SHA512) for phrase → seed,
and the Trezor `mnemonic` package from PyPI (installed into .build/bench-venv) for validation.
Ratios are Satchel time / reference time per operation: below 1 means Satchel is faster.
"""
import argparse, hashlib, json, os, statistics, subprocess, sys, time, unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def median_time(fn, items, repeats=5):
    rounds = []
    for _ in range(repeats):
        start = time.perf_counter()
        for x in items:
            fn(x)
        rounds.append((time.perf_counter() - start) / len(items))
    return statistics.median(rounds)


def trezor_mnemonic():
    """The reference implementation from PyPI, in a private venv; None if it cannot be had."""
    venv = os.path.join(ROOT, ".build", "bench-venv")
    py = os.path.join(venv, "bin", "python3")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "mnemonic==0.21"], check=False)
    return py if subprocess.run([py, "-c", "import mnemonic"], capture_output=True).returncode == 0 else None


def run_child_rss(cmd, stdin_path):
    """Runs cmd with stdin from a file; returns (seconds, max RSS in KiB, stdout line count)."""
    probe = ("import resource,subprocess,sys,time;"
             "f=open(sys.argv[1],'rb');t=time.perf_counter();"
             "p=subprocess.run(sys.argv[2:],stdin=f,stdout=subprocess.PIPE,stderr=subprocess.DEVNULL);"
             "d=time.perf_counter()-t;"
             "print(d,resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,p.stdout.count(b'\\n'),p.returncode)")
    out = subprocess.run([sys.executable, "-c", probe, stdin_path] + cmd, capture_output=True, text=True, check=True).stdout.split()
    seconds, rss, lines, rc = float(out[0]), int(out[1]), int(out[2]), int(out[3])
    if rc != 0:
        sys.exit(f"bench: {' '.join(cmd)} exited {rc}")
    return seconds, rss, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="directory of the release executables")
    ap.add_argument("--phrases", type=int, default=400)
    ap.add_argument("--addresses", type=int, default=100_000)
    args = ap.parse_args()
    mnemonic = os.path.join(args.bin, "mnemonic")
    tmp = os.path.join(ROOT, ".build", "bench-data")
    os.makedirs(tmp, exist_ok=True)

    records = subprocess.run([mnemonic, "generate", "--words", "24", "--count", str(args.phrases)],
                             capture_output=True, text=True, check=True).stdout.splitlines()
    phrases = [json.loads(r)["mnemonic"] for r in records]

    swift = {}
    out = subprocess.run([os.path.join(args.bin, "satchel-bench"), str(args.addresses)], input="\n".join(phrases) + "\n",
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        r = json.loads(line)
        swift[r["bench"]] = r["seconds_per_op"]

    seed_items = phrases[:200]
    ref_pbkdf2 = median_time(lambda p: hashlib.pbkdf2_hmac(
        "sha512", unicodedata.normalize("NFKD", p).encode(), b"mnemonic", 2048), seed_items)

    ref_py = trezor_mnemonic()
    ref_validate = None
    if ref_py:
        code = ("import json,statistics,sys,time;from mnemonic import Mnemonic;m=Mnemonic('english');"
                "ps=[l.strip() for l in sys.stdin if l.strip()];r=[]\n"
                "for _ in range(5):\n t=time.perf_counter()\n for p in ps: assert m.check(p)\n r.append((time.perf_counter()-t)/len(ps))\n"
                "print(statistics.median(r))")
        ref_validate = float(subprocess.run([ref_py, "-c", code], input="\n".join(phrases), capture_output=True,
                                            text=True, check=True).stdout)

    # End to end through the executable: JSON parsing, NFKD, output, one process.
    def stream_file(n):
        path = os.path.join(tmp, f"phrases-{n}.jsonl")
        if not os.path.exists(path) or sum(1 for _ in open(path)) != n:
            with open(path, "w") as f:
                for i in range(n):
                    f.write(json.dumps({"i": i, "mnemonic": phrases[i % len(phrases)]}) + "\n")
        return path
    seed_n = 2000
    t_seed, rss_seed, lines = run_child_rss([mnemonic, "to-seed"], stream_file(seed_n))
    assert lines == seed_n
    t_10k, rss_10k, lines10 = run_child_rss([mnemonic, "validate"], stream_file(10_000))
    t_100k, rss_100k, lines100 = run_child_rss([mnemonic, "validate"], stream_file(100_000))
    assert lines10 == 10_000 and lines100 == 100_000
    tool_seed = t_seed / seed_n

    # derive: BIP84 receive addresses from an account xpub, against a C loop over
    # libsecp256k1 + libsodium doing the same point work (bench/ckdpub.c), same run.
    ref_bin = os.path.join(ROOT, ".build", "bench-ckdpub")
    cflags = subprocess.run(["pkg-config", "--cflags", "--libs", "libsecp256k1", "libsodium"],
                            capture_output=True, text=True, check=True).stdout.split()
    subprocess.run(["gcc", "-O2", "-o", ref_bin, os.path.join(ROOT, "bench", "ckdpub.c")] + cflags, check=True)
    ref_ckd = float(subprocess.run([ref_bin, str(args.addresses)], capture_output=True, text=True, check=True).stdout.split()[0])
    derive = os.path.join(args.bin, "derive")
    zpub = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs"
    xpub_path = os.path.join(tmp, "zpub.jsonl")
    with open(xpub_path, "w") as f:
        f.write(json.dumps({"zpub": zpub}) + "\n")
    t_d10k, rss_d10k, n10 = run_child_rss([derive, "--count", "10000"], xpub_path)
    t_d100k, rss_d100k, n100 = run_child_rss([derive, "--count", str(args.addresses)], xpub_path)
    assert n10 == 10_000 and n100 == args.addresses

    # sign-hash: recoverable ECDSA over 100,000 hashes with one key, against bench/sign.c.
    sign_ref_bin = os.path.join(ROOT, ".build", "bench-sign")
    subprocess.run(["gcc", "-O2", "-o", sign_ref_bin, os.path.join(ROOT, "bench", "sign.c")] + cflags, check=True)
    ref_sign = float(subprocess.run([sign_ref_bin, str(args.addresses)], capture_output=True, text=True, check=True).stdout.split()[0])
    key_path = os.path.join(tmp, "key.json")
    with open(key_path, "w") as f:
        f.write(json.dumps({"private_key": "00" * 31 + "01"}) + "\n")
    os.chmod(key_path, 0o600)
    def hash_file(n):
        path = os.path.join(tmp, f"hashes-{n}.jsonl")
        if not os.path.exists(path) or sum(1 for _ in open(path)) != n:
            with open(path, "w") as f:
                for i in range(n):
                    f.write(json.dumps({"hash": hashlib.sha256(str(i).encode()).hexdigest()}) + "\n")
        return path
    sign_hash = os.path.join(args.bin, "sign-hash")
    t_s10k, rss_s10k, s10 = run_child_rss([sign_hash, "--key-file", key_path], hash_file(10_000))
    t_s100k, rss_s100k, s100 = run_child_rss([sign_hash, "--key-file", key_path], hash_file(args.addresses))
    assert s10 == 10_000 and s100 == args.addresses

    rows = [
        ("phrase→seed, in process (parse + PBKDF2)", swift["phrase_to_seed"], "hashlib.pbkdf2_hmac (OpenSSL C)", ref_pbkdf2),
        ("PBKDF2-HMAC-SHA512 ×2048 alone", swift["pbkdf2_only"], "hashlib.pbkdf2_hmac (OpenSSL C)", ref_pbkdf2),
        ("`mnemonic to-seed`, 2,000 records end to end", tool_seed, "hashlib.pbkdf2_hmac (OpenSSL C)", ref_pbkdf2),
        ("validate, language detected (10 lists)", swift["validate_detect"], "python-mnemonic check() (english)", ref_validate),
        ("validate, --language english", swift["validate_english"], "python-mnemonic check() (english)", ref_validate),
        ("`mnemonic validate`, 100,000 records end to end", t_100k / 100_000, "python-mnemonic check() (english)", ref_validate),
        ("BIP84 address from account xpub, in process", swift["xpub_p2wpkh_address"], "C CKDpub loop (point work only)", ref_ckd),
        (f"`derive --count {args.addresses}` from a zpub, end to end", t_d100k / args.addresses, "C CKDpub loop (point work only)", ref_ckd),
        ("ECDSA recoverable signature, in process", swift["ecdsa_sign_recoverable"], "C ecdsa_sign_recoverable loop", ref_sign),
        (f"`sign-hash`, {args.addresses:,} hash records end to end", t_s100k / args.addresses, "C ecdsa_sign_recoverable loop", ref_sign),
    ]
    print(f"{'measurement':52} {'Satchel/s':>11} {'reference/s':>12}  ratio (time, Satchel/ref)")
    results = []
    for name, s, ref_name, r in rows:
        ratio = s / r if r else None
        print(f"{name:52} {1/s:11.0f} {(1/r if r else float('nan')):12.0f}  "
              + (f"{ratio:.2f}×" if ratio else "n/a") + f"   [{ref_name}]")
        results.append({"measurement": name, "satchel_ops_per_second": 1 / s, "reference": ref_name,
                        "reference_ops_per_second": (1 / r) if r else None, "time_ratio": ratio})
    print(f"memory while streaming `mnemonic validate`: 10,000 records max RSS {rss_10k} KiB, "
          f"100,000 records {rss_100k} KiB (ratio {rss_100k / rss_10k:.2f}; flat ≈ 1)")
    print(f"memory while streaming `derive`: 10,000 addresses max RSS {rss_d10k} KiB, "
          f"{args.addresses:,} addresses {rss_d100k} KiB (ratio {rss_d100k / rss_d10k:.2f}; flat ≈ 1)")
    print(f"memory while streaming `sign-hash`: 10,000 hashes max RSS {rss_s10k} KiB, "
          f"{args.addresses:,} hashes {rss_s100k} KiB (ratio {rss_s100k / rss_s10k:.2f}; flat ≈ 1)")
    sign_rate = ref_sign / swift["ecdsa_sign_recoverable"]
    print(f"target signatures at least 80% of the C loop's rate: {sign_rate:.2f} in process, "
          f"{ref_sign / (t_s100k / args.addresses):.2f} end to end — {'met' if sign_rate >= 0.8 else 'NOT met'}")
    rate = ref_ckd / swift["xpub_p2wpkh_address"]
    print(f"target BIP84 addresses from an xpub at least half the C loop's rate: {rate:.2f} of it — {'met' if rate >= 0.5 else 'NOT met'}")
    target = swift["phrase_to_seed"] / ref_pbkdf2
    print(f"target phrase→seed within 1.3× of C PBKDF2: {target:.2f}× — {'met' if target <= 1.3 else 'NOT met'}")
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "bench", "results", "latest.json"), "w") as f:
        json.dump({"rows": results, "rss_kib": {"validate_10000": rss_10k, "validate_100000": rss_100k,
                                                "derive_10000": rss_d10k, "derive_many": rss_d100k,
                                                "sign_10000": rss_s10k, "sign_many": rss_s100k}}, f, indent=1)


if __name__ == "__main__":
    main()
