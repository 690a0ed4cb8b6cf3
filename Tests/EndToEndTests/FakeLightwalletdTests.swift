import Foundation
import SatchelTestSupport
import XCTest

/// scripts/fake-lightwalletd.py, the gRPC server the `scan-blocks --lightwalletd` tests talk to:
/// over lightwalletd's own service and method names it must serve exactly the fixture's compact
/// blocks (byte for byte the .pb stream), filter and refuse as lightwalletd's code does, and
/// misbehave when told to.
final class FakeLightwalletdTests: XCTestCase {
    /// A Python gRPC client (Debian's python3-grpcio): GetLatestBlock's height, then the range
    /// (with the pool types of its fifth argument, "1,2") as a delimited stream into `out`, or
    /// the gRPC status code on failure.
    static let client = #"""
        import grpc, subprocess, sys, tempfile
        out = tempfile.mkdtemp(); subprocess.run(["/usr/bin/protoc", "-Iproto", f"--python_out={out}", "compact_formats.proto", "service.proto"], check=True)
        sys.path.insert(0, out)
        import compact_formats_pb2 as cf, service_pb2 as sv
        port, start, end, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        pools = [int(p) for p in sys.argv[5].split(",")] if len(sys.argv) > 5 else []
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        latest = channel.unary_unary("/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetLatestBlock",
            request_serializer=sv.ChainSpec.SerializeToString, response_deserializer=sv.BlockID.FromString)
        blocks = channel.unary_stream("/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetBlockRange",
            request_serializer=sv.BlockRange.SerializeToString, response_deserializer=cf.CompactBlock.FromString)
        print(latest(sv.ChainSpec()).height)
        data = bytearray()
        try:
            for b in blocks(sv.BlockRange(start=sv.BlockID(height=start), end=sv.BlockID(height=end), poolTypes=pools), timeout=5):
                m = b.SerializeToString(); n = len(m)
                while n >= 0x80: data.append(n & 0x7F | 0x80); n >>= 7
                data.append(n); data += m
        except grpc.RpcError as e:
            print(e.code().name)
        open(path, "wb").write(data)
        """#

    /// Starts the fake on a free port with `options`, runs `body` with a command that fetches
    /// the whole fixture range into a file, and stops it.
    private func withServer(_ options: String, _ body: (_ fetch: String, _ fetched: String) throws -> Void) throws {
        let dir = try temporaryDirectory("lwd")
        let server = try FakeLightwalletd(
            blocks: TestPaths.fixture("zcash-sapling/compact_blocks.jsonl").path,
            options.split(separator: " ").map(String.init))
        defer { server.stop() }
        let port = server.port
        try Self.client.write(toFile: "\(dir)/client.py", atomically: true, encoding: .utf8)
        try body("/usr/bin/python3 \(dir)/client.py \(port) 2900000 2900049 \(dir)/got.pb", "\(dir)/got.pb")
    }

    func testServesTheFixtureByteForByte() throws {
        let want = try Data(contentsOf: TestPaths.fixture("zcash-sapling/compact_blocks.pb"))
        try withServer("") { fetch, fetched in
            // Every pool asked for: each transaction whole (an empty list drops vin and vout).
            let r = try Shell.run(fetch + " 1,2,3,4")
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.lines, ["2900049"])  // the tip, and no error status
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: fetched)), want)
        }
    }

    /// --drop-after aborts the first stream with UNAVAILABLE after that many blocks; --stall-after
    /// stops sending (the client's deadline ends it).
    func testDropsAndStallsWhenTold() throws {
        try withServer("--drop-after 7") { fetch, _ in
            let r = try Shell.run(fetch)
            XCTAssertEqual(r.lines, ["2900049", "UNAVAILABLE"], r.stderr)
        }
        try withServer("--stall-after 3") { fetch, _ in
            let r = try Shell.run(fetch)
            XCTAssertEqual(r.lines, ["2900049", "DEADLINE_EXCEEDED"], r.stderr)
        }
    }
}

/// The fake against lightwalletd's own code, option by option (the fake's header cites the
/// files, functions and commits): what GetBlockRange keeps of each transaction for each
/// poolTypes a client may send, its errors, its order, and GetBlock and GetLightdInfo.
extension FakeLightwalletdTests {
    /// A Python client: `probe.py PORT METHOD ARGS…` prints one line per block (height, then
    /// per transaction `index:spends/outputs/actions/ironwood/vin/vout`), then `OK` or the
    /// gRPC status code and message.
    static let probe = #"""
        import grpc, json, subprocess, sys, tempfile
        out = tempfile.mkdtemp(); subprocess.run(["/usr/bin/protoc", "-Iproto", f"--python_out={out}", "compact_formats.proto", "service.proto"], check=True)
        sys.path.insert(0, out)
        import compact_formats_pb2 as cf, service_pb2 as sv
        channel = grpc.insecure_channel(f"127.0.0.1:{sys.argv[1]}")
        def call(kind, name, req, resp):
            return getattr(channel, kind)("/cash.z.wallet.sdk.rpc.CompactTxStreamer/" + name,
                                          request_serializer=req.SerializeToString, response_deserializer=resp.FromString)
        def show(b):
            txs = " ".join(f"{t.index}:{len(t.spends)}/{len(t.outputs)}/{len(t.actions)}/{len(t.ironwoodActions)}/{len(t.vin)}/{len(t.vout)}" for t in b.vtx)
            print(f"{b.height} {txs}".rstrip())
        method = sys.argv[2]
        try:
            if method == "range":
                r = sv.BlockRange()
                if sys.argv[3] != "-": r.start.height = int(sys.argv[3])
                if sys.argv[4] != "-": r.end.height = int(sys.argv[4])
                r.poolTypes.extend(int(p) for p in sys.argv[5].split(",") if p) if len(sys.argv) > 5 else None
                for b in call("unary_stream", "GetBlockRange", sv.BlockRange, cf.CompactBlock)(r, timeout=10): show(b)
            elif method == "block":
                show(call("unary_unary", "GetBlock", sv.BlockID, cf.CompactBlock)(sv.BlockID(height=int(sys.argv[3]), hash=bytes.fromhex(sys.argv[4]) if len(sys.argv) > 4 else b""), timeout=10))
            elif method == "info":
                i = call("unary_unary", "GetLightdInfo", sv.Empty, sv.LightdInfo)(sv.Empty(), timeout=10)
                print(i.vendor, i.chainName, i.blockHeight)
            print("OK")
        except grpc.RpcError as e:
            print(e.code().name, e.details())
        """#

    /// Runs the probe against the fake serving `blocks` (with `options`), once for each
    /// argument list; its lines.
    private func probe(_ blocks: String, _ options: [String] = [], _ calls: [String]) throws -> [[String]] {
        let dir = try temporaryDirectory("lwdprobe")
        let server = try FakeLightwalletd(blocks: blocks, options)
        defer { server.stop() }
        try Self.probe.write(toFile: "\(dir)/probe.py", atomically: true, encoding: .utf8)
        return try calls.map { args in
            let r = try Shell.run("/usr/bin/python3 \(dir)/probe.py \(server.port) \(args)")
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.lines
        }
    }

    /// The Orchard fixture's block 2,950,004: a coinbase (2 transparent outputs), then
    /// transactions with Sapling spends and outputs and Orchard actions.
    func testPoolTypesFilterAsFilterTxPool() throws {
        let orchard = TestPaths.fixture("zcash-orchard/compact_blocks.jsonl").path
        let height = 2_950_004
        let byPools = try probe(
            orchard, [],
            [
                "range \(height) \(height) 1,2,3,4", "range \(height) \(height) 2",
                "range \(height) \(height) 3", "range \(height) \(height)", "range \(height) \(height) 1",
                "block \(height)",
            ])
        let whole = byPools[0]
        XCTAssertEqual(whole.count, 2, "\(whole)")
        // Each transaction's counts in the file itself, for the expected lines.
        let record = try XCTUnwrap(
            try String(contentsOfFile: orchard, encoding: .utf8).split(separator: "\n")
                .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .first { $0["height"] as? Int == height })
        let txs = try XCTUnwrap(record["vtx"] as? [[String: Any]])
        func count(_ t: [String: Any], _ k: String) -> Int { (t[k] as? [Any])?.count ?? 0 }
        func line(_ keep: (_ field: String) -> Bool) -> String {
            let fields = ["spends", "outputs", "actions", "ironwoodActions", "vin", "vout"]
            let kept = txs.filter { t in fields.contains { keep($0) && count(t, $0) > 0 } }.map { t in
                "\(t["index"] as? Int ?? 0):" + fields.map { keep($0) ? String(count(t, $0)) : "0" }.joined(separator: "/")
            }
            return ([String(height)] + kept).joined(separator: " ")
        }
        XCTAssertGreaterThan(txs.filter { count($0, "actions") > 0 }.count, 0, "the block has Orchard actions")
        XCTAssertGreaterThan(txs.filter { count($0, "outputs") > 0 }.count, 0, "the block has Sapling outputs")
        XCTAssertGreaterThan(
            txs.filter { count($0, "vout") > 0 && count($0, "outputs") + count($0, "actions") == 0 }.count, 0,
            "the block has a transparent-only transaction")
        XCTAssertEqual(whole, [line { _ in true }, "OK"])
        // SAPLING alone: no Orchard action at all — what Satchel asked for before, losing Orchard.
        XCTAssertEqual(byPools[1], [line { $0 == "spends" || $0 == "outputs" }, "OK"])
        XCTAssertFalse(byPools[1][0].split(separator: " ").dropFirst().contains { $0.split(separator: "/")[2] != "0" })
        XCTAssertEqual(byPools[2], [line { $0 == "actions" }, "OK"])
        // Empty: the shielded pools, no vin or vout, the coinbase gone.
        XCTAssertEqual(byPools[3], [line { !["vin", "vout"].contains($0) }, "OK"])
        XCTAssertEqual(byPools[4], [line { $0 == "vin" || $0 == "vout" }, "OK"])
        // GetBlock: unfiltered.
        XCTAssertEqual(byPools[5], whole)
    }

    /// The errors lightwalletd's GetBlockRange and GetBlock answer, and the order of a range
    /// given downwards.
    func testErrorsAndOrderAsLightwalletd() throws {
        let sapling = TestPaths.fixture("zcash-sapling/compact_blocks.jsonl").path
        let got = try probe(
            sapling, ["--tip", "2900010"],
            [
                "range 2900000 2900049 0,2", "range - 2900003", "range 2900003 -", "range 2900003 2900000 1,2,3,4",
                "range 2900008 2900012 1,2,3,4", "block 0", "block 2900011", "block 2900001 00", "info",
            ])
        XCTAssertEqual(got[0], ["UNKNOWN GetBlockRange: invalid pool type requested"])
        XCTAssertEqual(got[1], ["INVALID_ARGUMENT GetBlockRange: must specify start and end heights"])
        XCTAssertEqual(got[2], ["INVALID_ARGUMENT GetBlockRange: must specify start and end heights"])
        XCTAssertEqual(
            got[3].map { $0.split(separator: " ").first.map(String.init) ?? "" }, ["2900003", "2900002", "2900001", "2900000", "OK"])
        XCTAssertEqual(
            got[4].map { $0.split(separator: " ").first.map(String.init) ?? "" },
            ["2900008", "2900009", "2900010", "OUT_OF_RANGE"])
        XCTAssertEqual(got[4].last, "OUT_OF_RANGE GetBlock: block 2900011 is newer than the latest block")
        XCTAssertEqual(got[5], ["INVALID_ARGUMENT GetBlock: request for unspecified identifier"])
        XCTAssertEqual(got[6], ["OUT_OF_RANGE GetBlock: block 2900011 is newer than the latest block"])
        XCTAssertEqual(got[7], ["INVALID_ARGUMENT GetBlock: Block hash specifier is not yet implemented"])
        XCTAssertEqual(got[8], ["ECC LightWalletD main 2900010", "OK"])
    }

    /// A block that does not link to the one sent before it (lightwalletd's cache and node
    /// disagreeing while a reorg is repaired) ends the stream with ABORTED, upwards and down.
    func testADiscontinuityIsAborted() throws {
        let dir = try temporaryDirectory("lwdbreak")
        let lines = try String(contentsOf: TestPaths.fixture("zcash-sapling/compact_blocks.jsonl"), encoding: .utf8).split(separator: "\n")
        let broken = try lines.map { line -> String in
            var r = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if r["height"] as? Int == 2_900_005 { r["prevHash"] = String(repeating: "ab", count: 32) }
            return String(decoding: try JSONSerialization.data(withJSONObject: r), as: UTF8.self)
        }
        try (broken.joined(separator: "\n") + "\n").write(toFile: "\(dir)/broken.jsonl", atomically: true, encoding: .utf8)
        let got = try probe("\(dir)/broken.jsonl", [], ["range 2900003 2900007", "range 2900007 2900003", "range 2900005 2900007"])
        let aborted = "ABORTED GetBlockRange: chain discontinuity during reorg repair"
        let heights = got.map { $0.map { $0.hasPrefix("2900") ? String($0.prefix(7)) : $0 } }
        XCTAssertEqual(heights[0], ["2900003", "2900004", aborted])
        XCTAssertEqual(heights[1], ["2900007", "2900006", "2900005", aborted])
        XCTAssertEqual(heights[2], ["2900005", "2900006", "2900007", "OK"])  // the break is before the range
    }
}
