import Bitcoin
import Foundation
import SatchelTestSupport
import WalletCore
import WalletKeys
import XCTest
import WalletCrypto

/// card-info through the real PC/SC stack: Debian's pcscd with vsmartcard's vpcd, and
/// Satchel's simulated Keycard behind it (scripts/virtual-keycard.sh). Secrets travel in 0600
/// credential files only; the test checks they never reach stdout, stderr or argv.
final class KeycardPCSCTests: XCTestCase {
    var dir = ""
    var keystore: String { "--keystore \(dir)/ks --keystore-pass-file \(dir)/kspass --kdf interactive" }

    override func setUpWithError() throws {
        // Not temporaryDirectory(_:): tearDown reads the stack's pid files here, after the
        // teardown blocks have run.
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-card-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try secretFile("creds.json", #"{"pin":"123456","puk":"123456789012","duress_pin":"654321","pairing_password":"KeycardTest"}"#)
        try secretFile("kspass", "key-store passphrase for the test")
        let status = try stack("start")
        let log = (try? String(contentsOfFile: "\(dir)/stack.err", encoding: .utf8)) ?? ""
        // A machine whose own pcscd is running and that cannot give ours a private mount
        // namespace (not root): skipped with the reason, never failed or hung.
        if status == 69, log.contains("a pcscd is running") { throw XCTSkip(log) }
        XCTAssertEqual(status, 0, "the virtual Keycard stack did not start: " + log)
        if status != 0 { throw XCTSkip("no PC/SC stack") }  // the failure above is recorded; skip the body
        // Our pcscd's socket, in its private /run/pcscd: every tool started from here uses it.
        let socket = "\(dir)/stack/run/pcscd.comm"
        if FileManager.default.fileExists(atPath: socket) { setenv("PCSCLITE_CSOCK_NAME", socket, 1) }
    }

    /// scripts/virtual-keycard.sh without pipes: its background children would hold a pipe
    /// open (Foundation leaks the pipe's descriptors into them) and a reader would never see EOF.
    private func stack(_ command: String) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", "exec scripts/virtual-keycard.sh \(command) \(dir)/stack 2> \(dir)/stack.err"]
        p.currentDirectoryURL = TestPaths.packageRoot
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = TestPaths.binDir.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        p.environment = env
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    override func tearDownWithError() throws {
        let pids = ["pcscd", "keycard-sim"].compactMap { try? String(contentsOfFile: "\(dir)/stack/\($0).pid", encoding: .utf8) }
            .compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        _ = try stack("stop")
        unsetenv("PCSCLITE_CSOCK_NAME")
        for pid in pids { XCTAssertNotEqual(kill(pid, 0), 0, "process \(pid) was left running") }
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func secretFile(_ name: String, _ text: String) throws {
        XCTAssertTrue(
            FileManager.default.createFile(atPath: "\(dir)/\(name)", contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
    }

    private func card(_ arguments: String, stdin: Data = Data()) throws -> Shell.Result {
        try Shell.run("card-info \(arguments)", stdin: stdin)
    }

    func testManagementThroughPCSC() throws {
        // A fresh card: the SELECT answer, the blank slot beside it.
        let fresh = try card("")
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        XCTAssertEqual(fresh.records.first?["initialized"] as? Bool, false)
        XCTAssertEqual(fresh.records.last?["keycard"] as? Bool, false)

        let initialized = try card("init --credentials-file \(dir)/creds.json")
        XCTAssertEqual(initialized.status, 0, initialized.stderr)
        XCTAssertEqual(initialized.records.first?["applet_version"] as? String, "3.2")
        XCTAssertEqual(initialized.records.first?["free_pairing_slots"] as? Int, 10)

        let paired = try card("pair --store my-card --credentials-file \(dir)/creds.json \(keystore)")
        XCTAssertEqual(paired.status, 0, paired.stderr)
        XCTAssertEqual(paired.records.first?["index"] as? Int, 0)
        let pairing = "--pairing my-card \(keystore)"

        // A wrong PIN says how many tries are left (exit 77); the right one verifies.
        try secretFile("wrong.json", #"{"pin":"000000"}"#)
        let wrong = try card("verify-pin \(pairing) --credentials-file \(dir)/wrong.json")
        XCTAssertEqual(wrong.status, 77)
        XCTAssertTrue(wrong.stderr.contains("2 tries left"), wrong.stderr)
        let right = try card("verify-pin \(pairing) --credentials-file \(dir)/creds.json")
        XCTAssertEqual(right.records.first?["pin_retries"] as? Int, 3, right.stderr)

        // No key on the card yet: derive --card says so, and how to load one.
        let keyless = try Shell.run("derive --card \(pairing) --credentials-file \(dir)/creds.json --coin eth")
        XCTAssertEqual(keyless.status, 69, keyless.stderr)
        XCTAssertTrue(
            keyless.stderr.contains(
                "card.no_key: the card holds no key: load one (card-info load-key, from a seed or phrase record) or make one on the card (card-info generate-key)"
            ), keyless.stderr)

        // The "abandon … about" seed; the key UID is SHA-256 of its master public key.
        let phrase = Shell.lines([
            ["mnemonic": TestPhrase.abandonAbout]
        ])
        let loaded = try card("load-key \(pairing) --credentials-file \(dir)/creds.json", stdin: phrase)
        XCTAssertEqual(
            loaded.records.first?["key_uid"] as? String, "16f5b9c7657df5e0b45016292d852a36622fb39b63c28017ccf21633270858f1", loaded.stderr)
        let status = try card(pairing)
        XCTAssertEqual(status.records.first?["key_loaded"] as? Bool, true)
        XCTAssertEqual(status.records.first?["pin_retries"] as? Int, 3)
        XCTAssertEqual(status.records.first?["free_pairing_slots"] as? Int, 9)

        // The card as a key source: derive exports m/44'/60'/0'/0 once and derives below it;
        // the address and key are BIP44's for this phrase (public key 0437b0bb…e024230).
        let cardKey = "--card \(pairing) --credentials-file \(dir)/creds.json"
        let derived = try Shell.run("derive \(cardKey) --coin eth --path m/44h/60h/0h/0/0")
        XCTAssertEqual(derived.records.first?["address"] as? String, "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", derived.stderr)
        XCTAssertEqual(
            derived.records.first?["public_key"] as? String, "0237b0bb7a8288d38ed49a524b5dc98cff3eb5ca824c9f9dc0dfdb3d9cd600f299")
        let segwit = try Shell.run("derive \(cardKey) --coin btc --purpose 84 --count 2")
        XCTAssertEqual(segwit.status, 0, segwit.stderr)
        XCTAssertEqual(
            segwit.records.map { $0["address"] as? String },
            ["bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"])
        // EXPORT KEY as the card writes it.
        let exported = try card("export-key \(pairing) --credentials-file \(dir)/creds.json --path m/44h/60h/0h/0/0")
        XCTAssertEqual(
            exported.records.first?["public_key"] as? String,
            "0437b0bb7a8288d38ed49a524b5dc98cff3eb5ca824c9f9dc0dfdb3d9cd600f299a6179912b7451c09896c4098eca7ce6b2e58330672795e847c4d6af44e024230",
            exported.stderr)
        // Private keys leave the card inside EIP-1581 only.
        let eip1581 = try Shell.run("derive \(cardKey) --coin eth --path m/43h/60h/1581h/0h/0 --private")
        XCTAssertEqual(
            eip1581.records.first?["private_key"] as? String, "20e61d44eb73cb7d5ff4526bac8c0b96451d8e018b2d6c79022e7ce3b583a754",
            eip1581.stderr)
        let refused = try Shell.run("derive \(cardKey) --coin eth --path m/44h/60h/0h/0/0 --private")
        XCTAssertEqual(refused.status, 76)
        XCTAssertTrue(refused.stderr.contains("card.conditions_not_satisfied"), refused.stderr)

        // Account discovery with the card's keys, against scan output naming used addresses.
        try segwit.stdout.write(to: URL(fileURLWithPath: "\(dir)/used.jsonl"))
        let discovered = try Shell.run("derive discover \(cardKey) --coin btc --purpose 84 --used \(dir)/used.jsonl")
        XCTAssertEqual(discovered.status, 0, discovered.stderr)
        XCTAssertEqual(discovered.records.first?["next_receive_index"] as? Int, 2, discovered.stderr)
        XCTAssertEqual(discovered.records.last?["next_account"] as? Int, 1)

        // Signing on the card: low-S, recovery id right (verify recovers the address from it).
        let hashes = Shell.lines((1...3).map { ["hash": String(repeating: "0", count: 63) + String($0)] })
        let signed = try Shell.run("sign-hash \(cardKey) --path m/44h/60h/0h/0/0", stdin: hashes)
        XCTAssertEqual(signed.records.count, 3, signed.stderr)
        for record in signed.records {
            let s = try XCTUnwrap(record["signature"] as? String).suffix(64)
            XCTAssertLessThanOrEqual(s, "7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0", "high S")
        }
        let verified = try Shell.run("sign-hash verify --address 0x9858EfFD232B4033E47d90003D41EC34EcaEda94", stdin: signed.stdout)
        XCTAssertEqual(verified.status, 0, verified.stderr)
        XCTAssertEqual(verified.records.filter { $0["valid"] as? Bool == true }.count, 3)
        // The other SIGN modes: derive and make current, then the current key; then PIN-less.
        let one = Shell.lines([["hash": String(repeating: "ab", count: 32)]])
        XCTAssertEqual(try Shell.run("sign-hash \(cardKey) --path m/44h/60h/0h/0/7 --make-current", stdin: one).status, 0)
        let noPinless = try Shell.run("sign-hash --card --pinless", stdin: one)
        XCTAssertEqual(noPinless.status, 76)
        XCTAssertEqual(noPinless.records.first?["code"] as? String, "card.no_pinless_path", noPinless.out)
        let current = try Shell.run("sign-hash \(cardKey)", stdin: one)
        let seventh = try Shell.run(
            "derive --coin eth --path m/44h/60h/0h/0/7",
            stdin: Shell.lines([
                ["mnemonic": TestPhrase.abandonAbout]
            ]))
        XCTAssertEqual(current.status, 0, current.stderr)
        XCTAssertEqual(seventh.status, 0, seventh.stderr)
        XCTAssertNotNil(seventh.records.first?["public_key"] as? String)
        XCTAssertEqual(current.records.first?["public_key"] as? String, seventh.records.first?["public_key"] as? String, current.stderr)
        // Paths in card-info's records as in every other record: m/44'/…, not m/44h/….
        XCTAssertEqual(try card(pairing).records.first?["current_path"] as? String, "m/44'/60'/0'/0/7")
        let setPinless = try card("set-pinless-path \(pairing) --credentials-file \(dir)/creds.json --path m/44h/60h/0h/0/0")
        XCTAssertEqual(setPinless.status, 0, setPinless.stderr)
        XCTAssertEqual(setPinless.records.first?["path"] as? String, "m/44'/60'/0'/0/0")
        let pinless = try Shell.run(
            "sign-hash --card --pinless | sign-hash verify --address 0x9858EfFD232B4033E47d90003D41EC34EcaEda94", stdin: one)
        XCTAssertEqual(pinless.status, 0, pinless.stderr)
        XCTAssertEqual(pinless.records.first?["valid"] as? Bool, true, pinless.stderr)
        XCTAssertEqual(pinless.records.first?["pinless"] as? Bool, true, pinless.out)
        XCTAssertNil(pinless.records.first?["path"])
        // A record naming a path: the PIN-less key may be another, so the record is refused.
        let named = try Shell.run(
            "sign-hash --card --pinless", stdin: Shell.lines([["hash": String(repeating: "ab", count: 32), "path": "m/44'/60'/0'/0/7"]]))
        XCTAssertEqual(named.status, 65)
        XCTAssertEqual(named.records.map { $0["code"] as? String }, ["record.conflicting_fields"])

        // sign-tx on the card: an Ethereum transaction and a PSBT, each the software key's own
        // (the card's nonces are RFC 6979, as the software key's without low-R grinding).
        try secretFile("phrase.json", String(decoding: phrase, as: UTF8.self))
        let ethTx = Shell.lines([
            [
                "eth_tx": [
                    "to": "0xF0109fC8DF283027b6285cc889F5aA624EaC1F55", "value": "1000", "nonce": 1, "gas": 21000,
                    "maxFeePerGas": "30000000000", "maxPriorityFeePerGas": "1000000000", "chainId": 1,
                ]
            ]
        ])
        let ethOnCard = try Shell.run("sign-tx \(cardKey) --path m/44h/60h/0h/0/0", stdin: ethTx)
        let ethInSoftware = try Shell.run("sign-tx --key-file \(dir)/phrase.json --path m/44h/60h/0h/0/0", stdin: ethTx)
        XCTAssertEqual(ethOnCard.status, 0, ethOnCard.stderr)
        XCTAssertEqual(ethOnCard.records.last?["raw"] as? String, ethInSoftware.records.last?["raw"] as? String)
        XCTAssertEqual(ethOnCard.records.last?["from"] as? String, "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        let key = try XCTUnwrap(segwit.records.first?["public_key"] as? String)  // m/84'/0'/0'/0/0
        let keyBytes = try Hex.decode(key)
        var psbt = try PSBT(
            unsignedTransaction: BitcoinTx(
                version: 2, inputs: [.init(previousTxID: [UInt8](repeating: 5, count: 32), previousIndex: 1)],
                outputs: [.init(value: 9_000, script: [0x00, 0x14] + [UInt8](repeating: 7, count: 20))], lockTime: 0))
        psbt.inputs[0].insertInOrder(
            PSBT.Pair(type: PSBTField.inWitnessUtxo, value: [0x10, 0x27, 0, 0, 0, 0, 0, 0, 22, 0x00, 0x14] + Hash.hash160(keyBytes)))
        let origin = try Hex.decode("73c5da0a" + "54000080" + "00000080" + "00000080" + "00000000" + "00000000")
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: keyBytes, value: origin))
        let record = Shell.lines([["psbt": psbt.base64]])
        let psbtOnCard = try Shell.run("sign-tx \(cardKey)", stdin: record)
        XCTAssertEqual(psbtOnCard.status, 0, psbtOnCard.stderr)
        XCTAssertEqual(psbtOnCard.records.last?["complete"] as? Bool, true)
        let signedPSBT = try PSBT(base64: try XCTUnwrap(psbtOnCard.records.last?["psbt"] as? String))
        let cardSignature = try XCTUnwrap(signedPSBT.inputs[0].all(PSBTField.inPartialSig).first?.value)
        let (inSoftware, _) = try PSBTSigner().sign(
            psbt,
            keys: try BIP32Keyring(
                root: try ExtendedKey.master(
                    seed: try BIP39().seed(
                        of: try BIP39().parse(
                            TestPhrase.abandonAbout,
                            language: "english"), passphrase: nil)),
                nonces: .rfc6979)
        ) { _ in }
        XCTAssertEqual(cardSignature, inSoftware.inputs[0].all(PSBTField.inPartialSig).first?.value)

        // A phrase from the card's TRNG, in another wordlist; it is a valid BIP39 phrase.
        let generated = try Shell.run("mnemonic generate --card --pairing my-card \(keystore) --words 12 --language french")
        XCTAssertEqual(generated.status, 0, generated.stderr)
        XCTAssertEqual((generated.records.first?["mnemonic"] as? String)?.split(separator: " ").count, 12)
        let checked = try Shell.run("mnemonic validate", stdin: generated.stdout)
        XCTAssertEqual(checked.records.first?["valid"] as? Bool, true, checked.out)
        XCTAssertEqual(checked.records.first?["language"] as? String, "french")

        // Unpairing our own slot frees it and destroys the now useless key-store entry.
        let unpaired = try card("unpair \(pairing) --credentials-file \(dir)/creds.json")
        XCTAssertEqual(unpaired.status, 0, unpaired.stderr)
        XCTAssertEqual(unpaired.records.first?["entry_destroyed"] as? String, "my-card")
        XCTAssertEqual(try card("").records.first?["free_pairing_slots"] as? Int, 10)

        // Factory reset needs --confirm.
        XCTAssertEqual(try card("factory-reset").status, 64)
        XCTAssertEqual(try card("factory-reset --confirm").status, 0)
        XCTAssertEqual(try card("").records.first?["initialized"] as? Bool, false)

        // No secret in any output.
        for r in [fresh, initialized, paired, wrong, right, loaded, status, derived, signed, exported, current, pinless, unpaired] {
            for secret in ["123456789012", "KeycardTest", "654321", "\"123456\""] {
                XCTAssertFalse(r.out.contains(secret) || r.stderr.contains(secret), "a secret was printed")
            }
        }
    }

    /// What the genuine applet 3.2 does differently from the first simulator, through PC/SC:
    /// derive --card at paths without a hardened step, with a hardened last step and inside
    /// EIP-1581 gives software BIP32's keys; the master chain code is never asked for; a new
    /// PIN equal to the duress PIN, a malformed PIN, an unblock of a PIN that is not blocked and
    /// a reader that matches nothing are refused with what to do.
    func testWhereTheGenuineAppletDiffers() throws {
        XCTAssertEqual(try card("init --credentials-file \(dir)/creds.json").status, 0)
        XCTAssertEqual(try card("pair --store c --credentials-file \(dir)/creds.json \(keystore)").status, 0)
        let pairing = "--pairing c \(keystore)"
        let about = TestPhrase.abandonAbout
        XCTAssertEqual(
            try card("load-key \(pairing) --credentials-file \(dir)/creds.json", stdin: Shell.lines([["mnemonic": about]])).status, 0)
        let cardKey = "--card \(pairing) --credentials-file \(dir)/creds.json"
        for (flags, count) in [
            ("--purpose 84 --path m/0/0-2", 3), ("--coin eth --path m/44h/60h/0h", 1), ("--coin eth --path m/43h/60h/1581h/0h/0h", 1),
            ("--coin eth --path m/43h/60h/1581h/0h/0", 1), ("--coin eth --path m/7", 1), ("--coin eth --path m", 1),
        ] {
            let fromCard = try Shell.run("derive \(cardKey) \(flags)")
            let fromPhrase = try Shell.run("derive \(flags)", stdin: Shell.lines([["mnemonic": about]]))
            XCTAssertEqual(fromCard.status, 0, flags + fromCard.stderr)
            XCTAssertEqual(fromPhrase.status, 0, flags + fromPhrase.stderr)
            XCTAssertEqual(fromCard.records.count, count, flags)
            XCTAssertEqual(fromCard.records.map { $0["address"] as? String }, fromPhrase.records.map { $0["address"] as? String }, flags)
            XCTAssertEqual(
                fromCard.records.map { $0["public_key"] as? String }, fromPhrase.records.map { $0["public_key"] as? String }, flags)
        }
        let atMaster = try card("export-key \(pairing) --credentials-file \(dir)/creds.json --path m --extended")
        XCTAssertEqual(atMaster.status, 64, atMaster.stderr)
        XCTAssertEqual(atMaster.out, "")

        try secretFile("duress.json", #"{"pin":"123456","new_pin":"654321","duress_pin":"654321"}"#)
        let same = try card("change-pin \(pairing) --credentials-file \(dir)/duress.json")
        XCTAssertEqual(same.status, 64, same.stderr)
        XCTAssertTrue(same.stderr.contains("card.bad_credential"), same.stderr)
        try secretFile("short.json", #"{"pin":"12345"}"#)
        let short = try card("verify-pin \(pairing) --credentials-file \(dir)/short.json")
        XCTAssertEqual(short.status, 64, short.stderr)
        XCTAssertTrue(short.stderr.contains("pin must be 6 digits"), short.stderr)
        try secretFile("unblock.json", #"{"puk":"123456789012","new_pin":"111111"}"#)
        let notBlocked = try card("unblock-pin \(pairing) --credentials-file \(dir)/unblock.json")
        XCTAssertEqual(notBlocked.status, 76, notBlocked.stderr)
        XCTAssertTrue(notBlocked.stderr.contains("card.pin_not_blocked"), notBlocked.stderr)
        // None of these cost a PIN try.
        XCTAssertEqual(try card("verify-pin \(pairing) --credentials-file \(dir)/creds.json").records.first?["pin_retries"] as? Int, 3)

        let noSuch = try card("--reader no-such-reader")
        XCTAssertEqual(noSuch.status, 69)
        XCTAssertTrue(noSuch.stderr.contains("card.no_such_reader"), noSuch.stderr)
        let readers = try card("").records.compactMap { $0["reader"] as? String }
        XCTAssertFalse(readers.isEmpty)
        for name in readers { XCTAssertTrue(noSuch.stderr.contains(name), noSuch.stderr) }
    }

    func testBlockedPINAndThePUK() throws {
        XCTAssertEqual(try card("init --credentials-file \(dir)/creds.json").status, 0)
        XCTAssertEqual(try card("pair --store c --credentials-file \(dir)/creds.json \(keystore)").status, 0)
        try secretFile("wrong.json", #"{"pin":"000000"}"#)
        let pairing = "--pairing c \(keystore)"
        var messages = [String]()
        for _ in 0..<3 { messages.append(try card("verify-pin \(pairing) --credentials-file \(dir)/wrong.json").stderr) }
        XCTAssertTrue(messages[1].contains("1 try left"), messages[1])
        XCTAssertTrue(messages[2].contains("card.pin_blocked"), messages[2])
        XCTAssertTrue(try card("verify-pin \(pairing) --credentials-file \(dir)/creds.json").stderr.contains("card.pin_blocked"))
        try secretFile("unblock.json", #"{"puk":"123456789012","new_pin":"111111"}"#)
        let unblocked = try card("unblock-pin \(pairing) --credentials-file \(dir)/unblock.json")
        XCTAssertEqual(unblocked.records.first?["pin_retries"] as? Int, 3, unblocked.stderr)
        try secretFile("new.json", #"{"pin":"111111"}"#)
        XCTAssertEqual(try card("verify-pin \(pairing) --credentials-file \(dir)/new.json").status, 0)

        // The pairing kept after a factory reset: another applet instance, named as such.
        let before = try XCTUnwrap(try card("").records.first?["instance_uid"] as? String)
        XCTAssertEqual(try card("factory-reset --confirm").status, 0)
        XCTAssertEqual(try card("init --credentials-file \(dir)/creds.json").status, 0)
        let after = try XCTUnwrap(try card("").records.first?["instance_uid"] as? String)
        let stale = try card("verify-pin \(pairing) --credentials-file \(dir)/creds.json")
        XCTAssertEqual(stale.status, 77, stale.stderr)
        XCTAssertTrue(
            stale.stderr.contains(
                "card.other_instance: the pairing was made with card instance \(before), and this card is instance \(after) (another card, or this one after a factory reset): pair again (card-info pair --store NAME)"
            ), stale.stderr)
    }

    /// An independent client: the PyPI keycard SDK (on Debian's pyscard) sets the simulated
    /// card up through pcscd and checks its answers with its own code; then Satchel pairs with
    /// that card and derives the same key. The SDK goes into .build/keycard-sdk-venv once.
    func testPyPIKeycardSDKThroughPCSC() throws {
        let venv = TestPaths.packageRoot.appendingPathComponent(".build/keycard-sdk-venv").path
        if !FileManager.default.fileExists(atPath: venv + "/bin/python") {
            let made = try Shell.run("/usr/bin/python3 -m venv --system-site-packages \(venv) && \(venv)/bin/pip install -q keycard==0.4.0")
            XCTAssertEqual(made.status, 0, "the keycard SDK could not be installed from PyPI: " + made.stderr)
        }
        let sdk = try Shell.run("\(venv)/bin/python scripts/keycard-sdk-check.py")
        XCTAssertEqual(sdk.status, 0, sdk.stderr)
        XCTAssertEqual(
            sdk.records.first?["public_key"] as? String,
            "0437b0bb7a8288d38ed49a524b5dc98cff3eb5ca824c9f9dc0dfdb3d9cd600f299a6179912b7451c09896c4098eca7ce6b2e58330672795e847c4d6af44e024230"
        )
        // Satchel on the card the SDK set up: same pairing token, same key.
        let info = try card("")
        XCTAssertEqual(info.records.first?["key_uid"] as? String, "16f5b9c7657df5e0b45016292d852a36622fb39b63c28017ccf21633270858f1")
        XCTAssertEqual(info.records.first?["free_pairing_slots"] as? Int, 9)
        XCTAssertEqual(try card("pair --store sdk-card --credentials-file \(dir)/creds.json \(keystore)").status, 0)
        let derived = try Shell.run(
            "derive --card --pairing sdk-card \(keystore) --credentials-file \(dir)/creds.json --coin eth --path m/44h/60h/0h/0/0")
        XCTAssertEqual(derived.records.first?["address"] as? String, "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", derived.stderr)
    }

    /// Secrets have no command-line options: each of these is a usage error, not a way in.
    func testNoSecretOnTheCommandLine() throws {
        for line in [
            "card-info init --pin 123456", "card-info init --puk 123456789012", "card-info pair --store x --pairing-password KeycardTest",
            "card-info verify-pin --pairing x --pin 123456", "derive --card --pairing x --pin 123456",
            "sign-hash --card --pairing x --pin 123456",
        ] {
            let r = try Shell.run(line)
            XCTAssertEqual(r.status, 64, line)
            XCTAssertFalse(r.stderr.contains("123456789012") || r.stderr.contains("KeycardTest"), "a secret was echoed: \(line)")
        }
    }

    func testNoReaderOrCardIsUnavailable() throws {
        _ = try stack("stop")
        let r = try card("")
        XCTAssertEqual(r.status, 69)
        XCTAssertTrue(r.stderr.contains("card.no_reader"), r.stderr)
    }

    private func freeSlots() throws -> Int? {
        try card("").records.compactMap { $0["free_pairing_slots"] as? Int }.first
    }

    /// PAIR takes one of the card's 10 slots: a name already in the key store is refused
    /// before it, and a pairing that cannot be stored (here: a full disk) gives its slot back.
    func testPairingSlotsAreNeverLeftTaken() throws {
        XCTAssertEqual(try card("init --credentials-file \(dir)/creds.json").status, 0)
        XCTAssertEqual(try card("pair --store c --credentials-file \(dir)/creds.json \(keystore)").status, 0)
        let before = try XCTUnwrap(try freeSlots())
        let again = try card("pair --store c --credentials-file \(dir)/creds.json \(keystore)")
        XCTAssertEqual(again.status, 73, again.stderr)
        XCTAssertTrue(again.stderr.contains("keystore.entry_exists"), again.stderr)
        XCTAssertEqual(try freeSlots(), before, "a refused name took a slot")

        // A key store on a full file system: the entry cannot be written after PAIR.
        let full = "\(dir)/full"
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        let script = """
            set -e; mount -t tmpfs -o size=64k,mode=0700 tmpfs \(full); mkdir -m 0700 \(full)/ks
            dd if=/dev/zero of=\(full)/fill bs=4k count=64 2>/dev/null || true
            card-info pair --store d --credentials-file \(dir)/creds.json --keystore \(full)/ks --keystore-pass-file \(dir)/kspass --kdf interactive
            """
        let failed = try Shell.run("unshare --mount --propagation private bash -c '\(script)'")
        XCTAssertNotEqual(failed.status, 0, failed.stderr)
        XCTAssertTrue(failed.stderr.contains("keystore."), failed.stderr)
        XCTAssertEqual(failed.out, "")
        XCTAssertEqual(try freeSlots(), before, "the slot of a pairing that was not kept stays taken")
        // The first pairing still works.
        XCTAssertEqual(try card("verify-pin --pairing c --credentials-file \(dir)/creds.json \(keystore)").status, 0)
    }

    /// CHANGE PIN changes the PIN that opened the session: after a duress unlock, a new PIN
    /// equal to the main PIN would make the main PIN open the duress wallet. Refused, at the
    /// cost of no PIN try; the record says which PIN was changed.
    func testChangePINAfterADuressUnlock() throws {
        XCTAssertEqual(try card("init --credentials-file \(dir)/creds.json").status, 0)
        XCTAssertEqual(try card("pair --store c --credentials-file \(dir)/creds.json \(keystore)").status, 0)
        let pairing = "--pairing c \(keystore)"
        try secretFile("duress-main.json", #"{"pin":"654321","new_pin":"123456"}"#)
        let refused = try card("change-pin \(pairing) --credentials-file \(dir)/duress-main.json")
        XCTAssertEqual(refused.status, 64, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("card.bad_credential: the new PIN already opens this card"), refused.stderr)
        // The main PIN still opens the main wallet, with every try left.
        let about = TestPhrase.abandonAbout
        XCTAssertEqual(
            try card("load-key \(pairing) --credentials-file \(dir)/creds.json", stdin: Shell.lines([["mnemonic": about]])).status, 0)
        let main = try Shell.run("derive --card \(pairing) --credentials-file \(dir)/creds.json --coin eth")
        XCTAssertEqual(main.records.first?["address"] as? String, "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", main.stderr)
        XCTAssertEqual(try card("verify-pin \(pairing) --credentials-file \(dir)/creds.json").records.first?["pin_retries"] as? Int, 3)

        // Changing the duress PIN to a new value: said, and the main PIN is untouched.
        try secretFile("duress-new.json", #"{"pin":"654321","new_pin":"222222","duress_pin":"654321"}"#)
        let duress = try card("change-pin \(pairing) --credentials-file \(dir)/duress-new.json")
        XCTAssertEqual(duress.status, 0, duress.stderr)
        XCTAssertEqual(duress.records.first?["changed"] as? String, "duress")
        try secretFile("new-duress.json", #"{"pin":"222222"}"#)
        let duressWallet = try Shell.run("derive --card \(pairing) --credentials-file \(dir)/new-duress.json --coin eth")
        XCTAssertEqual(duressWallet.status, 0, duressWallet.stderr)
        XCTAssertNotEqual(duressWallet.records.first?["address"] as? String, "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        XCTAssertEqual(
            try Shell.run("derive --card \(pairing) --credentials-file \(dir)/creds.json --coin eth").records.first?["address"] as? String,
            "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        // Without duress_pin in the record, which PIN opened the session is not known: said so.
        try secretFile("main-new.json", #"{"pin":"123456","new_pin":"333333"}"#)
        let unknown = try card("change-pin \(pairing) --credentials-file \(dir)/main-new.json")
        XCTAssertEqual(unknown.status, 0, unknown.stderr)
        XCTAssertEqual(unknown.records.first?["changed"] as? String, "the_verified_one")
        try secretFile("main3.json", #"{"pin":"333333"}"#)
        XCTAssertEqual(try card("verify-pin \(pairing) --credentials-file \(dir)/main3.json").records.first?["pin_retries"] as? Int, 3)
    }

    /// A batch of signatures that loses the card stops with one error, whatever took it:
    /// another program's SELECT, a reset, the card gone.
    func testABatchThatLosesTheCardStopsOnce() throws {
        XCTAssertEqual(try card("init --credentials-file \(dir)/creds.json").status, 0)
        XCTAssertEqual(try card("pair --store c --credentials-file \(dir)/creds.json \(keystore)").status, 0)
        let about = TestPhrase.abandonAbout
        XCTAssertEqual(
            try card("load-key --pairing c \(keystore) --credentials-file \(dir)/creds.json", stdin: Shell.lines([["mnemonic": about]]))
                .status, 0)
        let resetCard = """
            /usr/bin/python3 -c 'from smartcard.System import readers
            from smartcard.scard import SCARD_RESET_CARD, SCARD_SHARE_SHARED
            for r in readers():
                c = r.createConnection(); c.connect(mode=SCARD_SHARE_SHARED); c.reconnect(mode=SCARD_SHARE_SHARED, disposition=SCARD_RESET_CARD)'
            """
        // The card pulled out in the middle of the signer's next command (keycard-sim's SIGUSR1):
        // the loss reaches the signer in its own exchange. (Killing keycard-sim made pcscd
        // abort, vpcd's doing, a few tenths of a second later: under load the signer's next
        // exchange came after that and found no pcscd, card.no_reader, once in a full run.)
        let pullCard = "kill -USR1 $(cat \(dir)/stack/keycard-sim.pid)"
        for (what, action, code, status) in [
            ("another program selects the applet", "card-info > /dev/null", "card.channel_not_open", 69),
            ("a reset", resetCard, "card.reset", 69),
            ("the card gone", pullCard, "card.no_card", 69),
        ] {
            let hash = String(repeating: "ab", count: 32)
            let line = #"{"hash":"\#(hash)"}"#
            let script = """
                rm -f \(dir)/in; mkfifo \(dir)/in
                sign-hash --card --pairing c \(keystore) --credentials-file \(dir)/creds.json --path m/44h/60h/0h/0/0 < \(dir)/in > \(dir)/out 2> \(dir)/err &
                signer=$!
                exec 3> \(dir)/in
                echo '\(line)' >&3; echo '\(line)' >&3
                for i in $(seq 300); do [ "$(wc -l < \(dir)/out)" -ge 2 ] && break; sleep 0.1; done
                \(action)
                trap '' PIPE
                printf '%s\n' '\(line)' '\(line)' '\(line)' '\(line)' '\(line)' >&3 2> /dev/null
                exec 3>&-
                wait $signer; echo "rc=$?"
                """
            // The signer may stop at line 3 while the shell still writes: one write, and no SIGPIPE
            // (which killed the shell silently, once, under load).
            let r = try Shell.run(script)
            XCTAssertEqual(r.status, 0, what + r.stderr)
            XCTAssertEqual(r.out, "rc=\(status)\n", what + r.stderr)
            let out = try String(contentsOfFile: "\(dir)/out", encoding: .utf8).split(separator: "\n").map {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:]
            }
            XCTAssertEqual(out.map { $0["type"] as? String }, ["signature", "signature", "error"], what)
            let pcscdLog = (try? String(contentsOfFile: "\(dir)/stack/pcscd.log", encoding: .utf8)) ?? ""
            XCTAssertEqual(out.last?["code"] as? String, code, what + " \(out.last ?? [:])\npcscd.log:\n" + pcscdLog)
            XCTAssertEqual(out.last?["line"] as? Int, 3, what)
            let err = try String(contentsOfFile: "\(dir)/err", encoding: .utf8)
            XCTAssertEqual(err.split(separator: "\n").count, 2, what + err)
            XCTAssertTrue(err.hasSuffix("sign-hash: stopped at <stdin>:3: the records after it were not processed\n"), what + err)
            if what == "the card gone" { break }
        }
    }
}
