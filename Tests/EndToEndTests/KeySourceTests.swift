import Foundation
import SatchelTestSupport
import XCTest

/// One key source per run, in every tool that takes a key (KeySourceOptions): two sources are
/// a usage error (64) naming both, with the sources the tool offers; a key record in a 0600
/// file or on a descriptor is a source in derive too, giving what the same record on stdin gives.
final class KeySourceTests: XCTestCase {
    let phrase = #"{"mnemonic":"\#(TestPhrase.abandonAbout)"}"#
    var dir = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory("keysource")
        try phrase.write(toFile: "\(dir)/key.json", atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod("\(dir)/key.json", 0o600), 0)
    }

    func testTwoSourcesAreRefusedByEveryTool() throws {
        let tail = " (with none, each record carries its own key)"
        let cases: [(String, String)] = [
            ("derive addresses --wallet a --card", "not --wallet and --card" + tail),
            ("derive discover --used /dev/null --key-file \(dir)/key.json --card", "not --key-file and --card" + tail),
            ("derive account --key-file \(dir)/key.json --wallet a", "not --key-file and --wallet" + tail),
            ("derive account --key-file \(dir)/key.json --key-fd 3", "not --key-file and --key-fd" + tail),
            ("sign-hash sign --key-file \(dir)/key.json --wallet a", "not --key-file and --wallet" + tail),
            ("sign-hash sign --key-fd 3 --card", "not --key-fd and --card" + tail),
            ("sign-tx --wallet a --card", "not --wallet and --card" + tail),
            ("sign-tx --key-file \(dir)/key.json --key-fd 3 --wallet a", "not --key-file and --key-fd and --wallet" + tail),
            ("scan-blocks --wallet a --key-fd 3 --blocks /dev/null", "not --key-fd and --wallet" + tail),
        ]
        for (command, message) in cases {
            let r = try Shell.run(command + " < /dev/null")
            XCTAssertEqual(r.status, 64, command)
            XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), "Error: give one key source, " + message, command)
            XCTAssertEqual(r.out, "", command)
        }
    }

    func testAKeyRecordInAFileIsASourceForDerive() throws {
        for sub in ["account --purpose 84", "addresses --purpose 84 --count 3", "addresses --coin eth --count 2"] {
            let fromStdin = try Shell.run("derive \(sub)", stdin: Data((phrase + "\n").utf8))
            XCTAssertEqual(fromStdin.status, 0, fromStdin.stderr)
            XCTAssertFalse(fromStdin.lines.isEmpty)
            let fromFile = try Shell.run("derive \(sub) --key-file \(dir)/key.json < /dev/null")
            XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
            XCTAssertEqual(fromFile.lines, fromStdin.lines, sub)
            let fromFD = try Shell.run("derive \(sub) --key-fd 3 3< \(dir)/key.json < /dev/null")
            XCTAssertEqual(fromFD.status, 0, fromFD.stderr)
            XCTAssertEqual(fromFD.lines, fromStdin.lines, sub)
        }
        // BIP84's published vector for this phrase (m/84'/0'/0'/0/0).
        let first = try Shell.run("derive addresses --purpose 84 --key-file \(dir)/key.json < /dev/null")
        XCTAssertEqual(first.records.first?["address"] as? String, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        // A key file others may read is refused, as for every secret file.
        XCTAssertEqual(chmod("\(dir)/key.json", 0o644), 0)
        let open = try Shell.run("derive account --key-file \(dir)/key.json < /dev/null")
        XCTAssertNotEqual(open.status, 0)
        XCTAssertEqual(open.out.contains("xpub"), false)
    }
}
