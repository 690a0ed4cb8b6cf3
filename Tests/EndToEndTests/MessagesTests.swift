import Foundation
import SatchelTestSupport
import XCTest

/// Messages that say what to do: the exact option, a missing entry before any prompt, weak
/// entropy said loudly, an output directory made when missing.
final class MessagesTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-msg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testKeyStoreAndCardNamesAreCheckedBeforeAnyPrompt() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: "\(dir)/pass", contents: Data("a long test passphrase\n".utf8), attributes: [.posixPermissions: 0o600]))
        let add = try Shell.run("keystore add w --keystore \(dir)/ks --keystore-pass-file \(dir)/pass --kdf interactive",
                                stdin: Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f"]]))
        XCTAssertEqual(add.status, 0, add.stderr)
        // No terminal (setsid) and no passphrase option: an unknown name is said first (66),
        // not "cannot prompt".
        for command in ["keystore export nosuch", "keystore passwd nosuch", "keystore birthday nosuch btc=1", "keystore destroy nosuch",
                        "derive --wallet nosuch", "sign-hash --wallet nosuch", "card-info verify-pin --pairing nosuch"] {
            let r = try Shell.run("setsid -w \(command) --keystore \(dir)/ks < /dev/null")
            XCTAssertEqual(r.status, 66, command + ": " + r.stderr)
            XCTAssertTrue(r.stderr.contains("keystore.unknown_entry"), command + ": " + r.stderr)
        }
        // destroy without a terminal names the option that skips the question; nothing is lost.
        let destroy = try Shell.run("setsid -w keystore destroy w --keystore \(dir)/ks < /dev/null")
        XCTAssertEqual(destroy.status, 64)
        XCTAssertTrue(destroy.stderr.contains("add --yes"), destroy.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(dir)/ks/w.key"))
    }

    func testNetworkNamesAndQRDirectory() throws {
        let seed = Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f"]])
        let testnet = try Shell.run("derive --coin btc --network testnet", stdin: seed)
        XCTAssertEqual(testnet.status, 64)
        XCTAssertTrue(testnet.stderr.contains("use --network test"), testnet.stderr)
        let made = try Shell.run("derive --purpose 84 --qr-dir \(dir)/qr/images", stdin: seed)
        XCTAssertEqual(made.status, 0, made.stderr)
        let file = try XCTUnwrap(made.records.first?["qr_file"] as? String)
        XCTAssertEqual(file, "\(dir)/qr/images/\(made.records.first!["address"] as! String).png")
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
    }

    func testWeakEntropyWarns() throws {
        let inputs: [[String: Any]] = [["entropy": String(repeating: "00", count: 16)], ["entropy": String(repeating: "ff", count: 16)],
                                       ["dice": String(repeating: "6", count: 140)], ["coins": String(repeating: "1", count: 200)],
                                       ["entropy": "0c1e24e5917779d297e14d45f14e1a1a"]]
        let r = try Shell.run("mnemonic from-entropy --words 12", stdin: Shell.lines(inputs))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.map { $0["warning"] != nil }, [true, true, true, true, false])
        XCTAssertEqual(r.stderr.components(separatedBy: "warning: weak entropy").count - 1, 4, r.stderr)
    }
}
