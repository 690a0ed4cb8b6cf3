#!/usr/bin/env python3
"""make bench: scan-blocks --chain bitcoin against the hashing it cannot skip, in the same run.

1. bitcoin-bench: mainnet block 702861 (1.38 MB, 2,500 transactions) parsed, checked (the txids' merkle
   root, as scan-blocks does; the witness commitment too, beside it) and matched
   against 1,000 watched scripts, as a ratio to SHA256d over each of its transactions (OpenSSL,
   which dispatches to SHA-NI, AVX2 or plain code itself). Goal: at most 2x.
2. Block files: a chain of copies of that block (each header's parent rewritten, so they link;
   the transactions are the real ones) written as blk*.dat of 128 MiB, scanned end to end by the
   release scan-blocks for a watch-only account: blocks per second on one core and on both, as a
   ratio to the SHA256d of the block's transactions (goal: at most 2x on two cores, silent
   payments off). Then silent payments on, over the chain made taproot-era with undo files.
   The reference is taken again in each round, beside that round's scans, and the median of the
   rounds' ratios is reported with the lowest and highest: this machine's speed wanders during a
   run, and a reference taken minutes before a scan would decide the ratio.
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


# ---- Silent payments on: the chain made taproot-era, with undo files. ----

P = 2**256 - 2**32 - 977
GX = 0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798
GY = 0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8


def taproot_keys(count):
    """x-only keys of G, 2G, ... (affine additions; public test points for spent P2TR outputs)."""
    keys, x, y = [], GX, GY
    for _ in range(count):
        keys.append(x.to_bytes(32, "big"))
        lam = (y - GY) * pow(x - GX, -1, P) % P if x != GX else 3 * GX * GX * pow(2 * GY, -1, P) % P
        nx = (lam * lam - x - GX) % P
        x, y = nx, (lam * (x - nx) - y) % P
    return keys


def compact(n):
    return bytes([n]) if n < 0xFD else b"\xfd" + struct.pack("<H", n) if n <= 0xFFFF else b"\xfe" + struct.pack("<I", n)


def read_compact(b, i):
    n = b[i]
    if n < 0xFD:
        return n, i + 1
    size = {0xFD: 2, 0xFE: 4, 0xFF: 8}[n]
    return int.from_bytes(b[i + 1:i + 1 + size], "little"), i + 1 + size


def core_varint(n):
    """Bitcoin Core's VARINT (serialize.h): base 128, most significant first, continued groups minus one."""
    out = [n & 0x7F]
    while n > 0x7F:
        n = (n >> 7) - 1
        out.append(0x80 | (n & 0x7F))
    return bytes(reversed(out))


def hash160(b):
    return hashlib.new("ripemd160", hashlib.sha256(b).digest()).digest()


def parse_tx(b, i):
    """(version, inputs [(outpoint, scriptSig, sequence)], outputs [(value, script)], witnesses, locktime), end."""
    version = b[i:i + 4]
    i += 4
    segwit = b[i] == 0 and b[i + 1] == 1
    if segwit:
        i += 2
    n, i = read_compact(b, i)
    inputs = []
    for _ in range(n):
        outpoint = b[i:i + 36]
        size, j = read_compact(b, i + 36)
        inputs.append((outpoint, b[j:j + size], b[j + size:j + size + 4]))
        i = j + size + 4
    n, i = read_compact(b, i)
    outputs = []
    for _ in range(n):
        value = b[i:i + 8]
        size, j = read_compact(b, i + 8)
        outputs.append((value, b[j:j + size]))
        i = j + size
    witnesses = []
    if segwit:
        for _ in inputs:
            items, i = read_compact(b, i)
            stack = []
            for _ in range(items):
                size, i = read_compact(b, i)
                stack.append(b[i:i + size])
                i += size
            witnesses.append(stack)
    return (version, inputs, outputs, witnesses, b[i:i + 4]), i + 4


def serialize_tx(tx, witness):
    version, inputs, outputs, witnesses, locktime = tx
    body = compact(len(inputs)) + b"".join(o + compact(len(s)) + s + q for o, s, q in inputs)
    body += compact(len(outputs)) + b"".join(v + compact(len(s)) + s for v, s in outputs)
    if witness and witnesses:
        w = b"".join(compact(len(st)) + b"".join(compact(len(x)) + x for x in st) for st in witnesses)
        return version + b"\x00\x01" + body + w + locktime
    return version + body + locktime


def taproot_era(block, keys):
    """The block with every other P2WPKH output of each transaction made P2TR (as today's
    blocks carry them), the merkle root recomputed, and each input's spent script guessed from
    its shape (P2WPKH, P2SH-P2WPKH, P2TR key path, P2PKH; else a P2WSH, which does not count):
    (block, spent scripts per non-coinbase transaction, transactions that BIP352 scans)."""
    count, i = read_compact(block, 80)
    txs = []
    for _ in range(count):
        tx, i = parse_tx(block, i)
        txs.append(tx)
    spent, k, eligible = [], 0, 0
    for n, (version, inputs, outputs, witnesses, locktime) in enumerate(txs):
        seen = 0
        for o, (value, script) in enumerate(outputs):
            if len(script) == 22 and script[:2] == b"\x00\x14":
                seen += 1
                if seen % 2 == 1:
                    outputs[o] = (value, b"\x51\x20" + keys[(n + o) % len(keys)])
        if n == 0:
            continue
        scripts = []
        for j, (_, sig, _) in enumerate(inputs):
            w = witnesses[j] if witnesses else []
            if len(w) == 2 and len(w[1]) == 33 and not sig:
                scripts.append(b"\x00\x14" + hash160(w[1]))
            elif len(w) == 2 and len(w[1]) == 33 and len(sig) == 23:
                scripts.append(b"\xa9\x14" + hash160(sig[1:]) + b"\x87")
            elif len(w) == 1 and len(w[0]) in (64, 65):
                scripts.append(b"\x51\x20" + keys[k % len(keys)])
                k += 1
            elif not w and len(sig) > 34 and sig[-34] == 33:
                scripts.append(b"\x76\xa9\x14" + hash160(sig[-33:]) + b"\x88\xac")
            else:
                scripts.append(b"\x00\x20" + hashlib.sha256(sig + b"".join(w)).digest())
        spent.append(scripts)
        if any(o[1][:2] == b"\x51\x20" for o in outputs) and any(not x.startswith(b"\x00\x20") for x in scripts):
            eligible += 1
    level = [sha256d(serialize_tx(tx, False)) for tx in txs]
    while len(level) > 1:
        if len(level) % 2:
            level.append(level[-1])
        level = [sha256d(level[a] + level[a + 1]) for a in range(0, len(level), 2)]
    header = block[:36] + level[0] + block[68:80]
    return header + compact(count) + b"".join(serialize_tx(tx, True) for tx in txs), spent, eligible


def compressed_script(script):
    """Bitcoin Core's ScriptCompression: P2PKH and P2SH short, anything else its size + 6."""
    if len(script) == 25 and script[:3] == b"\x76\xa9\x14" and script[23:] == b"\x88\xac":
        return b"\x00" + script[3:23]
    if len(script) == 23 and script[:2] == b"\xa9\x14" and script[22] == 0x87:
        return b"\x01" + script[2:22]
    return core_varint(len(script) + 6) + script


def undo_data(spent):
    """CBlockUndo: per transaction its coins (height 1, not coinbase, a dummy version, an amount)."""
    out = compact(len(spent))
    for scripts in spent:
        out += compact(len(scripts)) + b"".join(core_varint(2) + core_varint(0) + core_varint(9) + compressed_script(s) for s in scripts)
    return out


def write_chain_with_undo(directory, block, spent, count):
    """A genesis of the block's coinbase alone (a genesis spends nothing and has no undo
    record), then `count` copies of the block, with rev*.dat beside blk*.dat: each block's undo
    record after the magic and size, then SHA256d(parent hash ‖ undo data), as Bitcoin Core
    writes them."""
    undo = undo_data(spent)
    _, end = parse_tx(block, read_compact(block, 80)[1])
    coinbase = block[read_compact(block, 80)[1]:end]
    coinbase_id = sha256d(serialize_tx(parse_tx(block, read_compact(block, 80)[1])[0], False))
    genesis = block[:4] + bytes(32) + coinbase_id + block[68:80] + compact(1) + coinbase
    parent = sha256d(genesis[:80])
    out = open(os.path.join(directory, "blk00000.dat"), "wb")
    rev = open(os.path.join(directory, "rev00000.dat"), "wb")
    out.write(MAGIC + struct.pack("<I", len(genesis)) + genesis)
    number, size = 1, len(genesis) + 8
    for _ in range(count):
        b = block[:4] + parent + block[36:]
        frame = MAGIC + struct.pack("<I", len(b)) + b
        if out is None or size + len(frame) > 128 << 20:
            if out:
                out.close()
                rev.close()
            out = open(os.path.join(directory, "blk%05d.dat" % number), "wb")
            rev = open(os.path.join(directory, "rev%05d.dat" % number), "wb")
            number, size = number + 1, 0
        out.write(frame)
        rev.write(MAGIC + struct.pack("<I", len(undo)) + undo + sha256d(parent + undo))
        size += len(frame)
        parent = sha256d(b[:80])
    out.write(bytes(1 << 20))
    out.close()
    rev.close()


def scan(bin_dir, blocks, key, cores, extra=()):
    state = tempfile.mkdtemp(prefix="satchel-bench-state-")
    try:
        cmd = [os.path.join(bin_dir, "scan-blocks"), "--chain", "bitcoin", "--birthday", "0", "--progress", "none",
               "--state-dir", state, "--blocks", blocks] + list(extra)
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


def reference(bin_dir):
    """Seconds per block of the SHA256d of its transactions (OpenSSL, default path), now."""
    out = subprocess.run([os.path.join(bin_dir, "bitcoin-bench"), BLOCK, "--reference-only"], capture_output=True, text=True,
                         check=True).stdout
    return {j["bench"]: j for j in map(json.loads, out.splitlines())}["btc_txs_sha256d_openssl"]["seconds_per_op"]


def scan_rounds(bin_dir, blocks, key, rounds, extra, height):
    """Per core count, each round's (seconds, ratio to the reference taken in the same round)."""
    scan(bin_dir, blocks, key, 2, extra)  # the page cache warm for both
    results = {1: [], 2: []}
    for r in range(rounds):
        for cores in ((1, 2) if r % 2 == 0 else (2, 1)):
            before = reference(bin_dir)
            seconds, balance = scan(bin_dir, blocks, key, cores, extra)
            after = reference(bin_dir)
            # The tip's height, as getblockcount says it.
            assert balance["type"] == "balance" and balance["height"] == height, balance
            results[cores].append((seconds, seconds / (before + after) * 2))
    return results


def summary(values, count):
    """The median round's seconds and ratio (each the median of its own), and the ratios' range."""
    seconds = sorted(s for s, _ in values)[len(values) // 2]
    ratios = sorted(r / count for _, r in values)
    return {"seconds": round(seconds, 2), "blocks_per_second": round(count / seconds, 1), "ms_per_block": round(seconds / count * 1e3, 2),
            "rounds": len(values), "ratio_to_sha256d_txs": round(ratios[len(ratios) // 2], 2),
            "ratio_range": [round(ratios[0], 2), round(ratios[-1], 2)]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    # 600 blocks (4 days of Bitcoin, 830 MB): what a scan's first seconds cost once (process
    # start, keys, the heap's first growth: about 60 ms) weighs as little as in a real catch-up.
    # The silent payment chain is shorter: 150 such blocks take 30 s a scan on one core.
    ap.add_argument("--blocks", type=int, default=600, help="copies of the block in the blk*.dat chain")
    ap.add_argument("--sp-blocks", type=int, default=150, help="copies of the taproot-era block, silent payments on")
    ap.add_argument("--rounds", type=int, default=5, help="end-to-end scans of each kind, each beside its own reference")
    args = ap.parse_args()
    if not os.path.exists(BLOCK):
        sys.exit("bitcoin_scan.py: %s is missing (../shared beside the clone)" % BLOCK)
    # The parser's own paths (SATCHEL_SHA), then OpenSSL's for it (portable): OpenSSL picks its
    # SHA-256 code from the CPU, and OPENSSL_ia32cap hides features so that its other paths are
    # measured too (the parser and the reference then share one). The first line is what the
    # CPU runs by default, and its ratio is the goal's.
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
        # Blocks 0 … n−1: the tip is n−1.
        results = scan_rounds(args.bin, work, key, args.rounds, (), args.blocks - 1)
        for cores in (1, 2):
            print(json.dumps({"bench": "btc_blk_files_scan", "cores": cores, "blocks": args.blocks, "mb": round(len(block) * args.blocks / 1e6),
                              **summary(results[cores], args.blocks), **({"goal": "<= 2"} if cores == 2 else {})}))
    finally:
        shutil.rmtree(work)

    # Silent payments on: the same chain made taproot-era (half the P2WPKH outputs P2TR), with
    # rev*.dat, scanned for the seed's BIP352 receiver as well as its BIP84 account; the
    # reference stays the original block's hashing.
    era, spent, eligible = taproot_era(block, taproot_keys(64))
    inputs = sum(len(x) for x in spent)
    work = tempfile.mkdtemp(prefix="satchel-bench-blk-sp-")
    try:
        write_chain_with_undo(work, era, spent, args.sp_blocks)  # a genesis, then the blocks: heights 1 … n
        seed = json.dumps({"mnemonic": PHRASE}).encode() + b"\n"
        # A genesis, then the blocks: the tip is n.
        results = scan_rounds(args.bin, work, seed, max(1, args.rounds // 2), ["--silent-payments"], args.sp_blocks)
        for cores in (1, 2):
            print(json.dumps({"bench": "btc_blk_files_scan_silent_payments", "cores": cores, "blocks": args.sp_blocks,
                              "inputs_per_block": inputs, "bip352_transactions_per_block": eligible,
                              **summary(results[cores], args.sp_blocks)}))
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
