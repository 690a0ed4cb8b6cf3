import Foundation
import DeriveRecords
import KeySources
import QRRecords
import ScanRecords
import WalletCore
import WalletKeys
import WalletQR
import WalletUR
import XCTest
import WalletRecords
import SatchelTestSupport

/// derive's records, made from the library as derive makes them: BIP84's test vectors.
final class DeriveRecordsTests: XCTestCase {
    private let phrase = JSONObject([
        "mnemonic": .string(TestPhrase.abandonAbout),
        "id": .string("mine"),
    ])

    private func collect(_ body: ((JSONObject) throws(CLIError) -> Void) throws -> Void) throws -> [JSONObject] {
        var out = [JSONObject]()
        try body { (record: JSONObject) throws(CLIError) in out.append(record) }
        return out
    }

    func testBIP84Addresses() throws {
        let options = try ChainOptions.parse(["--purpose", "84"])
        let request = AddressRequest(chainOptions: options, chains: [0, 1], index: 0, count: 2)
        let records = try collect {
            try request.addresses(phrase, keys: DeriveKeys(records: options.recordKeys(sharedPassphrase: nil)), emit: $0)
        }
        XCTAssertEqual(
            records.map { $0["path"]?.stringValue }, ["m/84'/0'/0'/0/0", "m/84'/0'/0'/0/1", "m/84'/0'/0'/1/0", "m/84'/0'/0'/1/1"])
        XCTAssertEqual(records[0]["address"]?.stringValue, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        XCTAssertEqual(records[1]["address"]?.stringValue, "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g")
        XCTAssertEqual(records[2]["address"]?.stringValue, "bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el")
        XCTAssertEqual(records[0]["public_key"]?.stringValue, "0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c")
        // The user's field passes; the phrase does not; no private key without --private.
        XCTAssertEqual(records[0]["id"]?.stringValue, "mine")
        XCTAssertNil(records[0]["mnemonic"])
        XCTAssertNil(records[0]["private_key"])
        XCTAssertEqual(records[0]["type"]?.stringValue, "address")
    }

    /// --purpose 352: the "abandon … about" receiver's keys and addresses as BlindBit-App's
    /// tests give them (setavenger/BlindBit-App tests/lib/practical-tests/app-setup/
    /// 02generateSilentPaymentAddress.js: coin type 0, tsp), an independent implementation;
    /// a watch-only account record gives the same labeled addresses as the seed.
    func testSilentPaymentKeysAndAddresses() throws {
        let test = try ChainOptions.parse(["--purpose", "352", "--network", "test", "--coin-type", "0"])
        let account = try AccountRequest(chainOptions: test, viewOnly: true).account(
            phrase, keys: DeriveKeys(records: test.recordKeys(sharedPassphrase: nil)))
        XCTAssertEqual(
            account["address"]?.stringValue,
            "tsp1qqfqnnv8czppwysafq3uwgwvsc638hc8rx3hscuddh0xa2yd746s7xqh6yy9ncjnqhqxazct0fzh98w7lpkm5fvlepqec2yy0sxlq4j6ccc9c679n")
        XCTAssertEqual(account["sp_scan_key"]?.stringValue, "78e7fd7d2b7a2c1456709d147021a122d2dccaafeada040cc1002083e2833b09")
        XCTAssertNil(account["sp_spend_key"])
        XCTAssertEqual(account["scan_path"]?.stringValue, "m/352'/0'/0'/1'/0")
        XCTAssertEqual(account["spend_path"]?.stringValue, "m/352'/0'/0'/0'/0")
        XCTAssertNil(account["mnemonic"])
        let full = try AccountRequest(chainOptions: ChainOptions.parse(["--purpose", "352", "--private"])).account(
            phrase, keys: DeriveKeys(records: test.recordKeys(sharedPassphrase: nil)))
        XCTAssertEqual(full["sp_spend_key"]?.stringValue, "c88567742d5019d7ccc81f6e82cef8ef01997a6a3761cc9166036b580549539b")
        // BIP392: spscan with --view-only, spspend with --private (embit's texts, as in
        // BitcoinTests' SilentPaymentDescriptorTests).
        XCTAssertEqual(
            account["descriptor"]?.stringValue,
            "sp([73c5da0a/352'/0'/0']tspscan1q0rnl6lft0gkpg4nsn528qgdpytfdej40atdqgrxpqqsg8c5r8vys973ppv7y5c9cphgkzm6g4efmhhcdkazt87ggxwz3pruphc9vkkxx3tpsdj)#tph337zw"
        )
        XCTAssertEqual(
            full["descriptor"]?.stringValue,
            "sp([73c5da0a/352'/0'/0']spspend1q0rnl6lft0gkpg4nsn528qgdpytfdej40atdqgrxpqqsg8c5r8vyu3pt8wsk4qxwhenyp7m5zemuw7qve0f4rwcwvj9nqx66cq4y48xcdu9qer)#5lme3500"
        )
        let publicOnly = try AccountRequest(chainOptions: test).account(
            phrase, keys: DeriveKeys(records: test.recordKeys(sharedPassphrase: nil)))
        XCTAssertNil(publicOnly["descriptor"])  // BIP392's forms all hold the scan private key
        // The descriptor alone is the receiver: the same account, and its origin kept.
        let fromDescriptor = try AccountRequest(chainOptions: test, viewOnly: true).account(
            JSONObject(["descriptor": account["descriptor"]!]), keys: DeriveKeys(records: test.recordKeys(sharedPassphrase: nil)))
        XCTAssertEqual(fromDescriptor["address"], account["address"])
        XCTAssertEqual(fromDescriptor["descriptor"], account["descriptor"])
        XCTAssertEqual(fromDescriptor["sp_scan_key"], account["sp_scan_key"])
        // A spspend descriptor in, no secret out without --view-only or --private.
        let spendIn = try AccountRequest(chainOptions: ChainOptions.parse(["--purpose", "352"])).account(
            JSONObject(["descriptor": full["descriptor"]!]), keys: DeriveKeys(records: test.recordKeys(sharedPassphrase: nil)))
        XCTAssertEqual(spendIn["address"], full["address"])
        XCTAssertNil(spendIn["descriptor"])
        XCTAssertNil(spendIn["sp_scan_key"])
        // The network the descriptor names is the record's.
        XCTAssertThrowsError(
            try AccountRequest(chainOptions: ChainOptions.parse(["--purpose", "352"])).account(
                JSONObject(["descriptor": account["descriptor"]!]), keys: DeriveKeys(records: test.recordKeys(sharedPassphrase: nil)))
        ) {
            XCTAssertEqual(
                ($0 as? DerivationError)?.message,
                "the sp() descriptor is for a test network, and the record's network is the main one (give --network)")
        }
        XCTAssertEqual(
            full["address"]?.stringValue,
            "sp1qqfqnnv8czppwysafq3uwgwvsc638hc8rx3hscuddh0xa2yd746s7xqh6yy9ncjnqhqxazct0fzh98w7lpkm5fvlepqec2yy0sxlq4j6ccc3h6t0g")

        let labeled = SilentPaymentRequest(chainOptions: test, labels: [1, 7])
        let fromSeed = try collect {
            try labeled.addresses(phrase, keys: DeriveKeys(records: test.recordKeys(sharedPassphrase: nil)), emit: $0)
        }
        let watchOnly = try collect {
            try labeled.addresses(account, keys: DeriveKeys(records: test.recordKeys(sharedPassphrase: nil)), emit: $0)
        }
        XCTAssertEqual(fromSeed.map { $0["label"] }, [.number("1"), .number("7")])
        XCTAssertEqual(fromSeed.map { $0["address"]?.stringValue }, watchOnly.map { $0["address"]?.stringValue })
        XCTAssertNotEqual(fromSeed[0]["address"], fromSeed[1]["address"])
        XCTAssertNil(watchOnly[0]["sp_scan_key"])  // the secrets do not pass through
        XCTAssertNil(watchOnly[0]["descriptor"])
        XCTAssertEqual(watchOnly[0]["id"]?.stringValue, "mine")
        // Not from an xpub: the paths are hardened.
        XCTAssertThrowsError(
            try collect {
                try labeled.addresses(
                    JSONObject([  // BIP32 test vector 1's master
                        "xpub": .string(
                            "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8"
                        )
                    ]),
                    keys: DeriveKeys(records: test.recordKeys(sharedPassphrase: nil)), emit: $0)
            })
    }

    /// --ur: the descriptor a crypto-output carries is the record's receive descriptor; the
    /// crypto-hdkey of m/44'/60'/0' is MetaMask's pairing (origin, source fingerprint, children
    /// 0/*, note); testnet keys say so in use-info; an xpub without origin has no source.
    func testAccountURs() throws {
        for (args, script) in [
            (["--purpose", "84"], "wpkh"), (["--purpose", "86"], "tr"), (["--purpose", "49", "--network", "test"], "sh"),
        ] {
            let options = try ChainOptions.parse(args)
            let record = try AccountRequest(chainOptions: options, ur: .cryptoOutput).account(
                phrase, keys: DeriveKeys(records: options.recordKeys(sharedPassphrase: nil)))
            guard case .single(let ur) = try URText(try XCTUnwrap(record["ur"]?.stringValue)) else { return XCTFail("a multipart UR") }
            let text = try OutputDescriptor(ur: ur).text
            XCTAssertEqual(text + "#", String(record["descriptor"]!.stringValue!.prefix(text.count + 1)), args.joined(separator: " "))
            XCTAssertTrue(text.hasPrefix(script + "("), text)
        }
        let eth = try ChainOptions.parse(["--coin", "eth"])
        let record = try AccountRequest(chainOptions: eth, ur: .cryptoHDKey).account(
            phrase, keys: DeriveKeys(records: eth.recordKeys(sharedPassphrase: nil)))
        guard case .single(let ur) = try URText(try XCTUnwrap(record["ur"]?.stringValue)) else { return XCTFail("a multipart UR") }
        let key = try HDKey(ur: ur)
        XCTAssertEqual(key.origin?.text, "44'/60'/0'")
        XCTAssertEqual(key.origin?.sourceFingerprint, 0x73c5_da0a)
        XCTAssertEqual(key.children?.text, "0/*")
        XCTAssertEqual(key.note, "account.standard")
        XCTAssertEqual(key.useInfo, CoinInfo(type: 60, network: 0))
        XCTAssertEqual(key.extendedKeyText, record["xpub"]?.stringValue)
        // From an xpub alone: no source fingerprint, and crypto-account needs the seed.
        let xpub = JSONObject(["extended_key": .string(record["xpub"]!.stringValue!)])
        let watch = try AccountRequest(chainOptions: try ChainOptions.parse(["--purpose", "84"]), ur: .cryptoHDKey).account(
            xpub, keys: DeriveKeys(records: eth.recordKeys(sharedPassphrase: nil)))
        XCTAssertNil(
            try HDKey(ur: try UR(type: "crypto-hdkey", cbor: try XCTUnwrap(urBody(watch["ur"]?.stringValue)))).origin?.sourceFingerprint)
        XCTAssertThrowsError(
            try AccountRequest(chainOptions: try ChainOptions.parse(["--purpose", "84"]), ur: .cryptoAccount).account(
                xpub, keys: DeriveKeys(records: eth.recordKeys(sharedPassphrase: nil))))
    }

    private func urBody(_ text: String?) throws -> [UInt8]? {
        guard let text, case .single(let ur) = try URText(text) else { return nil }
        return ur.cbor
    }

    func testBIP84AccountAndPrivateKey() throws {
        let options = try ChainOptions.parse(["--purpose", "84", "--private"])
        let account = try AccountRequest(chainOptions: options).account(
            phrase, keys: DeriveKeys(records: options.recordKeys(sharedPassphrase: nil)))
        XCTAssertEqual(
            account["zpub"]?.stringValue,
            "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs")
        XCTAssertEqual(account["path"]?.stringValue, "m/84'/0'/0'")
        XCTAssertEqual(account["master_fingerprint"]?.stringValue, "73c5da0a")
        // An address from the account record: the account's fields are not carried over.
        let fromAccount = try collect {
            try AddressRequest(chainOptions: ChainOptions.parse([])).addresses(
                account, keys: DeriveKeys(records: options.recordKeys(sharedPassphrase: nil)), emit: $0)
        }
        XCTAssertEqual(fromAccount.count, 1)
        XCTAssertEqual(fromAccount[0]["address"]?.stringValue, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        // The account record's path places its xpub in the tree.
        XCTAssertEqual(fromAccount[0]["path"]?.stringValue, "m/84'/0'/0'/0/0")
        XCTAssertEqual(Set(fromAccount[0].keys).intersection(AccountFields.names), [])
        XCTAssertNil(fromAccount[0]["xprv"])
        let first = try collect {
            try AddressRequest(chainOptions: options).addresses(
                phrase, keys: DeriveKeys(records: options.recordKeys(sharedPassphrase: nil)), emit: $0)
        }
        XCTAssertEqual(first[0]["wif"]?.stringValue, "KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d")
    }

    func testDiscoveryRecords() throws {
        let options = try ChainOptions.parse(["--purpose", "84"])
        // 0/1 used (upper-case bech32, as from a QR code) and change 1/0; account 1 unused.
        let used = try UsedAddresses.parse(
            """
            BC1QNJG0JD8228AQ7EGYZACY8CYS3KNF9XVRERKF9G

            {"type":"address","address":"bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el"}
            """)
        let request = DiscoveryRequest(chainOptions: options, discovery: AccountDiscovery(gap: 20, maxAccounts: 100), used: used)
        let records = try collect {
            try request.accounts(phrase, keys: DeriveKeys(records: options.recordKeys(sharedPassphrase: nil)), emit: $0)
        }
        XCTAssertEqual(records.count, 2)
        XCTAssertEqual(
            records[0]["xpub"]?.stringValue,
            try ExtendedKey(
                parsing: "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs"
            ).serialized(version: .xpub))
        XCTAssertEqual(records[0]["used_receive"], .number("1"))
        XCTAssertEqual(records[0]["next_receive_index"], .number("2"))
        XCTAssertEqual(records[0]["used_change"], .number("1"))
        XCTAssertEqual(records[0]["next_change_index"], .number("1"))
        XCTAssertEqual(records[1]["type"]?.stringValue, "discovery")
        XCTAssertEqual(records[1]["next_account"], .number("1"))
        XCTAssertEqual(records[1]["gap"], .number("20"))
    }

    func testUsedAddressesCompareAsTheirEncodingsSay() throws {
        let used = try UsedAddresses.parse("  1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2 \n0xAbCdEf0000000000000000000000000000000001\nltc1QXYZ\n")
        XCTAssertEqual(used, ["1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", "0xabcdef0000000000000000000000000000000001", "ltc1QXYZ"])
        XCTAssertTrue(used.contains(UsedAddresses.normalized("0XABCDEF0000000000000000000000000000000001")))
        XCTAssertThrowsError(try UsedAddresses.read("/nonexistent/used.txt")) {
            XCTAssertEqual($0 as? CLIError, .cannotOpen(path: "/nonexistent/used.txt", reason: "cannot read it"))
        }
    }

    func testQRSinkWritesImagesNamedByAddress() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("qrsink-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
            .path
        defer { try? FileManager.default.removeItem(atPath: base) }
        let dir = base + "/a/b"
        let sink = try QRSink(terminal: false, directory: dir, format: "svg")
        let address = "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a"
        let out = try sink.attach(JSONObject(["address": .string(address), "n": .number("1")]))
        let path = dir + "/bitcoincash_qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a.svg"
        XCTAssertEqual(out["qr_file"]?.stringValue, path)
        XCTAssertEqual(out["n"], .number("1"))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), try QRCode(text: address).svg())
        // A record without an address passes unchanged; a file in the way is refused.
        XCTAssertEqual(try sink.attach(JSONObject(["n": .number("2")])), JSONObject(["n": .number("2")]))
        XCTAssertThrowsError(try QRSink(terminal: false, directory: path, format: "png")) {
            guard case .cannotOpen(let where_, _)? = $0 as? CLIError else { return XCTFail("\($0)") }
            XCTAssertEqual(where_, path)
        }
    }
}
