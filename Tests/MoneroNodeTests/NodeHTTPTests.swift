import Foundation
import SatchelTestSupport
@testable import MoneroNode
import NodeHTTP
import WalletCore
import WalletScan
import XCTest

/// monerod's transport against a local server that misbehaves on purpose
/// (scripts/hostile-monerod.py, on 127.0.0.1): every call ends within its deadline, and an
/// endless answer is cut.
final class NodeHTTPTests: XCTestCase {
    private func server(_ mode: String) throws -> (port: Int, process: Process) {
        let (port, process) = try HostileMonerod.start(mode)
        addTeardownBlock {
            process.terminate(); process.waitUntilExit()
        }
        return (port, process)
    }

    func testAnAnswerArrives() throws {
        let (port, _) = try server("heights=1234")
        let source = try MoneroRPCSource(address: "127.0.0.1:\(port)", timeout: 5, retries: 1)
        XCTAssertEqual(try source.chainHeight(), 1234)
    }

    /// An answer of 1 MiB arrives whole from a server that, like monerod's epee, breaks off
    /// after 128 KiB when the request asks it to close the connection: the call does not ask.
    func testALargeAnswerArrivesWhole() throws {
        let (port, _) = try server("large")
        let source = try MoneroRPCSource(address: "127.0.0.1:\(port)", timeout: 10, retries: 1)
        XCTAssertEqual(try source.chainHeight(), 7)
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
        XCTAssertThrowsError(
            try NodeHTTP.post(
                host: "127.0.0.1", port: port, path: "/get_height", contentType: "application/json",
                body: [], timeout: 20, maxReply: 1 << 20)
        ) { error in
            guard case NodeHTTP.Failure.tooLarge(let limit)? = error as? NodeHTTP.Failure else { return XCTFail("\(error)") }
            XCTAssertEqual(limit, 1 << 20)
        }
    }

    /// A height from the node is range-checked: a negative one after a positive one (it
    /// trapped the scan, exit 132) and one past any chain are not monerod's answers (76).
    func testHeightsOutOfRange() throws {
        let (port, _) = try server("heights=5,-1,1099511627777")
        let source = try MoneroRPCSource(address: "127.0.0.1:\(port)", timeout: 5, retries: 1)
        XCTAssertEqual(try source.chainHeight(), 5)
        for _ in 0..<2 {
            XCTAssertThrowsError(try source.chainHeight()) { error in
                XCTAssertEqual(error as? SourceError, .badReply(node: "http://127.0.0.1:\(port)", "get_height"))
                XCTAssertEqual((error as? SourceError)?.exitStatus, .protocolError)
            }
        }
    }

    func testNoServer() throws {
        // A port nothing listens on: refused at once, tried again, then unavailable (69).
        let (port, process) = try server("heights=1")
        process.terminate()
        process.waitUntilExit()
        let source = try MoneroRPCSource(address: "127.0.0.1:\(port)", timeout: 2, retries: 2)
        XCTAssertThrowsError(try source.chainHeight()) { error in
            XCTAssertEqual((error as? SourceError)?.exitStatus, .unavailable)
        }
    }

    func testAddresses() throws {
        XCTAssertEqual(try MoneroRPCSource(address: "127.0.0.1:18081").client.port, 18081)
        XCTAssertEqual(try MoneroRPCSource(address: "localhost").client.port, 18081)
        XCTAssertEqual(try MoneroRPCSource(address: "http://[::1]:28081").client.host, "::1")
        XCTAssertEqual(try MoneroRPCSource(address: "http://node:18089/monero").client.basePath, "/monero/")
        for bad in ["", "https://node:18081", "ftp://x", "http://:18081"] {
            XCTAssertThrowsError(try MoneroRPCSource(address: bad), bad)
        }
    }
}
