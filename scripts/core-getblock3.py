#!/usr/bin/env python3
"""Bitcoin Core's `getblock HASH 3` in front of a node that has no verbosity 3 (Debian's
litecoind 0.21 answers 3 as 2): a JSON-RPC and REST proxy on 127.0.0.1 for the scan-blocks
tests. Every request goes to the node unchanged but getblock with a verbosity of 3 or more,
which is answered as Core answers it, from the node's own getblock HASH 2 and the spent
transactions (getrawtransaction, which needs the node's -txindex).

Written from Bitcoin Core's code (read, not copied), 0xB10C/bitcoin, a fork of Core's master:
  src/rpc/blockchain.cpp @ fa5ad4ed2b36fa483385670a210eb8564bc53c9b: getblock (ParseVerbosity
    with default 1 and booleans allowed: false 0, true 1; 0 the hex, 1 txids, 2 details, 3 and
    above details and prevouts; an unknown hash RPC_INVALID_ADDRESS_OR_KEY -5 "Block not
    found"), blockToJSON (undo data only for a block that is not pruned and has it; the
    coinbase never has any);
  src/core_io.cpp @ baba9dadade52a2f5f8e892bc079e4d7c732cfa7: TxToUniv (each transaction's
    keys txid, hash, version, size, vsize, weight, locktime, vin, vout, fee, hex; each input's
    txid, vout, scriptSig, txinwitness, prevout, sequence; prevout {generated, height, value,
    scriptPubKey}; fee only with undo data), ScriptToUniv (asm, desc, hex, address, type; desc
    addr(ADDRESS) with its checksum where there is an address and the script is not P2TR).
What it reproduces: all of the above, with the node's values.
What it does not: desc for scripts without an address and for P2TR is raw(HEX)/rawtr(KEY) as
Core's InferDescriptor gives without keys, except that pk() scripts also get raw(); getblock's
block-level fields are the node's (as Core's are the same fields). The REST interface is the
node's: /rest/block/HASH.json is not rewritten (the client reads .bin only).
--no-undo answers as Core does for a block without undo data (fetched by getblockfrompeer, or
after a crash): no prevout and no fee, so the output is verbosity 2's.

    core-getblock3.py --upstream 127.0.0.1:PORT --log FILE [--no-undo]

Prints the port it listens on, then serves until killed. FILE holds the count of each method
the client sent (getblock by verbosity: getblock/3), rewritten after every request.
"""
import argparse, http.server, json, os, re, threading, urllib.request, urllib.error
from decimal import Decimal

parser = argparse.ArgumentParser()
parser.add_argument("--upstream", required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--no-undo", action="store_true")
args = parser.parse_args()
counts, lock = {}, threading.Lock()

CHARSET = "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ "
CHECKSUM = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def descriptor_checksum(text):  # BIP380's
    gens = [0xF5DEE51989, 0xA9FDCA3312, 0x1BAB10E32D, 0x3706B1677A, 0x644D626FFD]

    def polymod(c, val):
        top = c >> 35
        c = (c & 0x7FFFFFFFF) << 5 ^ val
        for i in range(5):
            if (top >> i) & 1:
                c ^= gens[i]
        return c

    c, cls, clscount = 1, 0, 0
    for ch in text:
        pos = CHARSET.find(ch)
        c = polymod(c, pos & 31)
        cls = cls * 3 + (pos >> 5)
        clscount += 1
        if clscount == 3:
            c, cls, clscount = polymod(c, cls), 0, 0
    if clscount > 0:
        c = polymod(c, cls)
    for _ in range(8):
        c = polymod(c, 0)
    c ^= 1
    return "".join(CHECKSUM[(c >> (5 * (7 - j))) & 31] for j in range(8))


def call(auth, method, params):
    body = json.dumps({"jsonrpc": "1.0", "id": 0, "method": method, "params": params}).encode()
    request = urllib.request.Request("http://" + args.upstream + "/", data=body, headers={"Authorization": auth, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            answer = json.loads(reply.read(), parse_float=Decimal)
    except urllib.error.HTTPError as error:  # bitcoind answers RPC errors with 404/500 and a JSON body
        answer = json.loads(error.read(), parse_float=Decimal)
    return answer.get("result"), answer.get("error")


def script_object(node_key):
    """ScriptToUniv(include_hex, include_address) from the node's scriptPubKey object."""
    address = node_key.get("address") or (node_key.get("addresses") or [None])[0]
    kind = node_key["type"]
    if kind == "pubkey":
        address = None  # Core gives no address for P2PK
    if address and kind != "witness_v1_taproot":
        desc = "addr(%s)" % address
    elif kind == "witness_v1_taproot":
        desc = "rawtr(%s)" % node_key["hex"][4:]
    else:
        desc = "raw(%s)" % node_key["hex"]
    out = {"asm": node_key["asm"], "desc": desc + "#" + descriptor_checksum(desc), "hex": node_key["hex"]}
    if address:
        out["address"] = address
    out["type"] = kind
    return out


def verbosity_of(params):
    value = params.get("verbosity") if isinstance(params, dict) else (params[1] if len(params) > 1 else None)
    if value is None:
        return 1
    if isinstance(value, bool):
        return 1 if value else 0
    return int(value)


def getblock3(auth, params):
    hash_ = params.get("blockhash") if isinstance(params, dict) else params[0]
    block, error = call(auth, "getblock", [hash_, 2])
    if error or args.no_undo:
        return block, error
    heights = {}
    for i, tx in enumerate(block["tx"]):
        vin = []
        total_in = Decimal(0)
        for txin in tx["vin"]:
            entry = {k: txin[k] for k in ("coinbase", "txid", "vout", "scriptSig", "txinwitness") if k in txin}
            if i > 0:  # the coinbase has no undo data
                spent, error = call(auth, "getrawtransaction", [txin["txid"], True])
                if error:
                    return None, {"code": -32603, "message": "Undo data expected but can't be read."}
                out = spent["vout"][txin["vout"]]
                if spent["blockhash"] not in heights:
                    header, error = call(auth, "getblockheader", [spent["blockhash"], True])
                    heights[spent["blockhash"]] = header["height"]
                entry["prevout"] = {"generated": "coinbase" in spent["vin"][0], "height": heights[spent["blockhash"]],
                                    "value": out["value"], "scriptPubKey": script_object(out["scriptPubKey"])}
                total_in += out["value"]
            entry["sequence"] = txin["sequence"]
            vin.append(entry)
        rebuilt = {k: tx[k] for k in ("txid", "hash", "version", "size", "vsize", "weight", "locktime")}
        rebuilt["vin"] = vin
        rebuilt["vout"] = tx["vout"]
        if i > 0:
            rebuilt["fee"] = total_in - sum((o["value"] for o in tx["vout"]), Decimal(0))
        rebuilt["hex"] = tx["hex"]
        block["tx"][i] = rebuilt
    return block, None


def count(name):
    with lock:
        counts[name] = counts.get(name, 0) + 1
        with open(args.log + ".tmp", "w") as f:
            json.dump(counts, f)
        os.replace(args.log + ".tmp", args.log)


class DecimalEncoder(json.JSONEncoder):
    """Amounts as the node wrote them (ValueFromAmount's 8 decimals), not as floats."""
    def default(self, o):
        if isinstance(o, Decimal):
            return "\x00D" + str(o)
        return super().default(o)


def encode(value):
    return re.sub(r'"\\u0000D([-0-9.E]+)"', r"\1", json.dumps(value, cls=DecimalEncoder)).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def forward(self, body):
        request = urllib.request.Request("http://" + args.upstream + self.path, data=body, method=self.command,
                                         headers={k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type")})
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                return reply.status, reply.headers.get("Content-Type", "application/json"), reply.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get("Content-Type", "text/plain"), error.read()

    def answer(self, status, kind, data):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        count("REST " + self.path.split("/")[2] if self.path.startswith("/rest/") else "GET")
        self.answer(*self.forward(None))

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            parsed = json.loads(body, parse_float=Decimal)
        except ValueError:
            return self.answer(*self.forward(body))
        single = not isinstance(parsed, list)
        replies = []
        for request in ([parsed] if single else parsed):
            method, params = request.get("method"), request.get("params") or []
            if method == "getblock" and verbosity_of(params) >= 3:
                count("getblock/3")
                result, error = getblock3(self.headers.get("Authorization", ""), params)
                replies.append({"result": result, "error": error, "id": request.get("id")})
            else:
                count(method + ("/%d" % verbosity_of(params) if method == "getblock" else ""))
                status, kind, data = self.forward(encode(request))
                if single:
                    return self.answer(status, kind, data)
                replies.append(json.loads(data, parse_float=Decimal))
        # Core answers a failed single JSON-RPC 1.x call with HTTP 500 (a batch, and 2.0, with 200).
        failed = single and replies[0]["error"] is not None and parsed.get("jsonrpc") != "2.0"
        self.answer(500 if failed else 200, "application/json", encode(replies[0] if single else replies))


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
