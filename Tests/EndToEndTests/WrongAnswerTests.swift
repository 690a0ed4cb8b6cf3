import Foundation
import SatchelTestSupport
import XCTest

/// Paths that once gave a wrong answer with exit 0, or a misleading one, as a new user met
/// them: an account record read against its own fields, a signature judged against an
/// address it could not be checked against, phrases of the wrong scheme.
final class WrongAnswerTests: XCTestCase {
    static let about = TestPhrase.abandonAbout
    var dir = ""
    var phrase = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory("wrong")
        phrase = "\(dir)/phrase.txt"
        XCTAssertTrue(
            FileManager.default.createFile(atPath: phrase, contents: Data((Self.about + "\n").utf8), attributes: [.posixPermissions: 0o600])
        )
    }

    /// `derive account`'s record says coin, network, script and path: options that contradict
    /// it are refused (65, naming both), options it makes unnecessary are not asked for.
    func testAccountRecordIsTheTruth() throws {
        let account = "\(dir)/a.jsonl"
        let made = try Shell.run("derive account --purpose 84 < \(phrase) > \(account)")
        XCTAssertEqual(made.status, 0, made.stderr)
        for (options, field, value, option) in [
            ("--coin ltc --purpose 84", "coin", "btc", "--coin ltc"),
            ("--coin eth", "coin", "btc", "--coin eth"),
            ("--purpose 44", "script", "p2wpkh", "--purpose 44"),
            ("--script p2tr", "script", "p2wpkh", "--script p2tr"),
            ("--network test", "network", "main", "--network test"),
            ("--account-path m/84h/0h/1h", "path", "m/84'/0'/0'", "--account-path m/84'/0'/1'"),
        ] {
            let r = try Shell.run("derive \(options) < \(account)")
            XCTAssertEqual(r.status, 65, options + r.out)
            XCTAssertEqual(r.records.count, 1, options)
            let error = try XCTUnwrap(r.records.first)
            XCTAssertEqual(error["code"] as? String, "derive.conflicts_with_record", options)
            XCTAssertEqual(error["field"] as? String, field, options)
            XCTAssertEqual(error["record_value"] as? String, value, options)
            XCTAssertEqual(error["option"] as? String, option, options)
            XCTAssertEqual(error["line"] as? Int, 1, options)
        }
        // Options that repeat the record are fine; none is needed.
        let expected = ["bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"]
        for options in ["--count 2", "--count 2 --coin btc --purpose 84 --network main"] {
            let r = try Shell.run("derive \(options) < \(account)")
            XCTAssertEqual(r.status, 0, options + r.stderr)
            XCTAssertEqual(r.records.map { $0["address"] as? String }, expected, options)
            XCTAssertEqual(r.records.map { $0["path"] as? String }, ["m/84'/0'/0'/0/0", "m/84'/0'/0'/0/1"], options)
            XCTAssertEqual(r.records.map { $0["script"] as? String }, ["p2wpkh", "p2wpkh"], options)
        }
        // An Ethereum account record gives Ethereum addresses with no --coin.
        let eth = try Shell.run("set -o pipefail; derive account --coin eth < \(phrase) | derive --count 1")
        XCTAssertEqual(eth.status, 0, eth.stderr)
        XCTAssertEqual(eth.records.map { $0["address"] as? String }, ["0x9858EfFD232B4033E47d90003D41EC34EcaEda94"])
        XCTAssertEqual(eth.records.first?["path"] as? String, "m/44'/60'/0'/0/0")
    }

    /// A bare extended key on a line is the key, not a phrase of one word.
    func testBareExtendedKeyLine() throws {
        let account = try Shell.run("derive account --purpose 84 < \(phrase)")
        XCTAssertEqual(account.status, 0, account.stderr)
        let zpub = try XCTUnwrap(account.records.first?["zpub"] as? String)
        let xpub = try XCTUnwrap(account.records.first?["xpub"] as? String)
        let r = try Shell.run("echo '  \(zpub)' | derive --count 1")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.map { $0["address"] as? String }, ["bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"])
        XCTAssertEqual(r.records.first?["path"] as? String, "0/0")
        // A bare xpub says no script: the usual question, not a phrase error.
        let bare = try Shell.run("echo '\(xpub)' | derive")
        XCTAssertEqual(bare.status, 65)
        XCTAssertEqual(bare.records.first?["code"] as? String, "derive.unsupported", bare.out)
        XCTAssertEqual(
            try Shell.run("echo '\(xpub)' | derive --purpose 84").records.first?["address"] as? String,
            "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
    }

    /// The signer is checked against every address kind derive writes; an address that cannot
    /// be checked is a usage error (64 as --address, 65 in a record), never verification_failed.
    func testVerifyEveryAddressKindDeriveWrites() throws {
        let hash = String(repeating: "5a", count: 32)
        // (derive options, the signing path, scheme)
        let kinds: [(String, String, String)] = [
            ("--purpose 44", "m/44h/0h/0h/0/0", "ecdsa"),
            ("--purpose 49", "m/49h/0h/0h/0/0", "ecdsa"),
            ("--purpose 84", "m/84h/0h/0h/0/0", "ecdsa"),
            ("--purpose 86", "m/86h/0h/0h/0/0", "schnorr"),
            ("--coin ltc --purpose 44", "m/44h/2h/0h/0/0", "ecdsa"),
            ("--coin ltc --purpose 49", "m/49h/2h/0h/0/0", "ecdsa"),
            ("--coin ltc --purpose 84", "m/84h/2h/0h/0/0", "ecdsa"),
            ("--coin doge", "m/44h/3h/0h/0/0", "ecdsa"),
            ("--coin bch", "m/44h/145h/0h/0/0", "ecdsa"),
            ("--coin zec", "m/44h/133h/0h/0/0", "ecdsa"),
            ("--coin eth", "m/44h/60h/0h/0/0", "ecdsa"),
            ("--coin btc --network test --purpose 49", "m/49h/1h/0h/0/0", "ecdsa"),
            ("--coin btc --network regtest --purpose 84", "m/84h/1h/0h/0/0", "ecdsa"),
        ]
        var checked = 0
        for (options, path, scheme) in kinds {
            let derived = try Shell.run("derive \(options) < \(phrase)")
            XCTAssertEqual(derived.status, 0, derived.stderr)
            let record = try XCTUnwrap(derived.records.first)
            var addresses = [try XCTUnwrap(record["address"] as? String)]
            if let legacy = record["legacy_address"] as? String { addresses.append(legacy) }
            if options == "--coin eth" { addresses.append(addresses[0].lowercased()) }
            let signFlags = scheme == "schnorr" ? "--scheme schnorr --taproot" : ""
            let signed = try Shell.run(
                "sign-hash \(signFlags) --key-file \(phrase) --path \(path)", stdin: Shell.lines([["hash": "0x" + hash]]))
            XCTAssertEqual(signed.status, 0, signed.stderr)
            var signature = try XCTUnwrap(signed.records.first)
            signature["public_key"] = nil
            for address in addresses {
                let r = try Shell.run("sign-hash verify --address '\(address)'", stdin: Shell.lines([signature]))
                XCTAssertEqual(r.status, 0, "\(options) \(address): \(r.out)")
                XCTAssertEqual(r.records.first?["valid"] as? Bool, true, "\(options) \(address)")
                XCTAssertEqual(r.records.first?["address"] as? String, address)
                // Another key's address of the same kind: a real verification failure.
                let other = try Shell.run("derive \(options) --index 1 < \(phrase)").records.first?["address"] as? String ?? ""
                if address == addresses[0] {
                    let wrong = try Shell.run("sign-hash verify --address '\(other)'", stdin: Shell.lines([signature]))
                    XCTAssertEqual(wrong.status, 65, options)
                    XCTAssertEqual(wrong.records.first?["code"] as? String, "sign.verification_failed", options)
                }
                checked += 1
            }
        }
        XCTAssertEqual(checked, 15)

        let signed = try Shell.run("sign-hash --key-file \(phrase) --path m/84h/0h/0h/0/0", stdin: Shell.lines([["hash": hash]]))
        var signature = try XCTUnwrap(signed.records.first)
        signature["public_key"] = nil
        // Addresses that cannot name a signer: usage errors that list the known kinds.
        for address in [
            "hello", "0x123", "0x9858efFD232B4033E47d90003D41EC34EcaEda94",
            "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3",
            "1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabB", "bitcoincash:qqyx49mu0kkn9ftfj6hje6g2wfer34yfnq5tahq3q7",
        ] {
            let r = try Shell.run("sign-hash verify --address '\(address)'", stdin: Shell.lines([signature]))
            XCTAssertEqual(r.status, 64, address)
            XCTAssertEqual(r.out, "", address)
            XCTAssertTrue(r.stderr.contains("known kinds: P2PKH") || r.stderr.contains("checksum"), address + r.stderr)
        }
        // In a record: a data error with its own code.
        let inRecord = try Shell.run("sign-hash verify", stdin: Shell.lines([signature.merging(["address": "hello"]) { $1 }]))
        XCTAssertEqual(inRecord.status, 65)
        XCTAssertEqual(inRecord.records.first?["code"] as? String, "sign.unknown_address")
        // A taproot address with an ECDSA signature cannot be checked: said so, not "failed".
        let taproot = "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr"
        let mismatch = try Shell.run("sign-hash verify --address \(taproot)", stdin: Shell.lines([signature]))
        XCTAssertEqual(mismatch.status, 65)
        XCTAssertEqual(mismatch.records.first?["code"] as? String, "sign.address_scheme_mismatch")
        // An uppercase bech32 address (as QR codes carry it) is the same address.
        let upper = try Shell.run("sign-hash verify --address BC1QCR8TE4KR609GCAWUTMRZA0J4XV80JY8Z306FYU", stdin: Shell.lines([signature]))
        XCTAssertEqual(upper.status, 0, upper.out)
    }

    /// 25 words with a BIP39 coin are a BIP39 phrase with a word too many; 13 of Monero's words
    /// are MyMonero's legacy seed, named as such.
    func testPhrasesOfTheWrongScheme() throws {
        let monero = try Shell.run("mnemonic generate --scheme monero")
        XCTAssertEqual(monero.status, 0, monero.stderr)
        let words = try XCTUnwrap(monero.records.first?["mnemonic"] as? String)
        let asBitcoin = try Shell.run("derive --coin btc", stdin: Data((words + "\n").utf8))
        XCTAssertEqual(asBitcoin.status, 65)
        XCTAssertEqual(asBitcoin.records.first?["code"] as? String, "mnemonic.invalid_word_count")
        XCTAssertEqual(asBitcoin.records.first?["words"] as? Int, 25)
        XCTAssertEqual(
            asBitcoin.records.first?["message"] as? String,
            "25 words; BIP39 has 12–24 (12, 15, 18, 21 or 24): a 25-word phrase is a Monero seed, for --coin xmr")
        // Without a coin, 25 words are still a Monero seed.
        let asMonero = try Shell.run("derive", stdin: Data((words + "\n").utf8))
        XCTAssertEqual(asMonero.status, 0, asMonero.stderr)
        XCTAssertEqual(asMonero.records.first?["coin"] as? String, "xmr")

        let thirteen = words.split(separator: " ").prefix(13).joined(separator: " ")
        for command in ["mnemonic validate", "derive", "derive --coin xmr"] {
            let r = try Shell.run(command, stdin: Data((thirteen + "\n").utf8))
            XCTAssertEqual(r.status, 65, command)
            XCTAssertEqual(r.records.first?["code"] as? String, "mnemonic.mymonero_seed", command)
            XCTAssertFalse(r.stderr.contains(thirteen), "the words are never shown")
        }
    }

    /// `--key-file <(…)` names a pipe (/dev/fd/N): read, as a file would be.
    func testKeyFileFromProcessSubstitution() throws {
        let hash = String(repeating: "11", count: 32)
        let r = try Shell.run("sign-hash --key-file <(cat \(phrase)) --path m/84h/0h/0h/0/0", stdin: Shell.lines([["hash": hash]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.first?["public_key"] as? String, "0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c")
        // A named FIFO others may open is refused as a readable file is.
        let fifo = "\(dir)/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let open = try Shell.run(
            "(cat \(phrase) > \(fifo) &) ; sign-hash --key-file \(fifo) --path m/0", stdin: Shell.lines([["hash": hash]]))
        XCTAssertEqual(open.status, 64, open.stderr)
        XCTAssertTrue(open.stderr.contains("secret.insecure_permissions"), open.stderr)
        _ = try? Shell.run("timeout 2 cat \(fifo) > /dev/null")
    }
}
