#!/usr/bin/env python3
"""make bench, Monero bulk chain: scan-blocks against monero-wallet-rpc on the same daemon, in the
same run, on ../shared/fixtures/monero-bulk-dev (1,257 blocks, 6,873 transactions; its README).

monerod serves a copy of the fixture's database (--keep-fakechain); monero-wallet-rpc restores
the receiving wallet R from its seed. Alternating, best of three each:
  monero-wallet-rpc rescan_blockchain, scan-blocks --node --rescan, scan-blocks --blocks/--txs --rescan.
Also: max RSS of the file scan on the chain and on a chain file ten times as long (the reader
streams), and the time of the key derivations the chain needs (monero-bench), the limit.
Only 127.0.0.1.
"""
import argparse, json, os, shutil, signal, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "fixtures", "monero-bulk-dev")
NODE, WALLET = 38481, 38483


def rpc(port, method, params=None, path="json_rpc", timeout=900):
    body = {"jsonrpc": "2.0", "id": "0", "method": method, "params": params or {}} if path == "json_rpc" else (params or {})
    req = urllib.request.Request(f"http://127.0.0.1:{port}/{path}", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        reply = json.loads(r.read())
    if "error" in reply:
        raise RuntimeError(f"{method}: {reply['error']}")
    return reply.get("result", reply)


def wait(port, method, path="json_rpc"):
    for _ in range(300):
        try:
            return rpc(port, method, path=path, timeout=5)
        except Exception:
            time.sleep(0.3)
    sys.exit(f"bench: the Monero process on port {port} did not start")


def timed(cmd, stdin, simd=None):
    """Seconds, max RSS (KB) and stdout of a command, checked; `simd` forces a curve-kernel path."""
    env = dict(os.environ, SATCHEL_SIMD=simd) if simd else None
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, input=stdin, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} exited {p.returncode}: {p.stderr[-500:]}")
    return seconds, int(p.stderr.strip().splitlines()[-1]), p.stdout


def balance(out):
    b = [json.loads(l) for l in out.splitlines() if '"type":"balance"' in l][-1]
    return int(b["total"]), int(b["unlocked"])


def owned(out):
    return sorted((r["txid"], r["index"], r["amount"]) for r in map(json.loads, out.splitlines()) if r["type"] == "received")


def long_chain(work, times):
    """The chain `times` over as one stream: block records renumbered, each copy's blocks
    re-linked (monero-bench --relink rewrites prev ids and hashes); for the reader's memory."""
    blocks, txs = os.path.join(work, f"blocks-x{times}.jsonl"), os.path.join(work, f"txs-x{times}.jsonl")
    subprocess.run([os.path.join(ARGS.bin, "monero-bench"), "--relink", str(times), os.path.join(DATA, "blocks.jsonl.zst"),
                    os.path.join(DATA, "txs.jsonl.zst"), blocks, txs], check=True)
    subprocess.run(["zstd", "-q", "-1", "--rm", blocks, txs], check=True)
    return blocks + ".zst", txs + ".zst"


def main():
    if not os.path.isdir(DATA):
        print(f"Monero bulk bench skipped: {os.path.normpath(DATA)} is not there")
        return
    expected = json.load(open(os.path.join(DATA, "expected.json")))
    seed = expected["keys"]["mnemonic"]
    stdin = json.dumps({"mnemonic": seed}) + "\n"
    work = tempfile.mkdtemp(prefix="satchel-bulk-")
    procs = []
    try:
        subprocess.run(f"zstd -dc {DATA}/monerod-data.tar.zst | tar -C {work} -xf -", shell=True, check=True)
        log = open(os.path.join(work, "monerod.log"), "w")
        procs.append(subprocess.Popen(["monerod", "--regtest", "--offline", "--keep-fakechain", "--fixed-difficulty", "1",
            "--data-dir", work, "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", str(NODE), "--p2p-bind-ip", "127.0.0.1",
            "--p2p-bind-port", str(NODE + 1), "--no-igd", "--no-zmq", "--non-interactive", "--out-peers", "0", "--in-peers", "0",
            "--log-level", "0"], stdout=log, stderr=subprocess.STDOUT))
        height = wait(NODE, "get_height", path="get_height")["height"]
        os.makedirs(os.path.join(work, "wallets"))
        procs.append(subprocess.Popen(["monero-wallet-rpc", "--daemon-address", f"127.0.0.1:{NODE}", "--rpc-bind-ip", "127.0.0.1",
            "--rpc-bind-port", str(WALLET), "--wallet-dir", os.path.join(work, "wallets"), "--disable-rpc-login",
            "--non-interactive", "--log-level", "0", "--trusted-daemon"], stdout=open(os.path.join(work, "wallet.log"), "w"),
            stderr=subprocess.STDOUT))
        wait(WALLET, "get_version")
        rpc(WALLET, "restore_deterministic_wallet", {"filename": "R", "password": "", "seed": seed, "restore_height": 0, "language": "English"})
        rpc(WALLET, "refresh")
        # No refresh of its own between the timed runs (it would take the cores from the others).
        rpc(WALLET, "auto_refresh", {"enable": False})
        info = rpc(NODE, "get_info")
        txs = info["tx_count"]
        scan = os.path.join(ARGS.bin, "scan-blocks")
        node_cmd = [scan, "--node", f"127.0.0.1:{NODE}", "--birthday", "0", "--state-dir", os.path.join(work, "s-node"), "--progress", "none"]
        file_cmd = [scan, "--blocks", os.path.join(DATA, "blocks.jsonl.zst"), "--txs", os.path.join(DATA, "txs.jsonl.zst"),
                    "--birthday", "0", "--state-dir", os.path.join(work, "s-file"), "--progress", "none"]
        # First runs build each state's subaddress table (the wallet has its own already).
        _, _, first_node = timed(node_cmd, stdin)
        _, _, first_file = timed(file_cmd, stdin)
        # The other curve-kernel paths this CPU runs (SATCHEL_SIMD), each timed in the same rounds.
        paths = [p for p in ("avx2", "portable") if p != "avx2" or "avx2" in open("/proc/cpuinfo").read()]
        runs = {"wallet": [], "node": [], "file": []}
        for p in paths:
            runs[f"node@{p}"], runs[f"file@{p}"] = [], []
        rss, path_agree = [], True
        for _ in range(3):
            t = time.perf_counter()
            rpc(WALLET, "rescan_blockchain", {"hard": False})
            runs["wallet"].append(time.perf_counter() - t)
            s, _, out_node = timed(node_cmd + ["--rescan"], stdin)
            runs["node"].append(s)
            s, kb, out_file = timed(file_cmd + ["--rescan"], stdin)
            runs["file"].append(s)
            rss.append(kb)
            for p in paths:
                s, _, out_p = timed(node_cmd + ["--rescan"], stdin, simd=p)
                runs[f"node@{p}"].append(s)
                path_agree = path_agree and owned(out_p) == owned(out_node) and balance(out_p) == balance(out_node)
                s, _, out_p = timed(file_cmd + ["--rescan"], stdin, simd=p)
                runs[f"file@{p}"].append(s)
                path_agree = path_agree and owned(out_p) == owned(out_file) and balance(out_p) == balance(out_file)
        wb = rpc(WALLET, "get_balance", {"all_accounts": True})
        want = (wb["balance"], wb["unlocked_balance"])
        fixture = (expected["get_balance_all_accounts"]["balance"], expected["get_balance_all_accounts"]["unlocked_balance"])
        agree = balance(out_node) == want == balance(out_file) == fixture and owned(out_node) == owned(out_file) and len(owned(out_file)) == 9
        best = {k: min(v) for k, v in runs.items()}
        limit = json.loads(subprocess.run([os.path.join(ARGS.bin, "monero-bench"), os.path.join(DATA, "blocks.jsonl.zst"),
                                           os.path.join(DATA, "txs.jsonl.zst")], capture_output=True, text=True, check=True).stdout)
        # Ten wallets (R and nine that own nothing here), one pass, against ten runs of one.
        many = [{"mnemonic": seed, "name": "R", "birthday": 0}]
        for i in range(9):
            phrase = json.loads(subprocess.run([os.path.join(ARGS.bin, "mnemonic"), "generate", "--scheme", "monero"],
                                               capture_output=True, text=True, check=True).stdout)["mnemonic"]
            many.append({"mnemonic": phrase, "name": f"w{i}", "birthday": 0})
        wallets_file = os.path.join(work, "wallets.jsonl")
        with open(wallets_file, "w") as f:
            f.write("".join(json.dumps(w) + "\n" for w in many))
        os.chmod(wallets_file, 0o600)
        chain_args = ["--blocks", os.path.join(DATA, "blocks.jsonl.zst"), "--txs", os.path.join(DATA, "txs.jsonl.zst"), "--progress", "none"]
        # A first run derives each wallet's subaddress table; the timed runs rescan, as cron reruns would.
        many_cmd = [scan, "--wallets", wallets_file, "--state-dir", os.path.join(work, "s-many")] + chain_args
        timed(many_cmd, "")
        one_pass, _, out_many = timed(many_cmd + ["--rescan"], "")
        separate = 0.0
        for i, w in enumerate(many):
            one_cmd = [scan, "--birthday", "0", "--state-dir", os.path.join(work, f"s-one-{i}")] + chain_args
            timed(one_cmd, json.dumps({"mnemonic": w["mnemonic"]}) + "\n")
            s, _, _ = timed(one_cmd + ["--rescan"], json.dumps({"mnemonic": w["mnemonic"]}) + "\n")
            separate += s
        many_agree = balance("\n".join(l for l in out_many.splitlines() if '"wallet":"R"' in l)) == fixture
        blocks10, txs10 = long_chain(work, 10)
        # Scanned for a wallet that owns nothing in it: the copies repeat R's transactions, and
        # a transaction in two blocks is refused (a chain has each once) where it pays the wallet.
        _, rss10, out10 = timed([scan, "--blocks", blocks10, "--txs", txs10, "--birthday", "0", "--state-dir",
                                 os.path.join(work, "s-x10"), "--progress", "none"], json.dumps({"mnemonic": many[1]["mnemonic"]}) + "\n")
        print(f"Monero bulk chain (../shared/fixtures/monero-bulk-dev): {height} blocks, {txs} transactions; best of 3, alternating")
        for name, label in [("wallet", "monero-wallet-rpc rescan_blockchain"), ("node", "scan-blocks --node --rescan"),
                            ("file", "scan-blocks --blocks/--txs --rescan")]:
            ratio = best["wallet"] / best[name]
            print(f"  {label:40s} {best[name]:6.2f} s  {txs / best[name]:6.0f} tx/s  {ratio:4.2f}× monero-wallet-rpc  "
                  f"{best[name] / limit['filter_all_cores_seconds']:4.1f}× the limit")
        for p in paths:
            for name, label in [(f"node@{p}", f"  the same, SATCHEL_SIMD={p}: --node"), (f"file@{p}", f"  the same, SATCHEL_SIMD={p}: files")]:
                print(f"  {label:40s} {best[name]:6.2f} s  {txs / best[name]:6.0f} tx/s  {best['wallet'] / best[name]:4.2f}× monero-wallet-rpc")
        x = limit["x25519_us"]
        print("  X25519 on one core, µs a point (the chain's keys, runs of 256): libsodium " + f"{x['libsodium']:.1f}; " +
              "; ".join(f"{p} {x[p]:.1f} ({x[p] / x['libsodium']:.2f}× libsodium" +
                        ("" if p in limit["own_ladder"] else ", libsodium's ladder") + ")"
                        for p in ("ifma", "avx2", "portable") if p in x))
        print(f"  limit: the chain's {limit['derivations']} transaction keys through the X25519 view-tag filter on all cores: "
              f"{limit['filter_all_cores_seconds']:.2f} s")
        print(f"    exact derivations instead: all cores {limit['exact_all_cores_seconds']:.2f} s; one core: Satchel's "
              f"{limit['exact_one_core_seconds']:.2f} s, libsodium's noclamp with its subgroup check {limit['libsodium_one_core_seconds']:.2f} s")
        print(f"  max RSS of the file scan: {min(rss) / 1024:.0f} MB on the chain, {rss10 / 1024:.0f} MB on a chain file 10× as long"
              f" ({limit['blocks'] * 10} blocks, {len(out10.splitlines())} records)")
        print(f"  same outputs and balances (wallet, node scan, file scan, fixture): {agree}; on every path: {path_agree}")
        print(f"  ten wallets from the files (--rescan): one pass {one_pass:.2f} s, ten runs of one {separate:.2f} s "
              f"({separate / one_pass:.2f}× as long; R's balance right: {many_agree})")
        json.dump({"blocks": height, "transactions": txs, "runs": runs, "best": best, "limit": limit, "rss_kb": min(rss),
                   "rss_x10_kb": rss10, "agree": agree, "path_agree": path_agree,
                   "ten_wallets_one_pass": one_pass, "ten_wallets_separately": separate}, open(os.path.join(ROOT, "bench", "results", "monero-bulk.json"), "w"), indent=1)
        if not agree or not many_agree or not path_agree:
            sys.exit("bench: the balances or outputs differ")
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ARGS = ap.parse_args()
    main()
