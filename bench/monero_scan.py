#!/usr/bin/env python3
"""make bench, Monero part: scan-blocks over a live regtest monerod against monero-wallet-rpc's
rescan_blockchain for the same wallet on the same chain, in the same run.

The chain (a miner M paying a receiver R many times, to several subaddresses) is built once
with Debian's monero and cached in .build/bench-monero; later runs reuse it. Only 127.0.0.1.
"""
import argparse, json, os, random, shutil, signal, subprocess, sys, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build", "bench-monero")


def rpc(port, method, params=None, path="json_rpc", timeout=600):
    body = {"jsonrpc": "2.0", "id": "0", "method": method, "params": params or {}} if path == "json_rpc" else (params or {})
    req = urllib.request.Request(f"http://127.0.0.1:{port}/{path}", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        reply = json.loads(r.read())
    if "error" in reply:
        raise RuntimeError(f"{method}: {reply['error']}")
    return reply.get("result", reply)


def wait(port, method):
    for _ in range(200):
        try:
            return rpc(port, method, timeout=5)
        except Exception:
            time.sleep(0.3)
    sys.exit(f"bench: a Monero process on port {port} did not start")


def subgroup_check():
    """What libsodium's subgroup check costs inside crypto_scalarmult_ed25519_noclamp (bench/subgroup.c)."""
    exe = os.path.join(WORK, "subgroup")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libsodium"], capture_output=True, text=True, check=True).stdout.split()
    subprocess.run(["gcc", "-O2", "-o", exe, os.path.join(ROOT, "bench", "subgroup.c")] + flags, check=True)
    runs = [json.loads(subprocess.run([exe], capture_output=True, text=True, check=True).stdout) for _ in range(5)]
    share = sorted(r["check_share"] for r in runs)[2]
    print(f"libsodium's decode + subgroup check: {share:.2f} of one crypto_scalarmult_ed25519_noclamp (median of 5)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--transactions", type=int, default=3000)
    args = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    marker = os.path.join(WORK, f"chain-{args.transactions}.json")
    node, miner, receiver = 28181, 28183, 28184
    procs = []

    def start(cmd, log):
        procs.append(subprocess.Popen(cmd, stdout=open(os.path.join(WORK, log), "w"), stderr=subprocess.STDOUT, cwd=WORK))

    try:
        if not os.path.exists(marker):
            shutil.rmtree(os.path.join(WORK, "node"), ignore_errors=True)
            shutil.rmtree(os.path.join(WORK, "wallets"), ignore_errors=True)
        os.makedirs(os.path.join(WORK, "wallets"), exist_ok=True)
        start(["monerod", "--regtest", "--offline", "--keep-fakechain", "--fixed-difficulty", "1", "--data-dir", os.path.join(WORK, "node"),
               "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", str(node), "--p2p-bind-ip", "127.0.0.1",
               "--p2p-bind-port", str(node + 1), "--no-zmq", "--no-igd", "--non-interactive", "--log-level", "0"], "node.log")
        wait(node, "get_info")
        for port in (miner, receiver):
            start(["monero-wallet-rpc", "--daemon-address", f"127.0.0.1:{node}", "--rpc-bind-ip", "127.0.0.1",
                   "--rpc-bind-port", str(port), "--wallet-dir", os.path.join(WORK, "wallets"), "--disable-rpc-login",
                   "--non-interactive", "--log-level", "0"], f"wallet-{port}.log")
            wait(port, "get_version")
        if not os.path.exists(marker):
            print(f"building a regtest chain with {args.transactions} transactions (cached for later runs)…", file=sys.stderr)
            rpc(miner, "create_wallet", {"filename": "miner", "language": "English"})
            rpc(receiver, "create_wallet", {"filename": "receiver", "language": "English"})
            m = rpc(miner, "get_address")["address"]
            subs = [rpc(receiver, "get_address")["address"]] + [rpc(receiver, "create_address", {"account_index": 0})["address"] for _ in range(9)]
            rpc(node, "generateblocks", {"amount_of_blocks": 120 + args.transactions // 4, "wallet_address": m})
            rpc(miner, "refresh")
            sent = 0
            while sent < args.transactions:
                try:
                    rpc(miner, "transfer", {"destinations": [{"amount": 1_000_000_000 * random.randint(1, 99), "address": random.choice(subs)}]})
                    sent += 1
                except RuntimeError:
                    rpc(node, "generateblocks", {"amount_of_blocks": 10, "wallet_address": m}); rpc(miner, "refresh")
                if sent % 20 == 0:
                    rpc(node, "generateblocks", {"amount_of_blocks": 1, "wallet_address": m})
            rpc(node, "generateblocks", {"amount_of_blocks": 11, "wallet_address": m})
            phrase = rpc(receiver, "query_key", {"key_type": "mnemonic"})["key"]
            rpc(receiver, "store"); rpc(miner, "store")
            json.dump({"mnemonic": phrase}, open(marker, "w"))
        else:
            rpc(receiver, "open_wallet", {"filename": "receiver"})
        seed = json.load(open(marker))
        info = rpc(node, "get_info")
        height, txs = info["height"], info["tx_count"]

        # monero-wallet-rpc: rescan the whole chain for R.
        t = time.perf_counter()
        rpc(receiver, "rescan_blockchain", timeout=3600)
        wallet_seconds = time.perf_counter() - t
        wallet_balance = rpc(receiver, "get_balance", {"all_accounts": True})

        # scan-blocks, same wallet, same node, fresh state.
        state = os.path.join(WORK, "scan-state")
        shutil.rmtree(state, ignore_errors=True)
        t = time.perf_counter()
        out = subprocess.run([os.path.join(args.bin, "scan-blocks"), "--node", f"127.0.0.1:{node}", "--birthday", "0",
                              "--state-dir", state, "--progress", "none"], input=json.dumps(seed) + "\n",
                             capture_output=True, text=True, check=True).stdout
        scan_seconds = time.perf_counter() - t
        # The wallet keeps its subaddress table in its file; so does scan-blocks after a first
        # run. --rescan is the like-for-like of rescan_blockchain.
        t = time.perf_counter()
        out = subprocess.run([os.path.join(args.bin, "scan-blocks"), "--node", f"127.0.0.1:{node}", "--birthday", "0",
                              "--state-dir", state, "--progress", "none", "--rescan"], input=json.dumps(seed) + "\n",
                             capture_output=True, text=True, check=True).stdout
        rescan_seconds = time.perf_counter() - t
        balance = [json.loads(l) for l in out.splitlines() if '"balance"' in l][-1]
        agree = balance["total"] == str(wallet_balance["balance"]) and balance["unlocked"] == str(wallet_balance["unlocked_balance"])
        print(f"Monero regtest chain: {height} blocks, {txs} transactions (monerod's tx_count: coinbase not counted)")
        print(f"monero-wallet-rpc rescan_blockchain: {wallet_seconds:.2f} s, {txs / wallet_seconds:.0f} tx/s")
        print(f"scan-blocks --node (fresh state, builds its table): {scan_seconds:.2f} s, {txs / scan_seconds:.0f} tx/s")
        print(f"scan-blocks --node --rescan (table cached):        {rescan_seconds:.2f} s, {txs / rescan_seconds:.0f} tx/s")
        print(f"ratio (scan-blocks --rescan tx/s ÷ wallet rescan tx/s): {wallet_seconds / rescan_seconds:.2f} "
              f"(target ≥ 1, goal 2); fresh state: {wallet_seconds / scan_seconds:.2f}; balances agree: {agree}")
        subgroup_check()
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


if __name__ == "__main__":
    main()
