import Foundation
import SatchelTestSupport
import XCTest

/// scripts/fake-lightwalletd.py, the gRPC server the coming `scan-blocks --lightwalletd` tests
/// will talk to: over lightwalletd's own service and method names it must serve exactly the
/// fixture's compact blocks (byte for byte the .pb stream), and misbehave when told to.
final class FakeLightwalletdTests: XCTestCase {
    /// A Python gRPC client (Debian's python3-grpcio): GetLatestBlock's height, then the range
    /// as a delimited stream into `out`, or the gRPC status code on failure.
    static let client = #"""
    import grpc, subprocess, sys, tempfile
    out = tempfile.mkdtemp(); subprocess.run(["/usr/bin/protoc", "-Iproto", f"--python_out={out}", "compact_formats.proto", "service.proto"], check=True)
    sys.path.insert(0, out)
    import compact_formats_pb2 as cf, service_pb2 as sv
    port, start, end, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    latest = channel.unary_unary("/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetLatestBlock",
        request_serializer=sv.ChainSpec.SerializeToString, response_deserializer=sv.BlockID.FromString)
    blocks = channel.unary_stream("/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetBlockRange",
        request_serializer=sv.BlockRange.SerializeToString, response_deserializer=cf.CompactBlock.FromString)
    print(latest(sv.ChainSpec()).height)
    data = bytearray()
    try:
        for b in blocks(sv.BlockRange(start=sv.BlockID(height=start), end=sv.BlockID(height=end)), timeout=5):
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
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-lwd-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try FakeLightwalletd(blocks: TestPaths.fixture("zcash-sapling/compact_blocks.jsonl").path,
                                          options.split(separator: " ").map(String.init))
        defer { server.stop() }
        let port = server.port
        try Self.client.write(toFile: "\(dir)/client.py", atomically: true, encoding: .utf8)
        try body("/usr/bin/python3 \(dir)/client.py \(port) 2900000 2900049 \(dir)/got.pb", "\(dir)/got.pb")
    }

    func testServesTheFixtureByteForByte() throws {
        let want = try Data(contentsOf: TestPaths.fixture("zcash-sapling/compact_blocks.pb"))
        try withServer("") { fetch, fetched in
            let r = try Shell.run(fetch)
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
