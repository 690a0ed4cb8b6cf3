#!/usr/bin/env python3
"""make bench: scan-blocks --chain bitcoin against the hashing it cannot skip, in the same run.

1. bitcoin-bench: mainnet block 702861 (1.38 MB, 2,500 transactions) parsed, checked (the txids' merkle
   root, as scan-blocks does; the witness commitment too, beside it) and matched
   against 1,000 watched scripts, as a ratio to SHA256d over each of its transactions (OpenSSL,
   which dispatches to SHA-NI, AVX2 or plain code itself). Goal: at most 2x.
2. Block files: a chain of copies of that block (each header's parent rewritten, so they link;
   the transactions are the real ones) written as blk*.dat of 128 MiB, scanned end to end by the
   release scan-blocks for a watch-only account: blocks per second on one core and on both.
"""
import argparse, hashlib, json, os, shutil, struct, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = os.path.join(ROOT, "..", "shared", "fixtures", "bitcoin-mainnet", "block702861.raw")
PHRASE = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
MAGIC = bytes.fromhex("f9beb4d9")


def sha256d(b):
    return hashlib.sha256(hashlib.sha256(b).digest()).digest()


def write_chain(directory, block, count):
    """count copies of block, each the child of the one before (the first a genesis), in files of at most 128 MiB."""
    parent, number, size, out = bytes(32), 0, 0, None
    for _ in range(count):
        b = block[:4] + parent + block[36:]
        parent = sha256d(b[:80])
        frame = MAGIC + struct.pack("<I", len(b)) + b
        if out is None or size + len(frame) > 128 << 20:
            if out:
                out.close()
            out = open(os.path.join(directory, "blk%05d.dat" % number), "wb")
            number, size = number + 1, 0
        out.write(frame)
        size += len(frame)
    out.write(bytes(1 << 20))  # the zeros a node leaves after its last block
    out.close()


def scan(bin_dir, blocks, key, cores):
    state = tempfile.mkdtemp(prefix="satchel-bench-state-")
    try:
        cmd = [os.path.join(bin_dir, "scan-blocks"), "--chain", "bitcoin", "--birthday", "0", "--progress", "none",
               "--state-dir", state, "--blocks", blocks]
        if cores == 1:
            cmd = ["taskset", "-c", "0"] + cmd
        start = time.perf_counter()
        p = subprocess.run(cmd, input=key, capture_output=True)
        seconds = time.perf_counter() - start
        if p.returncode != 0:
            sys.exit("scan-blocks failed: " + p.stderr.decode())
        balance = json.loads(p.stdout.decode().splitlines()[-1])
        return seconds, balance
    finally:
        shutil.rmtree(state)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--blocks", type=int, default=150, help="copies of the block in the blk*.dat chain")
    args = ap.parse_args()
    if not os.path.exists(BLOCK):
        sys.exit("bitcoin_scan.py: %s is missing (../shared beside the clone)" % BLOCK)
    # The parser's own paths (SATCHEL_SHA), then OpenSSL's for it (portable): OpenSSL picks its
    # SHA-256 code from the CPU, and OPENSSL_ia32cap hides features so that its other paths are
    # measured too (the parser and the reference then share one). The first line is what the
    # CPU runs by default, and its ratio is the goal's.
    ref = None
    # "avx512, SHA-NI hidden" is a CPU with AVX-512 and no SHA-NI (Skylake-SP, Cascade Lake):
    # the lanes against OpenSSL's AVX2 code.
    for path, sha, cap in (("default", None, None), ("avx512 (eight lanes)", "avx512", None),
                           ("avx512 (eight lanes), SHA-NI hidden from OpenSSL", "avx512", ":~0x20000000"), ("sha-ni (two streams)", "shani", None),
                           ("OpenSSL sha-ni (one stream)", "portable", None), ("OpenSSL avx2/ssse3 (SHA-NI hidden)", "portable", ":~0x20000000"),
                           ("OpenSSL plain C (all hidden)", "portable", "0:0")):
        env = dict(os.environ)
        env.pop("SATCHEL_SHA", None)
        if sha:
            env["SATCHEL_SHA"] = sha
        if cap:
            env["OPENSSL_ia32cap"] = cap
        out = subprocess.run([os.path.join(args.bin, "bitcoin-bench"), BLOCK], capture_output=True, text=True, check=True, env=env).stdout
        r = {j["bench"]: j for j in map(json.loads, out.splitlines())}
        facts = r["btc_block_facts"]
        if sha and sha != "portable" and facts["sha256_path"] != sha:
            print(json.dumps({"bench": "btc_block_parse_match", "sha256_path": path, "skipped": "this CPU lacks it"}))
            continue
        reference, ours = r["btc_txs_sha256d_openssl"]["seconds_per_op"], r["btc_block_parse_match"]["seconds_per_op"]
        ref = ref or reference
        print(json.dumps({"bench": "btc_block_parse_match", "sha256_path": path if sha else "default: " + facts["sha256_path"], "block": 702861, "transactions": facts["transactions"],
                          "watched": facts["watched"], "received": facts["received"], "ms": round(ours * 1e3, 3),
                          "parse_only_ms": round(r["btc_block_parse"]["seconds_per_op"] * 1e3, 3),
                          "parse_verify_witness_ms": round(r["btc_block_parse_verify_witness"]["seconds_per_op"] * 1e3, 3),
                          "reference_sha256d_txs_ms": round(reference * 1e3, 3),
                          "satchel_sha256d_txs_ms": round(r["btc_txs_sha256d_satchel"]["seconds_per_op"] * 1e3, 3),
                          "libsodium_sha256d_txs_ms": round(r["btc_txs_sha256d_libsodium"]["seconds_per_op"] * 1e3, 3),
                          "ratio": round(ours / reference, 2), "goal": "<= 2"}))

    with open(BLOCK, "rb") as f:
        block = f.read()
    key = subprocess.run([os.path.join(args.bin, "derive"), "account", "--coin", "btc", "--purpose", "84"],
                         input=json.dumps({"mnemonic": PHRASE}).encode(), capture_output=True, check=True).stdout
    key = json.dumps({"descriptor": json.loads(key)["descriptor"]}).encode() + b"\n"
    work = tempfile.mkdtemp(prefix="satchel-bench-blk-")
    try:
        write_chain(work, block, args.blocks)
        scan(args.bin, work, key, 2)  # the page cache warm for both
        for cores in (1, 2):
            seconds, balance = scan(args.bin, work, key, cores)
            # The tip's height, as getblockcount says it: the last of blocks 0 … n−1.
            assert balance["type"] == "balance" and balance["height"] == args.blocks - 1, balance
            print(json.dumps({"bench": "btc_blk_files_scan", "cores": cores, "blocks": args.blocks, "mb": round(len(block) * args.blocks / 1e6),
                              "seconds": round(seconds, 2), "blocks_per_second": round(args.blocks / seconds, 1),
                              "ms_per_block": round(seconds / args.blocks * 1e3, 2),
                              "ratio_to_sha256d_txs": round(seconds / args.blocks / ref, 2)}))
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
