#!/usr/bin/env python3
"""A small lightwalletd for tests: serves compact blocks from a JSON Lines file (the fixtures'
form: the proto's field names, bytes in hex) or a .pb stream over gRPC on 127.0.0.1, with
lightwalletd's own service and method names (proto/service.proto), so `scan-blocks
--lightwalletd` talks to it as to the real server.

Written from the real server's code, method by method (zcash/lightwalletd; read, not copied):
  frontend/service.go @ 02f6dee8a8cad62e3af1b0982c49da5ade85a67d: lwdStreamer.GetLatestBlock,
    GetBlock, GetBlockRange, GetLightdInfo;
  common/common.go @ 03c28ed869531ccfe64f66f9c3205352a298fb3b: GetBlock, GetBlockRange,
    FilterTxPool, filterBlockPool, GetLightdInfo.
What it reproduces of them:
  - GetLatestBlock: the tip's height and hash.
  - GetBlockRange: a missing start or end is INVALID_ARGUMENT; POOL_TYPE_INVALID anywhere in
    poolTypes is an error that is no gRPC status, which grpc-go sends as UNKNOWN, before any
    block; start > end streams in descending order; each block's transactions are filtered by
    pool exactly as FilterTxPool does (index, txid and fee always; TRANSPARENT: vin and vout;
    SAPLING: spends and outputs; ORCHARD: actions; IRONWOOD: ironwoodActions; a transaction
    left with none of them is dropped; a block left with no transaction is still sent; the
    chain metadata is not filtered); an empty poolTypes is SAPLING, ORCHARD and IRONWOOD (so
    vin and vout go, and transparent-only transactions with them); a block that does not link
    to the one sent before it (prevHash going up, hash going down) ends the stream with
    ABORTED; a height past the tip ends it with OUT_OF_RANGE after the blocks before it.
  - GetBlock: height 0 without a hash is INVALID_ARGUMENT, a hash is INVALID_ARGUMENT (not
    implemented there), past the tip OUT_OF_RANGE; the block unfiltered.
  - GetLightdInfo: a LightdInfo whose blockHeight is the tip, with lightwalletd's vendor
    string; its version is --lightd-version (v0.5.0 by default: a server that sends Ironwood's
    actions and tree size, as this fake does; lightwalletd's own version is set when it is
    built) and lightwalletProtocolVersion --protocol-version (empty by default, as released
    0.5.x servers leave it).
What it does not: the block cache and its ingestor, the backend node (a height inside the
file's range that the file lacks is OUT_OF_RANGE, as a node's -8 would be), the other methods
(UNIMPLEMENTED, as grpc-go's Unimplemented server answers), the mempool, tree states.

And it can misbehave on purpose: --stall-after N stops sending a stream after N blocks,
--drop-after N aborts it with UNAVAILABLE after N blocks (each only for the first stream, then
it serves normally unless --always). --tip H serves the chain up to H only, and --grow-per-call N
adds N blocks at each GetLatestBlock answered after that (a chain that grows, for --follow, as
the client asks: never by the clock, so a client slowed by a busy machine sees what a fast
one does); --shrink-to H ends
the chain at H once GetLatestBlock has answered (as lightwalletd's cache rolls back on a
reorg). Not lightwalletd's, on purpose: --skip H leaves block H out of every stream without
the continuity check (a server that is not lightwalletd), --without GetBlockRange answers that
method with UNIMPLEMENTED. --log FILE appends each call's method name to FILE (and, for
GetBlockRange, its pool types: "GetBlockRange []"). --rehash serves on every GetBlockRange call
another chain of the same blocks: each hash and prevHash replaced by SHA-256(call number ‖
it), self-consistent within a call (a server whose chain is never the same twice).
--bad-latest empty|garbage answers GetLatestBlock with an empty BlockID, or bytes that are no
BlockID. With --cert and --key (PEM) it speaks TLS, as a real lightwalletd does. It prints its
port on stdout when ready.

Needs Debian's python3-grpcio and python3-protobuf, and protoc (protobuf-compiler) to build the
message classes from proto/ at start.
"""
import argparse, hashlib, json, os, subprocess, sys, tempfile, threading, time
from concurrent import futures

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def messages():
    out = tempfile.mkdtemp(prefix="fake-lwd-")
    # Debian's protoc by its path: a build folder on PATH may hold swift-protobuf's, which has no Python generator.
    protoc = "/usr/bin/protoc" if os.path.exists("/usr/bin/protoc") else "protoc"
    subprocess.run([protoc, f"-I{os.path.join(ROOT, 'proto')}", f"--python_out={out}", "compact_formats.proto", "service.proto"], check=True)
    sys.path.insert(0, out)
    import compact_formats_pb2, service_pb2
    return compact_formats_pb2, service_pb2


def load_delimited(path, cf):
    """A .pb file: varint length ‖ CompactBlock, as lightwalletd's clients store them."""
    data, blocks, i = open(path, "rb").read(), [], 0
    while i < len(data):
        n = shift = 0
        while True:
            b = data[i]; i += 1
            n |= (b & 0x7F) << shift; shift += 7
            if b < 0x80:
                break
        blocks.append(cf.CompactBlock.FromString(data[i:i + n])); i += n
    return blocks


def load(path, cf):
    if path.endswith(".pb"):
        return load_delimited(path, cf)
    blocks = []
    for line in open(path):
        if not line.strip():
            continue
        r = json.loads(line)
        b = cf.CompactBlock(height=r["height"], hash=bytes.fromhex(r["hash"]), prevHash=bytes.fromhex(r["prevHash"]),
                            time=r.get("time", 0), header=bytes.fromhex(r.get("header", "")))
        meta = r.get("chainMetadata")
        if meta:
            b.chainMetadata.saplingCommitmentTreeSize = meta.get("saplingCommitmentTreeSize", 0)
            b.chainMetadata.orchardCommitmentTreeSize = meta.get("orchardCommitmentTreeSize", 0)
            b.chainMetadata.ironwoodCommitmentTreeSize = meta.get("ironwoodCommitmentTreeSize", 0)
        for t in r.get("vtx", []):
            tx = b.vtx.add(index=t.get("index", 0), txid=bytes.fromhex(t.get("txid", t.get("hash", ""))), fee=t.get("fee", 0))
            for s in t.get("spends", []):
                tx.spends.add(nf=bytes.fromhex(s["nf"]))
            for o in t.get("outputs", []):
                tx.outputs.add(cmu=bytes.fromhex(o["cmu"]), ephemeralKey=bytes.fromhex(o["ephemeralKey"]), ciphertext=bytes.fromhex(o["ciphertext"]))
            for a in t.get("actions", []):
                tx.actions.add(nullifier=bytes.fromhex(a["nullifier"]), cmx=bytes.fromhex(a["cmx"]),
                               ephemeralKey=bytes.fromhex(a["ephemeralKey"]), ciphertext=bytes.fromhex(a["ciphertext"]))
            for a in t.get("ironwoodActions", []):
                tx.ironwoodActions.add(nullifier=bytes.fromhex(a["nullifier"]), cmx=bytes.fromhex(a["cmx"]),
                                       ephemeralKey=bytes.fromhex(a["ephemeralKey"]), ciphertext=bytes.fromhex(a["ciphertext"]))
            for i in t.get("vin", []):
                tx.vin.add(prevoutTxid=bytes.fromhex(i["prevoutTxid"]), prevoutIndex=i.get("prevoutIndex", 0))
            for o in t.get("vout", []):
                tx.vout.add(value=o.get("value", 0), scriptPubKey=bytes.fromhex(o.get("scriptPubKey", "")))
        blocks.append(b)
    return blocks


def main():
    import grpc
    ap = argparse.ArgumentParser()
    ap.add_argument("blocks")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--stall-after", type=int)
    ap.add_argument("--drop-after", type=int)
    ap.add_argument("--always", action="store_true")
    ap.add_argument("--tip", type=int)
    ap.add_argument("--grow-per-call", type=int)
    ap.add_argument("--shrink-to", type=int)
    ap.add_argument("--skip", type=int)
    ap.add_argument("--without")
    ap.add_argument("--log")
    ap.add_argument("--rehash", action="store_true")
    ap.add_argument("--bad-latest", choices=["empty", "garbage"])
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--lightd-version", default="v0.5.0")
    ap.add_argument("--protocol-version", default="")
    args = ap.parse_args()
    cf, sv = messages()
    blocks = load(args.blocks, cf)
    by_height = {b.height: b for b in blocks}
    streams = {"count": 0}
    lock = threading.Lock()

    answered = {"latest": 0}

    def tip_height():
        last = blocks[-1].height
        if args.tip is None:
            return last
        grown = answered["latest"] * args.grow_per_call if args.grow_per_call else 0
        return min(last, args.tip + grown)

    def served_tip():
        if args.shrink_to is not None and answered["latest"] > 0:
            return min(tip_height(), args.shrink_to)
        return tip_height()

    def logged(method):
        if args.log:
            with lock, open(args.log, "a") as f:
                f.write(method + "\n")

    def latest(request, context):
        logged("GetLatestBlock")
        if args.bad_latest == "empty":
            return b""
        if args.bad_latest == "garbage":
            return b"\xff\xff\xff\xff"
        tip = by_height[served_tip()]
        with lock:
            answered["latest"] += 1
        return sv.BlockID(height=tip.height, hash=tip.hash).SerializeToString()

    def filtered(block, pools):
        """filterBlockPool: each transaction cut to the pools asked for (FilterTxPool), the
        empty list meaning the shielded pools; transactions left with nothing dropped."""
        pools = set(pools) or {sv.SAPLING, sv.ORCHARD, sv.IRONWOOD}
        out = cf.CompactBlock()
        out.CopyFrom(block)
        del out.vtx[:]
        for tx in block.vtx:
            kept = cf.CompactTx(index=tx.index, txid=tx.txid, fee=tx.fee)
            if sv.TRANSPARENT in pools:
                kept.vin.extend(tx.vin); kept.vout.extend(tx.vout)
            if sv.SAPLING in pools:
                kept.spends.extend(tx.spends); kept.outputs.extend(tx.outputs)
            if sv.ORCHARD in pools:
                kept.actions.extend(tx.actions)
            if sv.IRONWOOD in pools:
                kept.ironwoodActions.extend(tx.ironwoodActions)
            if kept.vin or kept.vout or kept.spends or kept.outputs or kept.actions or kept.ironwoodActions:
                out.vtx.append(kept)
        return out

    def get_block(request, context):
        logged("GetBlock")
        if request.height == 0 and not request.hash:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "GetBlock: request for unspecified identifier")
        if request.hash:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "GetBlock: Block hash specifier is not yet implemented")
        if request.height > served_tip() or request.height not in by_height:
            context.abort(grpc.StatusCode.OUT_OF_RANGE, f"GetBlock: block {request.height} is newer than the latest block")
        return by_height[request.height]

    def lightd_info(request, context):
        logged("GetLightdInfo")
        return sv.LightdInfo(version=args.lightd_version, vendor="ECC LightWalletD", taddrSupport=True, chainName="main",
                             saplingActivationHeight=419200, consensusBranchId="4dec4df0", blockHeight=served_tip(),
                             estimatedHeight=served_tip(), zcashdBuild="fake", zcashdSubversion="/fake-lightwalletd/",
                             lightwalletProtocolVersion=args.protocol_version)

    def block_range(request, context):
        logged("GetBlockRange " + json.dumps(list(request.poolTypes), separators=(",", ":")))
        if args.without == "GetBlockRange":
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")
        if not request.HasField("start") or not request.HasField("end"):
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "GetBlockRange: must specify start and end heights")
        if sv.POOL_TYPE_INVALID in request.poolTypes:
            # fmt.Errorf, no gRPC status: grpc-go sends it as UNKNOWN.
            context.abort(grpc.StatusCode.UNKNOWN, "GetBlockRange: invalid pool type requested")
        with lock:
            streams["count"] += 1
            first = streams["count"] == 1 or args.always
            call = streams["count"]
        low, high = request.start.height, request.end.height
        backward = low > high
        heights = range(low, high - 1, -1) if backward else range(low, high + 1)
        sent, want = 0, None
        for h in heights:
            if first and args.stall_after is not None and sent == args.stall_after:
                time.sleep(3600)
            if first and args.drop_after is not None and sent == args.drop_after:
                context.abort(grpc.StatusCode.UNAVAILABLE, "dropped on purpose")
            if h == args.skip:
                want = None
                continue
            if h > served_tip() or h not in by_height:
                context.abort(grpc.StatusCode.OUT_OF_RANGE, f"GetBlock: block {h} is newer than the latest block")
            block = by_height[h]
            if args.rehash:
                block = cf.CompactBlock.FromString(block.SerializeToString())
                salt = call.to_bytes(8, "little")
                block.hash = hashlib.sha256(salt + block.hash).digest()
                block.prevHash = hashlib.sha256(salt + block.prevHash).digest()
            got = block.hash if backward else block.prevHash
            if want is not None and got != want:
                context.abort(grpc.StatusCode.ABORTED, "GetBlockRange: chain discontinuity during reorg repair")
            yield filtered(block, request.poolTypes)
            want = block.prevHash if backward else block.hash
            sent += 1

    methods = {
        "GetLatestBlock": grpc.unary_unary_rpc_method_handler(latest, request_deserializer=sv.ChainSpec.FromString,
                                                               response_serializer=lambda raw: raw),
        "GetBlockRange": grpc.unary_stream_rpc_method_handler(block_range, request_deserializer=sv.BlockRange.FromString,
                                                               response_serializer=cf.CompactBlock.SerializeToString),
        "GetBlock": grpc.unary_unary_rpc_method_handler(get_block, request_deserializer=sv.BlockID.FromString,
                                                         response_serializer=cf.CompactBlock.SerializeToString),
        "GetLightdInfo": grpc.unary_unary_rpc_method_handler(lightd_info, request_deserializer=sv.Empty.FromString,
                                                              response_serializer=sv.LightdInfo.SerializeToString),
    }
    handler = grpc.method_handlers_generic_handler("cash.z.wallet.sdk.rpc.CompactTxStreamer", methods)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    if args.cert:
        credentials = grpc.ssl_server_credentials([(open(args.key, "rb").read(), open(args.cert, "rb").read())])
        port = server.add_secure_port(f"127.0.0.1:{args.port}", credentials)
    else:
        port = server.add_insecure_port(f"127.0.0.1:{args.port}")
    server.start()
    print(port, flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
