import Foundation
@testable import MoneroNode
import WalletCore
import WalletScan
import XCTest

/// monerod's transport against a local server that misbehaves on purpose (python3's socket
/// module, on 127.0.0.1): every call ends within its deadline, and an endless answer is cut.
final class NodeHTTPTests: XCTestCase {
    /// A one-connection-at-a-time server: `mode` silent (accepts, never answers), trickle (one
    /// byte every 0.3 s), endless (a 200 OK whose body never ends), ok (a small JSON answer).
    private func server(_ mode: String) throws -> (port: Int, process: Process) {
        let script = #"""
        import socket, sys, time
        mode = sys.argv[1]
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0)); s.listen(8)
        print(s.getsockname()[1], flush=True)
        end = time.time() + 60
        while time.time() < end:
            c, _ = s.accept()
            c.settimeout(5)
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += c.recv(4096)
                if mode == "silent":
                    time.sleep(30)
                elif mode == "trickle":
                    for b in b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n" + b"x" * 20:
                        c.send(bytes([b])); time.sleep(0.3)
                elif mode == "endless":
                    c.send(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n")
                    chunk = b"\0" * 65536
                    while time.time() < end:
                        c.send(chunk)
                elif mode == "ok":
                    body = b'{"height": 1234, "status": "OK"}'
                    c.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            except Exception:
                pass
            finally:
                c.close()
        """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, mode]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        addTeardownBlock { process.terminate(); process.waitUntilExit() }
        var line = [UInt8]()
        while let byte = try out.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A { line.append(byte) }
        return (Int(String(decoding: line, as: UTF8.self))!, process)
    }

    func testAnAnswerArrives() throws {
        let (port, _) = try server("ok")
        let source = try MoneroRPCSource(address: "127.0.0.1:\(port)", timeout: 5, retries: 1)
        XCTAssertEqual(try source.chainHeight(), 1234)
    }

    func testSilentAndTricklingNodesEndWithinTheDeadline() throws {
        for mode in ["silent", "trickle"] {
            let (port, _) = try server(mode)
            let source = try MoneroRPCSource(address: "127.0.0.1:\(port)", timeout: 1, retries: 2)
            let start = Date()
            XCTAssertThrowsError(try source.chainHeight(), mode) { error in
                XCTAssertEqual((error as? SourceError)?.code, "source.unavailable", mode)
                XCTAssertTrue((error as? SourceError)?.message.contains("no complete answer within 1.0 s") == true, "\(error)")
            }
            // Two tries of 1 s and the 0.5 s pause between them; far from the minutes it hung.
            XCTAssertLessThan(Date().timeIntervalSince(start), 8, mode)
        }
    }

    func testAnEndlessAnswerIsCut() throws {
        let (port, _) = try server("endless")
        XCTAssertThrowsError(try NodeHTTP.post(host: "127.0.0.1", port: port, path: "/get_height", contentType: "application/json",
                                               body: [], timeout: 20, maxReply: 1 << 20)) { error in
            guard case NodeHTTP.Failure.tooLarge(let limit)? = error as? NodeHTTP.Failure else { return XCTFail("\(error)") }
            XCTAssertEqual(limit, 1 << 20)
        }
    }

    func testNoServer() throws {
        // A port nothing listens on: refused at once, tried again, then unavailable (69).
        let (port, process) = try server("ok")
        process.terminate()
        process.waitUntilExit()
        let source = try MoneroRPCSource(address: "127.0.0.1:\(port)", timeout: 2, retries: 2)
        XCTAssertThrowsError(try source.chainHeight()) { error in
            XCTAssertEqual((error as? SourceError)?.exitStatus, .unavailable)
        }
    }

    func testAddresses() throws {
        XCTAssertEqual(try MoneroRPCSource(address: "127.0.0.1:18081").port, 18081)
        XCTAssertEqual(try MoneroRPCSource(address: "localhost").port, 18081)
        XCTAssertEqual(try MoneroRPCSource(address: "http://[::1]:28081").host, "::1")
        XCTAssertEqual(try MoneroRPCSource(address: "http://node:18089/monero").basePath, "/monero/")
        for bad in ["", "https://node:18081", "ftp://x", "http://:18081"] {
            XCTAssertThrowsError(try MoneroRPCSource(address: bad), bad)
        }
    }
}
