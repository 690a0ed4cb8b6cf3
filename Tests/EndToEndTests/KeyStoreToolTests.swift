import Foundation
import SatchelTestSupport
import XCTest

/// keystore, and --store / --wallet in the other tools, on real files.
final class KeyStoreToolTests: XCTestCase {
    let about = TestPhrase.abandonAbout
    var dir = ""
    var ks: String { "--keystore \(dir)/ks --keystore-pass-file \(dir)/pass --kdf interactive" }

    override func setUpWithError() throws {
        dir = try temporaryDirectory("kst")
        try secret("pass", "correct horse battery")
        try secret("newpass", "a different long passphrase")
    }

    private func secret(_ name: String, _ text: String) throws {
        let path = dir + "/" + name
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// A zec entry keeps a seed (from a phrase of a "coin":"zec" record) or a viewing key, with
    /// its birthday; --wallet gives derive the same keys as the record did; export gives back
    /// a record that re-adds to the same entry; sign-hash refuses it.
    func testZcashEntries() throws {
        let w = try XCTUnwrap(TestPaths.json(TestPaths.vector("zcash/generated/wallet_abandon_art_account0.json")) as? [String: Any])
        let s = try XCTUnwrap(w["sapling"] as? [String: Any])
        let phrase = Shell.lines([["mnemonic": w["mnemonic"]!, "coin": "zec"]])
        let add = try Shell.run("keystore add zseed --birthday zec=419200 \(ks)", stdin: phrase)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(add.records.first?["kind"] as? String, "zec")
        XCTAssertEqual(add.records.first?["birthdays"] as? [String: Int], ["zec": 419200])
        let fromEntry = try Shell.run("derive --wallet zseed --count 2 --change both \(ks)")
        XCTAssertEqual(fromEntry.status, 0, fromEntry.stderr)
        let fromRecord = try Shell.run("derive --coin zec --pool sapling --count 2 --change both", stdin: phrase)
        XCTAssertEqual(fromRecord.status, 0, fromRecord.stderr)
        XCTAssertEqual(fromEntry.records.map { $0["address"] as? String }, fromRecord.records.map { $0["address"] as? String })
        XCTAssertEqual(fromEntry.records.first?["address"] as? String, s["default_address"] as? String)

        // derive account → a watch-only entry holding the UFVK, which keeps its birthday.
        let view = try Shell.run("set -o pipefail; derive account --wallet zseed \(ks) | keystore add zview \(ks)")
        XCTAssertEqual(view.status, 0, view.stderr)
        XCTAssertEqual(view.records.first?["birthdays"] as? [String: Int], ["zec": 419200])
        let watch = try Shell.run("derive --wallet zview --count 2 \(ks)")
        XCTAssertEqual(watch.status, 0, watch.stderr)
        XCTAssertEqual(watch.records.map { $0["address"] as? String }, Array(fromRecord.records.prefix(2)).map { $0["address"] as? String })
        let exported = try Shell.run("keystore export zview \(ks)")
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertTrue((exported.records.first?["ufvk"] as? String ?? "").hasPrefix("uview1"), exported.out)
        XCTAssertNil(exported.records.first?["seed"])
        let seedBack = try Shell.run("set -o pipefail; keystore export zseed \(ks) | keystore add zseed2 \(ks)")
        XCTAssertEqual(seedBack.status, 0, seedBack.stderr)
        let again = try Shell.run("derive --wallet zseed2 --count 2 --change both \(ks)")
        XCTAssertEqual(again.records.map { $0["address"] as? String }, fromRecord.records.map { $0["address"] as? String })
        // scan-blocks takes both entries, by --wallet and by name in a --wallets file, with
        // the entry's zec birthday: the seed's finds receive and change notes, the UFVK's too.
        let blocks = TestPaths.fixture("zcash-sapling/compact_blocks.pb").path
        let birthday = try Shell.run("keystore birthday zseed zec=2900000 \(ks)")
        XCTAssertEqual(birthday.status, 0, birthday.stderr)
        let scanSeed = try Shell.run(
            "scan-blocks --chain zcash --blocks \(blocks) --wallet zseed --state-dir \(dir)/zscan --progress none \(ks)")
        XCTAssertEqual(scanSeed.status, 0, scanSeed.stderr)
        XCTAssertEqual(scanSeed.records.filter { $0["type"] as? String == "received" }.count, 14)
        try "zview\n".write(toFile: "\(dir)/wallets", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: "\(dir)/wallets")
        let scanView = try Shell.run(
            "scan-blocks --chain zcash --blocks \(blocks) --wallets \(dir)/wallets --birthday 2900000 --state-dir \(dir)/zscan2 --progress none \(ks)"
        )
        XCTAssertEqual(scanView.status, 0, scanView.stderr)
        XCTAssertEqual(scanView.records.filter { $0["type"] as? String == "received" }.count, 14)
        XCTAssertEqual(scanView.records.last?["total"] as? String, scanSeed.records.last?["total"] as? String)
        let sign = try Shell.run(
            "sign-hash --wallet zseed --path m/0 \(ks)", stdin: Shell.lines([["hash": String(repeating: "ab", count: 32)]]))
        XCTAssertEqual(sign.status, 65)
        XCTAssertEqual(sign.records.first?["code"] as? String, "derive.unsupported")
        // A viewing key under the wrong field is refused before anything is stored.
        let wrong = try Shell.run("keystore add bad \(ks)", stdin: Shell.lines([["uivk": s["extfvk_bech32"]!]]))
        XCTAssertNotEqual(wrong.status, 0)
        XCTAssertEqual(
            try Shell.run("keystore list --keystore \(dir)/ks").records.map { $0["name"] as? String }, ["zseed", "zseed2", "zview"])
    }

    /// Under umask 000 the store and its missing parents are made 0700; an entry others can
    /// read, or a symbolic link, is refused; a listing shows the good entries beside an error
    /// record for the bad one.
    func testFileModesAndBadEntries() throws {
        let add = try Shell.run(
            "umask 000; keystore add main --keystore \(dir)/a/b/ks --keystore-pass-file \(dir)/pass --kdf interactive",
            stdin: Shell.lines([["mnemonic": about]]))
        XCTAssertEqual(add.status, 0, add.stderr)
        for sub in ["a", "a/b", "a/b/ks"] {
            let mode = try FileManager.default.attributesOfItem(atPath: "\(dir)/\(sub)")[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o700, sub)
        }
        let store = "--keystore \(dir)/a/b/ks --keystore-pass-file \(dir)/pass --kdf interactive"
        XCTAssertEqual(
            try Shell.run("keystore add other \(store)", stdin: Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f"]])).status, 0)

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: "\(dir)/a/b/ks/main.key")
        let loose = try Shell.run("keystore export main \(store)")
        XCTAssertEqual(loose.status, 64, loose.stderr)
        XCTAssertTrue(loose.stderr.contains("keystore.insecure_entry"), loose.stderr)
        XCTAssertEqual(loose.out, "")
        let looseList = try Shell.run("keystore list --keystore \(dir)/a/b/ks")
        XCTAssertEqual(looseList.status, 64)
        XCTAssertEqual(looseList.records.map { $0["code"] as? String ?? $0["name"] as? String }, ["keystore.insecure_entry", "other"])
        XCTAssertEqual(looseList.records.first?["name"] as? String, "main")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: "\(dir)/a/b/ks/main.key")

        try FileManager.default.createSymbolicLink(atPath: "\(dir)/a/b/ks/link.key", withDestinationPath: "\(dir)/a/b/ks/other.key")
        let linked = try Shell.run("keystore list --keystore \(dir)/a/b/ks")
        XCTAssertEqual(linked.status, 64, linked.stderr)
        XCTAssertEqual(linked.records.map { $0["name"] as? String }, ["link", "main", "other"])
        XCTAssertEqual(linked.records.map { $0["type"] as? String }, ["error", "entry", "entry"])
        XCTAssertEqual(linked.records.first?["code"] as? String, "keystore.insecure_entry")
        XCTAssertEqual(try Shell.run("keystore export link \(store)").status, 64)
    }

    func testRoundTripAndUseFromOtherTools() throws {
        let add = try Shell.run(
            "keystore add main --birthday btc=840000 --birthday xmr=3100000 \(ks)", stdin: Shell.lines([["mnemonic": about]]))
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertFalse(add.out.contains("abandon"))
        let list = try Shell.run("keystore list --keystore \(dir)/ks")
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.records.map { $0["name"] as? String }, ["main"])
        XCTAssertEqual((list.records.first?["birthdays"] as? [String: Int])?["xmr"], 3_100_000)
        XCTAssertFalse(list.out.contains("abandon"))
        let export = try Shell.run("keystore export main \(ks)")
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertEqual(export.records.first?["mnemonic"] as? String, about)

        let viaWallet = try Shell.run("derive --wallet main \(ks) --purpose 84 --count 2")
        let viaPhrase = try Shell.run("derive --purpose 84 --count 2", stdin: Shell.lines([["mnemonic": about]]))
        XCTAssertEqual(viaWallet.status, 0, viaWallet.stderr)
        XCTAssertEqual(viaPhrase.status, 0, viaPhrase.stderr)
        XCTAssertEqual(viaWallet.records.count, 2)
        XCTAssertEqual(viaWallet.out, viaPhrase.out)
        let hash = String(repeating: "42", count: 32)
        let signed = try Shell.run(
            "sign-hash --wallet main \(ks) --path m/44h/60h/0h/0/0 | sign-hash verify --address 0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
            stdin: Shell.lines([["hash": hash]]))
        XCTAssertEqual(signed.status, 0, signed.stderr + signed.out)

        // Monero seed and view-only entries.
        let doc = try TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any]
        let keys = doc["keys"] as! [String: Any]
        XCTAssertEqual(
            try Shell.run("keystore add xmr --birthday xmr=0 \(ks)", stdin: Shell.lines([["mnemonic": keys["mnemonic"]!]])).status, 0)
        let stored = try Shell.run(
            "set -o pipefail; derive account --view-only --coin xmr --wallet xmr \(ks) | keystore add xmr-view \(ks)")
        XCTAssertEqual(stored.status, 0, stored.stderr)
        let view = try Shell.run("derive --wallet xmr-view \(ks) --account 1 --count 1")
        XCTAssertEqual(view.status, 0, view.stderr)
        XCTAssertEqual(view.records.count, 1)
        XCTAssertEqual(view.records.last?["address"] as? String, (doc["subaddresses_used"] as! [String: String])["(1,0)"])
        // The view-only entry kept the wallet's birthday, so scan-blocks needs no --birthday.
        let fixture = TestPaths.fixture("monero-regtest").path
        let scanned = try Shell.run(
            "scan-blocks --wallet xmr-view \(ks) --blocks \(fixture)/blocks.jsonl --txs \(fixture)/txs.jsonl --state-dir \(dir)/scan --lookahead 3,20"
        )
        XCTAssertEqual(scanned.status, 0, scanned.stderr)
        XCTAssertEqual(scanned.records.filter { $0["type"] as? String == "received" }.count, 12)
        XCTAssertEqual(scanned.records.last?["spends_known"] as? Bool, false)
        let listed = try Shell.run("keystore list --keystore \(dir)/ks")
        XCTAssertEqual(listed.records.map { $0["kind"] as? String }, ["bip39-mnemonic", "monero-seed", "monero-view"])
        XCTAssertEqual(listed.records.map { ($0["birthdays"] as? [String: Int])?["xmr"] }, [3_100_000, 0, 0])
    }

    /// `strings` over an entry file shows no phrase, seed or key.
    func testFileHoldsNoReadableSecret() throws {
        let generated = try Shell.run("mnemonic generate --words 24 --store w \(ks)")
        XCTAssertEqual(generated.status, 0, generated.stderr)
        let made = try Shell.run("set -o pipefail; keystore export w \(ks) | mnemonic to-seed")
        XCTAssertEqual(made.status, 0, made.stderr)
        let phrase = try XCTUnwrap(generated.records.first?["mnemonic"] as? String)
        let entropy = try XCTUnwrap(generated.records.first?["entropy"] as? String)
        let seed = try XCTUnwrap(made.records.first?["seed"] as? String)
        XCTAssertEqual(made.records.first?["mnemonic"] as? String, phrase)
        // The file is header ‖ metadata (clear, authenticated) ‖ sealed payload
        // (docs/keystore-format.md). The metadata's field names hold BIP39 words ("kind",
        // "name", "birth" in "birthdays"), so it is checked field by field, and the sealed part
        // for each word as a whole token (not as a substring, which chance can satisfy).
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/ks/w.key")))
        let metadataLength = Int(file[84]) | Int(file[85]) << 8 | Int(file[86]) << 16 | Int(file[87]) << 24
        let metadata = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(file[88..<(88 + metadataLength)])) as? [String: Any])
        XCTAssertEqual(Set(metadata.keys), ["birthdays", "created", "kind", "language", "name", "passphrase_protected"])
        XCTAssertEqual(metadata["kind"] as? String, "bip39-mnemonic")
        let sealed = Array(file[(92 + metadataLength)...])
        XCTAssertEqual(sealed.count, 32 + 16, "24 words seal 32 bytes of entropy and a 16-byte tag")
        let whole = String(decoding: file.map { (0x20..<0x7F).contains($0) ? $0 : 0x0A }, as: UTF8.self)
        XCTAssertFalse(whole.contains(phrase) || whole.contains(entropy) || whole.contains(seed))
        let tokens = { (bytes: ArraySlice<UInt8>) in
            Set(
                String(decoding: bytes.map { (0x61...0x7A).contains($0) ? $0 : 0x20 }, as: UTF8.self).split(separator: " ").map(String.init)
            )
        }
        // The metadata is exactly what the format says, with no room for a word of the phrase.
        XCTAssertEqual(metadata["name"] as? String, "w")
        XCTAssertEqual(metadata["language"] as? String, "english")
        XCTAssertEqual(metadata["passphrase_protected"] as? Bool, false)
        XCTAssertEqual((metadata["birthdays"] as? [String: Any])?.count, 0)
        XCTAssertNotNil(metadata["created"] as? Int)
        let sealedTokens = tokens(sealed[...])
        for word in phrase.split(separator: " ").map(String.init) {
            XCTAssertFalse(sealedTokens.contains(word), "the word \(word) is readable in the sealed part")
        }
        let mode = try FileManager.default.attributesOfItem(atPath: "\(dir)/ks/w.key")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
    }

    func testErrorsChangeNothing() throws {
        XCTAssertEqual(try Shell.run("keystore add main \(ks)", stdin: Shell.lines([["mnemonic": about]])).status, 0)
        let file = URL(fileURLWithPath: "\(dir)/ks/main.key")
        let before = try Data(contentsOf: file)
        try secret("wrong", "not the passphrase")
        let wrong = try Shell.run("keystore export main --keystore \(dir)/ks --keystore-pass-file \(dir)/wrong")
        XCTAssertEqual(wrong.status, 77)
        XCTAssertTrue(wrong.stderr.contains("keystore.wrong_passphrase"))
        XCTAssertEqual(wrong.out, "")
        XCTAssertEqual(
            try Shell.run("keystore passwd main --keystore \(dir)/ks --keystore-pass-file \(dir)/wrong --new-pass-file \(dir)/newpass")
                .status, 77)
        let exists = try Shell.run("keystore add main \(ks)", stdin: Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f"]]))
        XCTAssertEqual(exists.status, 73)
        XCTAssertEqual(try Data(contentsOf: file), before, "a failed command changed the file")
        XCTAssertEqual(try Shell.run("keystore export nope \(ks)").status, 66)
        XCTAssertEqual(try Shell.run("keystore add bad/name \(ks)", stdin: Data()).status, 64)

        // One flipped byte in the sealed part: refused, and the error says the file was altered.
        var damaged = before
        damaged[damaged.count - 5] ^= 0x40
        try damaged.write(to: file)
        let tampered = try Shell.run("keystore export main \(ks)")
        XCTAssertEqual(tampered.status, 65)
        XCTAssertTrue(tampered.stderr.contains("keystore.tampered"), tampered.stderr)
        try before.prefix(50).write(to: file)
        let cut = try Shell.run("keystore export main \(ks)")
        XCTAssertEqual(cut.status, 65)
        XCTAssertTrue(cut.stderr.contains("keystore.damaged"), cut.stderr)
        try before.write(to: file)

        XCTAssertEqual(try Shell.run("keystore passwd main \(ks) --new-pass-file \(dir)/newpass").status, 0)
        XCTAssertEqual(try Shell.run("keystore export main \(ks)").status, 77)
        XCTAssertEqual(try Shell.run("keystore export main --keystore \(dir)/ks --keystore-pass-file \(dir)/newpass").status, 0)
        XCTAssertEqual(try Shell.run("setsid -w keystore destroy main --keystore \(dir)/ks").status, 64, "destroy asks first")
        XCTAssertTrue(FileManager.default.fileExists(atPath: file.path))
        XCTAssertEqual(try Shell.run("keystore destroy main --yes --keystore \(dir)/ks").status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
    }

    /// A store that fails prints no phrase: the KeyStorer order.
    func testGenerateStoresBeforeShowing() throws {
        XCTAssertEqual(try Shell.run("keystore add taken \(ks)", stdin: Shell.lines([["mnemonic": about]])).status, 0)
        let refused = try Shell.run("mnemonic generate --store taken \(ks)")
        XCTAssertEqual(refused.status, 73)
        XCTAssertEqual(refused.out, "")
        let ok = try Shell.run("mnemonic generate --scheme monero --store m \(ks)")
        XCTAssertEqual(ok.status, 0, ok.stderr)
        let exported = try Shell.run("keystore export m \(ks)")
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertEqual(ok.records.count, 1)
        XCTAssertNotNil(ok.records.first?["mnemonic"] as? String)
        XCTAssertEqual(ok.records.first?["mnemonic"] as? String, exported.records.first?["mnemonic"] as? String)
        XCTAssertEqual(ok.records.first?["stored_as"] as? String, "m")
    }

    /// --confirm on a real terminal: a script answers the prompts with the right words, then
    /// with wrong ones.
    func testConfirmWordsOnATerminal() throws {
        let driver = """
            set -u
            answer() {  # $1: right or wrong
              coproc T { script -qfec "mnemonic generate --words 12 --store $2 --confirm \(ks); echo status=\\$?" /dev/null; }
              phrase=""
              while IFS= read -r -d $'\\n' -t 20 line <&"${T[0]}"; do
                case "$line" in *'"mnemonic":"'*) phrase=$(sed -E 's/.*"mnemonic":"([^"]*)".*/\\1/' <<<"$line"); break ;; esac
              done
              for k in 1 2 3; do
                IFS= read -r -d ':' -t 20 prompt <&"${T[0]}" || break
                n=$(grep -o 'Word [0-9]*' <<<"$prompt" | grep -o '[0-9]*$')
                if [ "$1" = right ]; then w=$(cut -d' ' -f"$n" <<<"$phrase"); else w=zzzz; fi
                printf '%s\\n' "$w" >&"${T[1]}"
                [ "$1" = wrong ] && break
              done
              cat <&"${T[0]}"
            }
            answer right one; answer wrong two
            """
        let r = try Shell.run(driver)
        let statuses = r.out.components(separatedBy: "status=").dropFirst().map { String($0.prefix(while: \.isNumber)) }
        XCTAssertEqual(statuses, ["0", "65"], r.out)
        XCTAssertTrue(r.out.contains("mnemonic.confirmation_failed"))
        XCTAssertEqual(
            try Shell.run("keystore list --keystore \(dir)/ks").records.map { $0["name"] as? String }, ["one", "two"],
            "the entry stays stored after a failed confirmation")
    }

    /// Two writers at once: the lock serialises them; both entries land, or the name clash is
    /// reported for exactly one.
    func testTwoWritersAtOnce() throws {
        let r = try Shell.run(
            """
            echo '{"mnemonic":"\(about)"}' > \(dir)/rec.json
            keystore add a \(ks) < \(dir)/rec.json > /dev/null 2>&1 & p1=$!
            keystore add b \(ks) < \(dir)/rec.json > /dev/null 2>&1 & p2=$!
            wait $p1; s1=$?; wait $p2; s2=$?
            keystore add c \(ks) < \(dir)/rec.json > /dev/null 2>&1 & p3=$!
            keystore add c \(ks) < \(dir)/rec.json > /dev/null 2>&1 & p4=$!
            wait $p3; s3=$?; wait $p4; s4=$?
            echo "$s1 $s2 $(( s3 + s4 ))"
            """)
        XCTAssertEqual(r.out, "0 0 73\n")
        let list = try Shell.run("keystore list --keystore \(dir)/ks")
        XCTAssertEqual(list.records.map { $0["name"] as? String }, ["a", "b", "c"])
        for name in ["a", "b", "c"] {
            XCTAssertEqual(try Shell.run("keystore export \(name) \(ks)").status, 0, name)
        }
    }

    func testHelpAndManPage() throws {
        for sub in ["", "add", "list", "export", "destroy", "passwd", "birthday"] {
            XCTAssertEqual(try Shell.run("keystore \(sub) --help").status, 0, sub)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: TestPaths.packageRoot.appendingPathComponent("man/keystore.1").path))
    }

    /// A destroy killed half-way left a damaged file that made list exit 65 until destroy ran
    /// again. Now the entry is moved aside first: killed at any moment, list shows the good
    /// entries with exit 0 (and a warning while a destroy is unfinished), and destroy finishes.
    func testKilledDestroyLeavesNoDamagedEntry() throws {
        XCTAssertEqual(try Shell.run("keystore add keep \(ks)", stdin: Shell.lines([["mnemonic": about]])).status, 0)
        for round in 0..<12 {
            let add = try Shell.run("keystore add gone \(ks)", stdin: Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f"]]))
            XCTAssertEqual(add.status, 0, add.stderr)
            // Killed after a staggered delay: before, during or after its work.
            _ = try Shell.run("timeout -s KILL 0.0\(round % 10)\(round) keystore destroy gone --yes \(ks)")
            let list = try Shell.run("keystore list \(ks)")
            XCTAssertEqual(list.status, 0, "round \(round): " + list.stderr)
            let names = list.records.compactMap { $0["name"] as? String }
            XCTAssertTrue(names.contains("keep"), "round \(round)")
            XCTAssertFalse(list.records.contains { $0["type"] as? String == "error" }, "round \(round): \(list.out)")
            let unfinished = list.stderr.contains(
                "keystore: warning: the destroy of 'gone' was interrupted; run keystore destroy gone to finish it")
            XCTAssertTrue(
                names.contains("gone") || unfinished || !FileManager.default.fileExists(atPath: "\(dir)/ks/.destroying-gone.key"),
                "round \(round)")
            // Whatever the kill left, destroy ends it.
            if names.contains("gone") || unfinished {
                let finish = try Shell.run("keystore destroy gone --yes \(ks)")
                XCTAssertEqual(finish.status, 0, "round \(round): " + finish.stderr)
            }
            let after = try Shell.run("keystore list \(ks)")
            XCTAssertEqual(after.status, 0)
            XCTAssertEqual(after.records.compactMap { $0["name"] as? String }, ["keep"], "round \(round)")
            XCTAssertEqual(after.stderr, "", "round \(round)")
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: "\(dir)/ks").filter { $0.hasSuffix(".key") }.sorted(), ["keep.key"])
        }
        // The state a kill right after the move leaves, made by hand: the same answers.
        XCTAssertEqual(
            try Shell.run("keystore add gone \(ks)", stdin: Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f"]])).status, 0)
        try FileManager.default.moveItem(atPath: "\(dir)/ks/gone.key", toPath: "\(dir)/ks/.destroying-gone.key")
        let list = try Shell.run("keystore list \(ks)")
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.records.compactMap { $0["name"] as? String }, ["keep"])
        XCTAssertEqual(list.stderr, "keystore: warning: the destroy of 'gone' was interrupted; run keystore destroy gone to finish it\n")
        let finish = try Shell.run("setsid -w keystore destroy gone \(ks) < /dev/null")
        XCTAssertEqual(finish.status, 0, "finishing asks nothing: " + finish.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(dir)/ks/.destroying-gone.key"))
        XCTAssertEqual(try Shell.run("keystore destroy gone --yes \(ks)").status, 66, "then it is gone")
    }

    /// An all-uppercase UFVK (valid Bech32m, as QR codes carry it) is one rule everywhere:
    /// keystore stores it as derive reads it; a mixed-case one is refused by both.
    func testUppercaseViewingKeysOneRule() throws {
        let w = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-sapling/wallet.json")) as? [String: Any])
        let ufvk = try XCTUnwrap((w["unified"] as? [String: Any])?["ufvk"] as? String)
        let lower = try Shell.run("derive --count 1", stdin: Shell.lines([["ufvk": ufvk]]))
        XCTAssertEqual(lower.status, 0, lower.stderr)
        let upper = try Shell.run("derive --count 1", stdin: Shell.lines([["ufvk": ufvk.uppercased()]]))
        XCTAssertEqual(upper.status, 0, upper.stderr)
        XCTAssertEqual(upper.records.first?["address"] as? String, lower.records.first?["address"] as? String)
        let add = try Shell.run("keystore add up \(ks)", stdin: Shell.lines([["ufvk": ufvk.uppercased()]]))
        XCTAssertEqual(add.status, 0, add.stderr)
        let stored = try Shell.run("derive --wallet up --count 1 \(ks)")
        XCTAssertEqual(stored.records.first?["address"] as? String, lower.records.first?["address"] as? String, stored.stderr)
        let mixed = String(ufvk.prefix(10)) + ufvk.dropFirst(10).uppercased()
        XCTAssertEqual(try Shell.run("derive --count 1", stdin: Shell.lines([["ufvk": mixed]])).status, 65)
        XCTAssertEqual(try Shell.run("keystore add mixed \(ks)", stdin: Shell.lines([["ufvk": mixed]])).status, 65)
    }
}
