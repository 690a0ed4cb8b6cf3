#!/usr/bin/env python3
"""A small lightwalletd for tests: serves compact blocks from a JSON Lines file (the fixtures'
form: the proto's field names, bytes in hex) over gRPC on 127.0.0.1, with lightwalletd's own
service and method names (proto/service.proto), so `scan-blocks --lightwalletd` talks to it as
to the real server. It answers GetLatestBlock and GetBlockRange, and can misbehave on purpose:
--stall-after N stops sending a stream after N blocks, --drop-after N aborts it with
UNAVAILABLE after N blocks (each only for the first stream, then it serves normally unless
--always). It prints its port on stdout when ready.

Needs Debian's python3-grpcio and python3-protobuf, and protoc (protobuf-compiler) to build the
message classes from proto/ at start.
"""
import argparse, json, os, subprocess, sys, tempfile, threading, time
from concurrent import futures

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def messages():
    out = tempfile.mkdtemp(prefix="fake-lwd-")
    subprocess.run(["protoc", f"-I{os.path.join(ROOT, 'proto')}", f"--python_out={out}", "compact_formats.proto", "service.proto"], check=True)
    sys.path.insert(0, out)
    import compact_formats_pb2, service_pb2
    return compact_formats_pb2, service_pb2


def load(path, cf):
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
        for t in r.get("vtx", []):
            tx = b.vtx.add(index=t.get("index", 0), txid=bytes.fromhex(t.get("txid", t.get("hash", ""))), fee=t.get("fee", 0))
            for s in t.get("spends", []):
                tx.spends.add(nf=bytes.fromhex(s["nf"]))
            for o in t.get("outputs", []):
                tx.outputs.add(cmu=bytes.fromhex(o["cmu"]), ephemeralKey=bytes.fromhex(o["ephemeralKey"]), ciphertext=bytes.fromhex(o["ciphertext"]))
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
    args = ap.parse_args()
    cf, sv = messages()
    blocks = load(args.blocks, cf)
    by_height = {b.height: b for b in blocks}
    streams = {"count": 0}
    lock = threading.Lock()

    def latest(request, context):
        tip = blocks[-1]
        return sv.BlockID(height=tip.height, hash=tip.hash)

    def block_range(request, context):
        with lock:
            streams["count"] += 1
            first = streams["count"] == 1 or args.always
        sent = 0
        for h in range(request.start.height, request.end.height + 1):
            if first and args.stall_after is not None and sent == args.stall_after:
                time.sleep(3600)
            if first and args.drop_after is not None and sent == args.drop_after:
                context.abort(grpc.StatusCode.UNAVAILABLE, "dropped on purpose")
            if h in by_height:
                yield by_height[h]
                sent += 1

    handler = grpc.method_handlers_generic_handler("cash.z.wallet.sdk.rpc.CompactTxStreamer", {
        "GetLatestBlock": grpc.unary_unary_rpc_method_handler(latest, request_deserializer=sv.ChainSpec.FromString,
                                                               response_serializer=sv.BlockID.SerializeToString),
        "GetBlockRange": grpc.unary_stream_rpc_method_handler(block_range, request_deserializer=sv.BlockRange.FromString,
                                                               response_serializer=cf.CompactBlock.SerializeToString),
    })
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port(f"127.0.0.1:{args.port}")
    server.start()
    print(port, flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
