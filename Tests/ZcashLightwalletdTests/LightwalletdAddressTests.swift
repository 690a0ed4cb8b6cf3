import XCTest
@testable import ZcashLightwalletd

/// The address rules of `--lightwalletd`: which strings are addresses, and which hosts may go
/// without TLS.
final class LightwalletdAddressTests: XCTestCase {
    /// Which servers send Ironwood: lightwalletd 0.5.0 and later, or one that names its protocol
    /// version; a version in another numbering tells nothing.
    func testServesIronwood() {
        for v in ["v0.5.0", "0.5.1", "v0.5.0-rc1", "v0.6", "v1.0.0", "V0.10.2"] {
            XCTAssertTrue(LightwalletdSource.servesIronwood(version: v, protocolVersion: ""), v)
        }
        for v in ["v0.4.18", "v0.4.18-fake", "0.4.99", "", "v", "zaino-0.1", "v.5", "5", "vx.y"] {
            XCTAssertFalse(LightwalletdSource.servesIronwood(version: v, protocolVersion: ""), v)
        }
        XCTAssertTrue(LightwalletdSource.servesIronwood(version: "zaino-0.1", protocolVersion: "1.0.0"))
    }

    func testAddresses() {
        let good: [(String, String, Int)] = [
            ("127.0.0.1:9067", "127.0.0.1", 9067), ("localhost:443", "localhost", 443),
            ("lwd.example.org:9067", "lwd.example.org", 9067), ("[::1]:9067", "::1", 9067),
            ("[2001:db8::7]:65535", "2001:db8::7", 65535), ("zec-1.example:1", "zec-1.example", 1),
        ]
        for (text, host, port) in good {
            let split = LightwalletdSource.split(text)
            XCTAssertEqual(split?.host, host, text)
            XCTAssertEqual(split?.port, port, text)
        }
        for bad in [
            "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", ":9067", "::1:9067", "[::1]9067", "[::1", "[]:1",
            "http://127.0.0.1:9067", "host name:1", "[fe80::1%eth0]:1", "127.0.0.1:90x", "127.0.0.1:-1",
        ] {
            XCTAssertNil(LightwalletdSource.split(bad), bad)
        }
    }

    func testLoopbackOnly() {
        for host in ["127.0.0.1", "127.1.2.3", "::1", "localhost"] { XCTAssertTrue(LightwalletdSource.isLoopback(host), host) }
        for host in [
            "128.0.0.1", "10.0.0.1", "192.0.2.1", "127.0.0.1.example.org", "localhost.example.org", "0:0:0:0:0:0:0:1x",
            "lwd.example.org", "1270.0.0.1", "127.0.0", "127.0.0.256",
        ] {
            XCTAssertFalse(LightwalletdSource.isLoopback(host), host)
        }
    }

    /// Refused before any socket is opened.
    func testPlaintextOffLoopbackIsRefused() {
        var options = LightwalletdSource.Options()
        options.plaintext = true
        for address in ["192.0.2.1:9067", "lwd.example.org:9067", "[2001:db8::7]:9067"] {
            XCTAssertThrowsError(try LightwalletdSource(address: address, options: options), address) { error in
                XCTAssertEqual(error as? LightwalletdError, .plaintextOffLoopback(address))
                XCTAssertEqual((error as? LightwalletdError)?.exitStatus, .usage)
            }
        }
        XCTAssertNoThrow(try LightwalletdSource(address: "[::1]:9067", options: options))
        XCTAssertThrowsError(
            try LightwalletdSource(
                address: "127.0.0.1:9067",
                options: {
                    var o = LightwalletdSource.Options(); o.trustRoots = "/nonexistent.pem"; return o
                }())
        ) {
            XCTAssertEqual($0 as? LightwalletdError, .trustRoots("/nonexistent.pem"))
        }
    }
}
