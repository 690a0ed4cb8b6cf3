import Foundation
import SatchelTestSupport
import WalletKeys
import Bitcoin
import WalletCore
import XCTest

/// The built `derive` executable, alone and after `mnemonic`.
final class DeriveToolTests: XCTestCase {
    func testAcceptancePipelineAndWatchOnlyAgree() throws {
        let dir = URL(fileURLWithPath: try temporaryDirectory("derive"))
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let wallet = dir.appendingPathComponent("wallet.jsonl").path
        let made = try Shell.run("umask 077; mnemonic generate > \(wallet)")
        XCTAssertEqual(made.status, 0, made.stderr)
        let direct = try Shell.run("derive --coin btc --purpose 84 --count 3 < \(wallet)")
        XCTAssertEqual(direct.status, 0, direct.stderr)
        let addresses = direct.records.map { $0["address"] as? String ?? "" }
        XCTAssertEqual(addresses.count, 3)
        XCTAssertTrue(addresses.allSatisfy { $0.hasPrefix("bc1q") }, "\(addresses)")
        XCTAssertEqual(direct.records.map { $0["path"] as? String }, ["m/84'/0'/0'/0/0", "m/84'/0'/0'/0/1", "m/84'/0'/0'/0/2"])
        // No secret from the input reaches the address records.
        XCTAssertFalse(direct.out.contains("mnemonic"))
        XCTAssertFalse(direct.out.contains("entropy"))

        let watch = try Shell.run("derive account --purpose 84 < \(wallet) | derive --purpose 84 --count 3")
        XCTAssertEqual(watch.status, 0, watch.stderr)
        XCTAssertEqual(watch.records.map { $0["address"] as? String ?? "" }, addresses)
        XCTAssertEqual(watch.records.map { $0["path"] as? String }, ["m/84'/0'/0'/0/0", "m/84'/0'/0'/0/1", "m/84'/0'/0'/0/2"])
        // A bare zpub, with no origin: the same addresses, paths relative to the key.
        let zpub = try Shell.run(
            "set -o pipefail; derive account --purpose 84 < \(wallet) | sed -E 's/.*\"zpub\":\"([^\"]*)\".*/{\"zpub\":\"\\1\"}/' | derive --count 3"
        )
        XCTAssertEqual(zpub.status, 0, zpub.stderr)
        XCTAssertEqual(zpub.records.map { $0["address"] as? String ?? "" }, addresses)
        XCTAssertEqual(zpub.records.first?["path"] as? String, "0/0")
    }

    /// The development oracle set through the executable: seeds in, addresses out, for every
    /// script kind and coin it covers; and phrase + passphrase in, the same BTC addresses out.
    /// A phrase bare, in a record, and as mnemonic's validated record give the same records:
    /// what describes the phrase (scheme, language, words, valid) goes with the phrase; the
    /// user's own fields pass through.
    func testTheSameRecordsWhateverCarriesThePhrase() throws {
        let about = TestPhrase.abandonAbout
        for sub in ["--purpose 84 --count 2", "account --purpose 84"] {
            let bare = try Shell.run("derive \(sub)", stdin: Data((about + "\n").utf8))
            let record = try Shell.run("derive \(sub)", stdin: Shell.lines([["mnemonic": about]]))
            let piped = try Shell.run("set -o pipefail; mnemonic validate | derive \(sub)", stdin: Shell.lines([["mnemonic": about]]))
            for r in [bare, record, piped] { XCTAssertEqual(r.status, 0, r.stderr) }
            XCTAssertFalse(bare.lines.isEmpty)
            XCTAssertEqual(record.lines, bare.lines, sub)
            XCTAssertEqual(piped.lines, bare.lines, sub)
            XCTAssertTrue(
                bare.records.allSatisfy { Set($0.keys).isDisjoint(with: ["scheme", "language", "words", "valid", "mnemonic"]) }, sub)
        }
        let labelled = try Shell.run(
            "set -o pipefail; mnemonic validate | derive --purpose 84", stdin: Shell.lines([["mnemonic": about, "label": "savings"]]))
        XCTAssertEqual(labelled.status, 0, labelled.stderr)
        XCTAssertEqual(labelled.records.first?["label"] as? String, "savings")
        XCTAssertEqual(labelled.records.first?["address"] as? String, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
    }

    func testHDOracleThroughTheTool() throws {
        let cases = try TestPaths.jsonLines(TestPaths.fixture("hd-oracle-dev.jsonl"))
        let seeds = Shell.lines(cases.map { ["id": $0["id"]!, "seed": $0["seed"]!] })
        for (purpose, key) in [("44", "bip44"), ("49", "bip49"), ("84", "bip84"), ("86", "bip86")] {
            let r = try Shell.run("derive --purpose \(purpose) --count 3", stdin: seeds)
            XCTAssertEqual(r.status, 0, r.stderr)
            let want = cases.flatMap { (($0["btc"] as! [String: Any])[key] as! [String: Any])["addresses"] as! [[String: String]] }
            XCTAssertEqual(r.records.map { $0["address"] as? String }, want.map { $0["address"] }, purpose)
            XCTAssertEqual(r.records.map { $0["public_key"] as? String }, want.map { $0["pubkey"] }, purpose)
        }
        let eth = try Shell.run("derive --coin eth --count 3", stdin: seeds)
        XCTAssertEqual(eth.status, 0, eth.stderr)
        XCTAssertEqual(
            eth.records.map { $0["address"] as? String },
            cases.flatMap { (($0["eth"] as! [String: Any])["addresses"] as! [[String: String]]).map { $0["address"] } })
        let ltc = try Shell.run("derive --coin ltc --purpose 84 --count 3", stdin: seeds)
        XCTAssertEqual(ltc.status, 0, ltc.stderr)
        XCTAssertEqual(
            ltc.records.map { $0["address"] as? String },
            cases.flatMap {
                ((($0["ltc"] as! [String: Any])["bip84"] as! [String: Any])["addresses"] as! [[String: String]]).map { $0["address"] }
            })
        let bch = try Shell.run("derive --coin bch", stdin: seeds)
        XCTAssertEqual(bch.status, 0, bch.stderr)
        XCTAssertEqual(bch.records.map { $0["address"] as? String }, cases.map { ($0["bch"] as! [String: String])["address"] })
        XCTAssertEqual(
            bch.records.map { $0["legacy_address"] as? String }, cases.map { ($0["bch"] as! [String: String])["legacy_address"] })

        let phrases = Shell.lines(cases.map { ["mnemonic": $0["mnemonic"]!, "passphrase": $0["passphrase"]!] })
        let fromPhrase = try Shell.run("derive --purpose 84", stdin: phrases)
        XCTAssertEqual(fromPhrase.status, 0, fromPhrase.stderr)
        XCTAssertEqual(
            fromPhrase.records.map { $0["address"] as? String },
            cases.map { ((($0["btc"] as! [String: Any])["bip84"] as! [String: Any])["addresses"] as! [[String: String]])[0]["address"] })
        XCTAssertFalse(fromPhrase.out.contains("passphrase"))
    }

    func testMoneroWalletFromSeedAndViewOnly() throws {
        let doc = try TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any]
        let keys = (doc["keys"] as! [String: Any]).compactMapValues { $0 as? String }
        let used = doc["subaddresses_used"] as! [String: String]
        let input = Shell.lines([["mnemonic": keys["mnemonic"]!]])
        for major in [0, 1] {
            let r = try Shell.run("derive --account \(major) --count 3", stdin: input)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.records.map { $0["address"] as? String }, (0..<3).map { used["(\(major),\($0))"] })
        }
        let viewOnly = try Shell.run("set -o pipefail; derive account --view-only | derive --account 1 --count 3", stdin: input)
        XCTAssertEqual(viewOnly.status, 0, viewOnly.stderr)
        XCTAssertEqual(viewOnly.records.map { $0["address"] as? String }, (0..<3).map { used["(1,\($0))"] })
        XCTAssertFalse(viewOnly.out.contains(keys["private_spend_key"]!))
        let integrated = doc["integrated_address"] as! [String: String]
        let withID = try Shell.run("derive --payment-id \(integrated["payment_id"]!)", stdin: input)
        XCTAssertEqual(withID.status, 0, withID.stderr)
        XCTAssertEqual(withID.records.first?["integrated_address"] as? String, integrated["integrated_address"])
        let account = try Shell.run("derive account --private", stdin: input)
        XCTAssertEqual(account.status, 0, account.stderr)
        XCTAssertEqual(account.records.first?["primary_address"] as? String, keys["primary_address"])
        XCTAssertEqual(account.records.first?["private_spend_key"] as? String, keys["private_spend_key"])
        XCTAssertEqual(account.records.first?["private_view_key"] as? String, keys["private_view_key"])
    }

    /// A view-only record (view key + address) is checked: the checksum (every one-character
    /// change), the kind (a subaddress is not the wallet's address), the network, and that the
    /// view key belongs to the address; an integrated address gives its payment id.
    func testMoneroViewOnlyRecordsAreChecked() throws {
        let doc = try TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any]
        let keys = (doc["keys"] as! [String: Any]).compactMapValues { $0 as? String }
        let used = doc["subaddresses_used"] as! [String: String]
        let view = keys["private_view_key"]!, primary = keys["primary_address"]!
        let good = try Shell.run("derive --account 1 --count 2", stdin: Shell.lines([["view_key": view, "address": primary]]))
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertEqual(good.records.map { $0["address"] as? String }, [used["(1,0)"], used["(1,1)"]])

        let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
        var corrupted = [[String: Any]]()
        for (i, c) in primary.enumerated() {
            var chars = Array(primary)
            chars[i] = alphabet[(alphabet.firstIndex(of: c)! + 1) % alphabet.count]
            corrupted.append(["view_key": view, "address": String(chars)])
        }
        let bad = try Shell.run("derive", stdin: Shell.lines(corrupted))
        XCTAssertEqual(bad.status, 65)
        XCTAssertEqual(bad.records.count, primary.count)
        XCTAssertEqual(
            bad.records.filter { $0["code"] as? String == "derive.invalid_monero_key" && $0["address"] == nil }.count, primary.count,
            bad.out)

        let sub = try Shell.run("derive", stdin: Shell.lines([["view_key": view, "address": used["(0,1)"]!]]))
        XCTAssertEqual(sub.status, 65)
        XCTAssertEqual(sub.records.first?["code"] as? String, "derive.invalid_monero_key")
        XCTAssertTrue((sub.records.first?["message"] as? String ?? "").contains("subaddress"), sub.out)

        let otherView = "01" + String(repeating: "0", count: 62)
        let other = try Shell.run("derive", stdin: Shell.lines([["view_key": otherView, "address": primary]]))
        XCTAssertEqual(other.status, 65)
        XCTAssertEqual(other.records.first?["code"] as? String, "derive.invalid_monero_key")
        XCTAssertTrue((other.records.first?["message"] as? String ?? "").contains("does not belong"), other.out)

        let stagenet = try Shell.run("derive --network stagenet", stdin: Shell.lines([["view_key": view, "address": primary]]))
        XCTAssertEqual(stagenet.status, 65)
        XCTAssertEqual(stagenet.records.first?["message"] as? String, "invalid Monero key: the address is a mainnet address, not stagenet")

        let integrated = doc["integrated_address"] as! [String: String]
        let fromIntegrated = try Shell.run(
            "derive", stdin: Shell.lines([["view_key": view, "address": integrated["integrated_address"]!]]))
        XCTAssertEqual(fromIntegrated.status, 0, fromIntegrated.stderr)
        XCTAssertEqual(fromIntegrated.records.count, 1)
        XCTAssertEqual(fromIntegrated.records.first?["address"] as? String, primary)
        XCTAssertEqual(fromIntegrated.records.first?["payment_id"] as? String, integrated["payment_id"])
        XCTAssertEqual(fromIntegrated.records.first?["integrated_address"] as? String, integrated["integrated_address"])
        // A public spend key that contradicts the address is refused too.
        let both = try Shell.run(
            "derive", stdin: Shell.lines([["view_key": view, "address": primary, "public_spend_key": keys["public_view_key"]!]]))
        XCTAssertEqual(both.status, 65)
        XCTAssertEqual(both.records.first?["code"] as? String, "derive.invalid_monero_key")
    }

    func testPrivateKeysOnlyWhenAsked() throws {
        let about = ["mnemonic": TestPhrase.abandonAbout]
        let plain = try Shell.run("derive --purpose 84", stdin: Shell.lines([about]))
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(plain.records.first?["address"] as? String, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        XCTAssertNil(plain.records.first?["private_key"])
        XCTAssertNil(plain.records.first?["wif"])
        let priv = try Shell.run("derive --purpose 84 --private", stdin: Shell.lines([about]))
        XCTAssertEqual(priv.status, 0, priv.stderr)
        XCTAssertEqual(priv.records.first?["wif"] as? String, "KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d")
        let fromXpub = try Shell.run("derive account --purpose 84 | derive --purpose 84 --private", stdin: Shell.lines([about]))
        XCTAssertEqual(fromXpub.status, 65)
        XCTAssertEqual(fromXpub.records.first?["code"] as? String, "derive.unsupported")
    }

    /// Every invalid extended key of BIP32 vector 5 is an error record, never an address.
    func testInvalidInputsAreErrors() throws {
        let doc = try TestPaths.json(TestPaths.vector("bip32.json")) as! [String: Any]
        let invalid = (doc["invalid_extended_keys"] as! [[String: String]]).map { ["extended_key": $0["key"]!] }
        let r = try Shell.run("derive --purpose 44", stdin: Shell.lines(invalid))
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.records.count, 16)
        XCTAssertTrue(r.records.allSatisfy { $0["type"] as? String == "error" && $0["address"] == nil }, r.out)
        // Each record has one of the two codes (not a code-less record that a set would drop).
        for record in r.records {
            XCTAssertTrue(
                ["derive.invalid_extended_key", "derive.unknown_key_version"].contains(record["code"] as? String ?? "none"), "\(record)")
        }

        let hardened = try Shell.run(
            "derive account --purpose 84 | derive --purpose 84 --path \"m/0h/1\"",
            stdin: Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f"]]))
        XCTAssertEqual(hardened.status, 65)
        XCTAssertEqual(hardened.records.map { $0["code"] as? String }, ["derive.hardened_from_public"])
        for bad in [
            "--path m/x", "--purpose 45", "--coin dogecoin", "--coin doge --purpose 84", "--change 2", "--count 0", "--network moon",
        ] {
            XCTAssertEqual(try Shell.run("derive \(bad)", stdin: Data()).status, 64, bad)
        }
        let noKey = try Shell.run("derive", stdin: Shell.lines([["id": 1]]))
        XCTAssertEqual(noKey.status, 65)
        XCTAssertEqual(noKey.records.map { $0["code"] as? String }, ["record.missing_field"])
    }

    func testPathsRangesAndEIP1581() throws {
        let seed = Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f"]])
        let range = try Shell.run("derive --purpose 84 --path \"m/84h/0h/0h/0/0-19\"", stdin: seed)
        XCTAssertEqual(range.status, 0, range.stderr)
        XCTAssertEqual(range.records.map { $0["path"] as? String }, (0..<20).map { "m/84'/0'/0'/0/\($0)" })
        // The same addresses as the preset for those indexes.
        let preset = try Shell.run("derive --purpose 84 --count 20", stdin: seed)
        XCTAssertEqual(preset.status, 0, preset.stderr)
        XCTAssertEqual(range.records.map { $0["address"] as? String }, preset.records.map { $0["address"] as? String })
        XCTAssertTrue(range.records.allSatisfy { ($0["address"] as? String)?.hasPrefix("bc1q") == true }, range.out)
        let both = try Shell.run("derive --purpose 86 --change both --count 2", stdin: seed)
        XCTAssertEqual(both.status, 0, both.stderr)
        XCTAssertEqual(
            both.records.map { $0["path"] as? String }, ["m/86'/0'/0'/0/0", "m/86'/0'/0'/0/1", "m/86'/0'/0'/1/0", "m/86'/0'/0'/1/1"])
        XCTAssertTrue(both.records.allSatisfy { ($0["address"] as? String ?? "").hasPrefix("bc1p") })
        // EIP-1581: the vector's example path, built from its components, gives embit's key.
        let eip = try TestPaths.json(TestPaths.vector("eip1581.json")) as! [String: Any]
        let example = eip["example"] as! [String: Any]
        let id = UInt64((example["key_index_hex"] as! String).dropFirst(2), radix: 16)!
        let built = "\(eip["prefix"] as! String)/\(example["key_type"] as! Int)'/\(id >> 31)'/\(id & 0x7fff_ffff)"
        XCTAssertEqual(built, example["path"] as? String)
        let reference = try TestPaths.json(TestPaths.projectFixture("testnet/testnet-derivations.json")) as! [String: Any]
        for want in reference["eip1581"] as! [[String: String]] {
            let r = try Shell.run("derive --coin eth --path \"\(want["path"]!)\"", stdin: seed)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.records.count, 1, r.out)
            XCTAssertEqual(r.records.first?["path"] as? String, want["path"])
            XCTAssertEqual(r.records.first?["public_key"] as? String, want["public_key"])
        }
    }

    /// Test networks from a phrase or seed, and watch-only from their account keys, against
    /// embit's values (Tests/Fixtures/testnet): every purpose on test, signet and regtest.
    func testTestNetworksAgainstAnIndependentLibrary() throws {
        let doc = try TestPaths.json(TestPaths.projectFixture("testnet/testnet-derivations.json")) as! [String: Any]
        let cases = doc["cases"] as! [[String: Any]]
        XCTAssertEqual(cases.count, 36)
        for c in cases {
            var input: [String: Any] = [:]
            for field in ["mnemonic", "passphrase", "seed"] { if let v = c[field] { input[field] = v } }
            let label = "\(c["network"]!) \(c["purpose"]!) \(input["seed"] ?? input["mnemonic"]!)"
            let flags = "--network \(c["network"]!) --purpose \(c["purpose"]!)"
            let want = c["addresses"] as! [[String: String]]
            let r = try Shell.run("derive \(flags) --change both --count 3 --private", stdin: Shell.lines([input]))
            XCTAssertEqual(r.status, 0, label + r.stderr)
            XCTAssertEqual(r.records.map { $0["path"] as? String }, want.map { $0["path"] }, label)
            XCTAssertEqual(r.records.map { $0["address"] as? String }, want.map { $0["address"] }, label)
            XCTAssertEqual(r.records.map { $0["public_key"] as? String }, want.map { $0["public_key"] }, label)
            XCTAssertEqual(r.records.map { $0["wif"] as? String }, want.map { $0["wif"] }, label)
            XCTAssertEqual(r.records.map { $0["network"] as? String }, want.map { _ in c["network"] as? String }, label)

            let account = try Shell.run("derive account \(flags) --private", stdin: Shell.lines([input]))
            XCTAssertEqual(account.status, 0, label + account.stderr)
            let record = try XCTUnwrap(account.records.first, label)
            XCTAssertEqual(account.records.count, 1, label)
            XCTAssertEqual(record["path"] as? String, c["account_path"] as? String, label)
            XCTAssertEqual(record["xpub"] as? String, c["tpub"] as? String, label)
            XCTAssertEqual(record["xprv"] as? String, c["tprv"] as? String, label)
            XCTAssertEqual(record["master_fingerprint"] as? String, c["master_fingerprint"] as? String, label)
            if let prefix = c["slip132_prefix"] as? String {
                XCTAssertEqual(record[prefix] as? String, c["slip132"] as? String, label)
            }
            // Watch-only from the account record: the same receive and change addresses.
            let watch = try Shell.run("derive account \(flags) | derive \(flags) --change both --count 3", stdin: Shell.lines([input]))
            XCTAssertEqual(watch.status, 0, label + watch.stderr)
            XCTAssertEqual(watch.records.map { $0["address"] as? String }, want.map { $0["address"] }, label)
        }
        // Other coins keep their own networks: ZEC and DOGE transparent addresses from a seed.
        let seed = Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f"]])
        let zec = try Shell.run("derive --coin zec", stdin: seed)
        XCTAssertEqual(zec.status, 0, zec.stderr)
        XCTAssertEqual((zec.records.first?["address"] as? String)?.prefix(2), "t1")
        let doge = try Shell.run("derive --coin doge", stdin: seed)
        XCTAssertEqual(doge.status, 0, doge.stderr)
        XCTAssertEqual((doge.records.first?["address"] as? String)?.prefix(1), "D")
        // An imported mainnet key is still held to its network: against the account record's
        // own "network", and, for a bare key, against its version bytes.
        let mismatch = try Shell.run("derive account --purpose 84 | derive --network test --purpose 84", stdin: seed)
        XCTAssertEqual(mismatch.status, 65)
        XCTAssertEqual(mismatch.records.first?["code"] as? String, "derive.conflicts_with_record")
        let bare = try Shell.run(
            "set -o pipefail; derive account --purpose 84 | sed -E 's/.*\"zpub\":\"([^\"]*)\".*/{\"zpub\":\"\\1\"}/' | derive --network test",
            stdin: seed)
        XCTAssertEqual(bare.status, 65)
        XCTAssertEqual(bare.records.first?["code"] as? String, "derive.unsupported")
    }

    func testHelpAndManPage() throws {
        for sub in ["", "addresses", "account"] {
            let r = try Shell.run("derive \(sub) --help")
            XCTAssertEqual(r.status, 0, sub)
            XCTAssertTrue(r.out.contains("USAGE: derive"), sub)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: TestPaths.packageRoot.appendingPathComponent("man/derive.1").path))
    }

    /// QR codes: image files decode (zbarimg) to the address; the terminal drawing, read back
    /// cell by cell into an image, decodes too.
    func testQRCodesDecodeToTheAddress() throws {
        let dir = URL(fileURLWithPath: try temporaryDirectory("qr"))
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let seed = Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f"]])
        let png = try Shell.run("derive --purpose 84 --count 2 --qr-dir \(dir.path)", stdin: seed)
        XCTAssertEqual(png.status, 0, png.stderr)
        for record in png.records {
            let file = try XCTUnwrap(record["qr_file"] as? String)
            let decoded = try Shell.run("zbarimg -q --raw \(file) 2>/dev/null")
            XCTAssertEqual(decoded.out.trimmingCharacters(in: .whitespacesAndNewlines), record["address"] as? String)
        }
        let svg = try Shell.run("derive --coin bch --qr-dir \(dir.path) --qr-format svg", stdin: seed)
        XCTAssertEqual(svg.status, 0, svg.stderr)
        let svgFile = try XCTUnwrap(svg.records.first?["qr_file"] as? String)
        XCTAssertTrue(try String(contentsOfFile: svgFile, encoding: .utf8).contains("<svg"))

        let records = dir.appendingPathComponent("seed.jsonl")
        try seed.write(to: records)
        let screen = try Shell.run("script -qec \"derive --purpose 84 --qr < \(records.path) > /dev/null\" /dev/null")
        let lines = screen.out.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
            .filter { $0.contains("█") || $0.contains("▀") || $0.contains("▄") }
        XCTAssertGreaterThan(lines.count, 10, screen.out)
        // Two modules per cell: foreground (█, the top half ▀, the bottom half ▄) is light.
        var rows = [[UInt8]]()
        for line in lines {
            var top = [UInt8](), bottom = [UInt8]()
            for c in line {
                top.append(c == "█" || c == "▀" ? 255 : 0)
                bottom.append(c == "█" || c == "▄" ? 255 : 0)
            }
            rows += [top, bottom]
        }
        let width = rows.map(\.count).max()!
        let scale = 4
        var pgm = Array("P5 \(width * scale) \(rows.count * scale) 255\n".utf8)
        for row in rows {
            for _ in 0..<scale { for x in 0..<width { pgm += Array(repeating: x < row.count ? row[x] : 255, count: scale) } }
        }
        let image = dir.appendingPathComponent("screen.pgm")
        try Data(pgm).write(to: image)
        let decoded = try Shell.run("zbarimg -q --raw \(image.path) 2>/dev/null")
        XCTAssertEqual(decoded.out.trimmingCharacters(in: .whitespacesAndNewlines), png.records.first?["address"] as? String)
        XCTAssertEqual(try Shell.run("setsid -w derive --qr", stdin: seed).status, 64)
    }
}

/// BIP44 account discovery against a file of used addresses.
final class DiscoveryToolTests: XCTestCase {
    let seed = Shell.lines([["mnemonic": TestPhrase.abandonAbout]])

    func address(account: Int, chain: Int, index: Int) throws -> String {
        let r = try Shell.run("derive --coin btc --purpose 84 --account \(account) --change \(chain) --index \(index)", stdin: seed)
        return try XCTUnwrap(r.records.first?["address"] as? String, r.stderr)
    }

    func testGapLimitAndStopAtTheFirstEmptyAccount() throws {
        let dir = try temporaryDirectory("discover")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Account 0: receive 0, 5 and 24 (within 20 of 5), 46 (beyond the gap after 24); change 1.
        // Account 1: receive 2, as a scan-blocks-style record, upper case as from a QR code.
        // Account 3: used, but account 2 is empty, so discovery never gets there.
        var lines = [
            try address(account: 0, chain: 0, index: 0), try address(account: 0, chain: 0, index: 5),
            try address(account: 0, chain: 0, index: 24), try address(account: 0, chain: 0, index: 46),
            try address(account: 0, chain: 1, index: 1), try address(account: 3, chain: 0, index: 0),
        ]
        lines.append(#"{"type":"received","address":"\#(try address(account: 1, chain: 0, index: 2).uppercased())","amount":"1000"}"#)
        try (lines.joined(separator: "\n") + "\n").write(toFile: "\(dir)/used.txt", atomically: true, encoding: .utf8)
        let r = try Shell.run("derive discover --coin btc --purpose 84 --used \(dir)/used.txt", stdin: seed)
        XCTAssertEqual(r.status, 0, r.stderr)
        let accounts = r.records.filter { $0["type"] as? String == "account" }
        XCTAssertEqual(accounts.map { $0["path"] as? String }, ["m/84'/0'/0'", "m/84'/0'/1'"])
        XCTAssertEqual(accounts[0]["used_receive"] as? Int, 3)
        XCTAssertEqual(accounts[0]["next_receive_index"] as? Int, 25)
        XCTAssertEqual(accounts[0]["next_change_index"] as? Int, 2)
        XCTAssertEqual(accounts[1]["next_receive_index"] as? Int, 3)
        XCTAssertEqual(
            accounts[0]["xpub"] as? String,
            "xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V")
        XCTAssertEqual(r.records.last?["next_account"] as? Int, 2)
        XCTAssertFalse(r.out.contains("abandon"))
    }
}

/// embit 0.8.0 (a Python Bitcoin library) in .build/embit-venv, installed once from PyPI: the
/// oracle of the multisig tests below.
func embitVenv() throws -> String {
    let venv = TestPaths.packageRoot.appendingPathComponent(".build/embit-venv").path
    if !FileManager.default.fileExists(atPath: venv + "/bin/python") {
        let made = try Shell.run("/usr/bin/python3 -m venv \(venv) && \(venv)/bin/pip install -q embit==0.8.0")
        XCTAssertEqual(made.status, 0, made.stderr)
    }
    return venv
}

/// BIP48 multisig accounts (#42): `derive account --purpose 48 --script p2wsh|p2sh-p2wsh`
/// exports m/48'/coin'/account'/2' (or 1'), with the key origin cosigners exchange; held to
/// embit 0.8.0 (scripts/bip48-oracle.py, in .build/embit-venv, installed once from PyPI).
extension DeriveToolTests {
    func testBIP48AccountsAgreeWithEmbit() throws {
        let venv = try embitVenv()
        let phrases = [
            TestPhrase.abandonAbout,
            TestPhrase.legalWinner,
        ]
        var lines = [String]()
        for phrase in phrases {
            for args in [
                "--script p2wsh", "--script p2sh-p2wsh", "--script p2wsh --network test --account 3",
                "--script p2sh-p2wsh --coin ltc --account 1",
            ] {
                let r = try Shell.run("derive account --purpose 48 \(args)", stdin: Shell.lines([["mnemonic": phrase]]))
                XCTAssertEqual(r.status, 0, args + r.stderr)
                var record = try XCTUnwrap(r.records.first)
                XCTAssertEqual(record["purpose"] as? Int, 48)
                let path = try XCTUnwrap(record["path"] as? String)
                XCTAssertEqual(
                    record["key_origin"] as? String,
                    "[\(record["master_fingerprint"] as? String ?? "")\(path.dropFirst())]\(record["xpub"] as? String ?? "")")
                XCTAssertEqual(record["descriptor_key"] as? String, (record["key_origin"] as? String ?? "") + "/<0;1>/*")
                record["mnemonic"] = phrase
                lines.append(String(decoding: try JSONSerialization.data(withJSONObject: record), as: UTF8.self))
            }
        }
        let oracle = try Shell.run("\(venv)/bin/python scripts/bip48-oracle.py", stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(oracle.status, 0, oracle.stderr)
        XCTAssertEqual(oracle.records.count, lines.count)
        for (line, expected) in zip(lines, oracle.records) {
            let ours = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for key in expected.keys where key != "descriptor_origin" {
                XCTAssertEqual(ours[key] as? String, expected[key] as? String, "\(key) of \(ours["path"] ?? "")")
            }
            let steps = try DerivationPath(parsing: ours["path"] as! String).components.map(String.init).joined(separator: ", ")
            XCTAssertEqual(expected["descriptor_origin"] as? String, "\(ours["master_fingerprint"] as! String)[\(steps)]")
        }
        // The well-known key of the test phrase (Sparrow, Coldcard): m/48'/0'/0'/2'.
        XCTAssertTrue(
            lines[0].contains(
                #""Zpub":"Zpub74Jru6aftwwHxCUCWEvP6DgrfFsdA4U6ZRtQ5i8qJpMcC39yZGv3egBhQfV3MS9pZtH5z8iV5qWkJsK6ESs6mSzt4qvGhzJxPeeVS2e1zUG""#
            ))
        // What cannot be said: a script without purpose 48, purpose 48 without a script or for
        // addresses (they need every cosigner's key), and a multisig account piped on as if single-key.
        let seed = Shell.lines([["mnemonic": phrases[0]]])
        for (command, status, message) in [
            ("derive account --purpose 48", 64, "--purpose 48 (BIP48 multisig) takes --script p2wsh (script type 2') or p2sh-p2wsh (1')"),
            ("derive account --script p2wsh", 64, "--script p2wsh is a BIP48 multisig account's: give --purpose 48 with it"),
            (
                "derive addresses --purpose 48 --script p2wsh", 65,
                "--purpose 48 is a multisig account: derive account exports its key; its addresses need every cosigner's key"
            ),
            (
                "derive account --purpose 48 --script p2wsh | derive addresses", 65,
                "\"script\": must be one of p2pkh, p2sh-p2wpkh, p2wpkh, p2tr, ethereum"
            ),
        ] {
            let r = try Shell.run(command, stdin: seed)
            XCTAssertEqual(r.status, Int32(status), command + r.stderr)
            XCTAssertTrue(r.stderr.contains(message), command + ": " + r.stderr)
        }
    }
}

/// sign-tx --descriptor (#42): a 2-of-3 wallet of three BIP48 accounts from derive account,
/// its scripts held to embit's, and sign-tx's summary naming the wallet's change and cosigners.
extension DeriveToolTests {
    func testAMultisigWalletsChangeThroughSignTx() throws {
        let venv = try embitVenv()
        let dir = try temporaryDirectory("msig")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        let phrases = [
            TestPhrase.abandonAbout,
            TestPhrase.legalWinner,
            "letter advice cage absurd amount doctor acoustic avoid letter advice cage above",
        ]
        let accounts = try phrases.map { phrase -> [String: Any] in
            let r = try Shell.run("derive account --purpose 48 --script p2wsh --network test", stdin: Shell.lines([["mnemonic": phrase]]))
            XCTAssertEqual(r.status, 0, r.stderr)
            return try XCTUnwrap(r.records.first)
        }
        let text = "wsh(sortedmulti(2," + accounts.map { $0["descriptor_key"] as! String }.joined(separator: ",") + "))"
        let wallet = try MultisigDescriptor(parsing: text)
        let places = ["0/0", "1/5", "0/7", "1/0"]
        let oracle = try Shell.run("\(venv)/bin/python scripts/multisig-oracle.py \"\(text)\" \(places.joined(separator: " "))")
        XCTAssertEqual(oracle.status, 0, oracle.stderr)
        XCTAssertEqual(
            oracle.lines,
            try places.map { p in
                let parts = p.split(separator: "/").map { UInt32($0)! }
                return Hex.encode(try wallet.script(chain: parts[0], index: parts[1]).scriptPubKey)
            })
        // A PSBT spending the wallet's 0/0, paying 1/5 (its change) and 0/7 (its own receive address: a payment).
        let xpubs = accounts.map { try! ExtendedKey(parsing: $0["xpub"] as! String) }
        let fingerprints = accounts.map { try! Hex.decode($0["master_fingerprint"] as! String) }
        let account = try DerivationPath(parsing: "m/48'/1'/0'/2'").components
        func derivation(_ m: Int, _ chain: UInt32, _ index: UInt32) throws -> PSBT.Pair {
            PSBT.Pair(
                type: 0x02, keyData: try xpubs[m].child(chain).child(index).publicKey.compressed,
                value: fingerprints[m] + (account + [chain, index]).flatMap { c in withUnsafeBytes(of: c.littleEndian) { Array($0) } })
        }
        let spent = try wallet.script(chain: 0, index: 0), change = try wallet.script(chain: 1, index: 5),
            receive = try wallet.script(chain: 0, index: 7)
        let tx = BitcoinTx(
            version: 2, inputs: [.init(previousTxID: [UInt8](repeating: 0x42, count: 32), previousIndex: 1, sequence: 0xFFFF_FFFD)],
            outputs: [.init(value: 70_000, script: change.scriptPubKey), .init(value: 29_000, script: receive.scriptPubKey)], lockTime: 0)
        var psbt = try PSBT(unsignedTransaction: tx)
        psbt.inputs[0].insertInOrder(
            PSBT.Pair(
                type: PSBTField.inWitnessUtxo,
                value: withUnsafeBytes(of: UInt64(100_000).littleEndian) { Array($0) } + [UInt8(spent.scriptPubKey.count)]
                    + spent.scriptPubKey))
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessScript, value: spent.witnessScript))
        for m in 0..<3 {
            var d = try derivation(m, 0, 0)
            psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: d.keyData, value: d.value))
            d = try derivation(m, 1, 5)
            psbt.outputs[0].insertInOrder(d)
            psbt.outputs[1].insertInOrder(try derivation(m, 0, 7))
        }
        psbt.outputs[0].insertInOrder(PSBT.Pair(type: PSBTField.outWitnessScript, value: change.witnessScript))
        psbt.outputs[1].insertInOrder(PSBT.Pair(type: PSBTField.outWitnessScript, value: receive.witnessScript))
        let key = "\(dir)/key.json"
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: key, contents: Shell.lines([["mnemonic": phrases[0]]]), attributes: [.posixPermissions: 0o600]))
        try (text + "\n").write(toFile: "\(dir)/wallet.txt", atomically: true, encoding: .utf8)
        let record = Shell.lines([["psbt": psbt.base64]])
        for (options, changes) in [
            ("", [false, false]), ("--descriptor \"\(text)\"", [true, false]), ("--descriptor \(dir)/wallet.txt", [true, false]),
        ] {
            let r = try Shell.run("sign-tx --network test --key-file \(key) \(options)", stdin: record)
            XCTAssertEqual(r.status, 0, options + r.stderr)
            let summary = try XCTUnwrap(r.records.first { $0["type"] as? String == "psbt_summary" })
            XCTAssertEqual((summary["outputs"] as? [[String: Any]])?.map { $0["change"] as? Bool }, changes, options)
            XCTAssertEqual(summary["sent"] as? String, changes[0] ? "29000" : "99000", options)
            let wallets = summary["wallets"] as? [[String: Any]]
            XCTAssertEqual(wallets?.first?["threshold"] as? Int, options.isEmpty ? nil : 2)
            XCTAssertEqual(
                (wallets?.first?["cosigners"] as? [[String: Any]])?.map { $0["fingerprint"] as? String },
                options.isEmpty ? nil : accounts.map { $0["master_fingerprint"] as? String })
            XCTAssertEqual(r.records.last?["signed_inputs"] as? [Int], [0])
        }
    }
}
