import Bitcoin
import Foundation
import SatchelTestSupport
import WalletCore
import XCTest

/// sign-tx against a real litecoind (Debian's 0.21) in regtest: the node's watch-only wallet
/// holds the descriptors `derive account` gives, the node makes the PSBT (P2PKH, P2SH-P2WPKH,
/// P2WPKH, a 2-of-3 P2WSH, and an input of the node's own wallet), Satchel signs it in a network
/// namespace without network, and the node accepts the transaction and mines it. Satchel's
/// signatures are byte for byte the node's own for the same keys. A taproot key-path PSBT,
/// which Litecoin 0.21's wallet cannot make, is built here and judged by the node.
final class SignTxPSBTLiveTests: XCTestCase {
    static let ours = TestPhrase.abandonAbout
    static let cosignerB = "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong"
    static let cosignerC = TestPhrase.legalWinner
    static let multisigPath = "m/48h/1h/0h/2h/0/0"
    var node: LitecoinRegtest!

    override func setUpWithError() throws {
        node = try LitecoinRegtest(name: "psbt")
        try node.start(rest: false)
    }

    override func tearDownWithError() throws { try node?.tearDown() }

    @discardableResult
    func cli(_ args: String..., wallet: String? = nil) throws -> String { try node.run(args, wallet: wallet) }
    func json(_ args: String..., wallet: String? = nil) throws -> Any { try node.json(args, wallet: wallet) }

    static func record(_ phrase: String) -> Data { Data(#"{"mnemonic":"\#(phrase)"}"#.utf8) }

    func derive(_ command: String, phrase: String = ours) throws -> [[String: Any]] {
        let r = try Shell.run("derive \(command) --coin ltc --network regtest", stdin: Self.record(phrase))
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.records
    }

    /// A 0600 key file for a phrase.
    func keyFile(_ phrase: String) throws -> String {
        let path = "\(node.dir)/key-\(phrase.prefix(3)).json"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Self.record(phrase), attributes: [.posixPermissions: 0o600]))
        return path
    }

    /// sign-tx on an offline machine: a network namespace with no network.
    func signTx(_ phrase: String, _ options: String = "", stdin: Data) throws -> Shell.Result {
        try Shell.run("unshare --net sign-tx --coin ltc --network regtest --key-file \(try keyFile(phrase)) \(options)", stdin: stdin)
    }

    func psbtLine(_ psbt: String, extra: String = "") -> Data { Data(#"{"psbt":"\#(psbt)"\#(extra)}"#.utf8 + [0x0A]) }

    func field(_ object: Any, _ key: String) -> String { (object as! [String: Any])[key] as! String }

    /// The multisig descriptor: our key, cosigner B's and C's at m/48'/1'/0'/2'/0/0, with origins.
    func multisigDescriptor() throws -> String {
        var keys = [String]()
        for phrase in [Self.ours, Self.cosignerB, Self.cosignerC] {
            let fingerprint = try derive("account --purpose 84", phrase: phrase)[0]["master_fingerprint"] as! String
            let key = try derive("--path \(Self.multisigPath)", phrase: phrase)[0]["public_key"] as! String
            keys.append("[\(fingerprint)/48'/1'/0'/2'/0/0]\(key)")
        }
        return field(try json("getdescriptorinfo", "wsh(multi(2,\(keys.joined(separator: ","))))"), "descriptor")
    }

    func testNodePSBTSignedOfflineIsAcceptedAndMined() throws {
        try cli("createwallet", "miner")
        try cli("createwallet", "watch", "true", "true")
        var requests = [[String: Any]]()
        for purpose in [44, 49, 84] {
            let account = try derive("account --purpose \(purpose)")[0]
            for (key, isChange) in [("descriptor", false), ("change_descriptor", true)] {
                requests.append([
                    "desc": account[key] as! String, "range": [0, 19], "watchonly": true, "timestamp": 0, "internal": isChange,
                ])
            }
        }
        let multisig = try multisigDescriptor()
        requests.append(["desc": multisig, "watchonly": true, "timestamp": 0])
        let imported = String(decoding: try JSONSerialization.data(withJSONObject: requests), as: UTF8.self)
        XCTAssertFalse(try cli("importmulti", imported, wallet: "watch").contains("false"))
        let miner = try cli("getnewaddress", "", "bech32", wallet: "miner")
        try cli("generatetoaddress", "101", miner)
        let multisigAddress = (try json("deriveaddresses", multisig) as! [String])[0]
        let address = { (purpose: Int) in try self.derive("--purpose \(purpose) --index 0 --count 1")[0]["address"] as! String }
        for to in [try address(44), try address(49), try address(84), multisigAddress] {
            try cli("sendtoaddress", to, "1.0", wallet: "miner")
        }
        try cli("generatetoaddress", "1", miner)

        // The node makes the PSBT: our four coins and one of the miner's, to the miner and our change.
        let coins = try json("listunspent", wallet: "watch") as! [[String: Any]]
        XCTAssertEqual(coins.count, 4)
        let minerCoin = (try json("listunspent", wallet: "miner") as! [[String: Any]]).first {
            ($0["amount"] as! NSNumber).doubleValue == 50
        }!
        let inputs = (coins.sorted { ($0["desc"] as! String) < ($1["desc"] as! String) } + [minerCoin]).map {
            ["txid": $0["txid"]!, "vout": $0["vout"]!]
        }
        let change = try derive("--purpose 84 --change 1 --index 0 --count 1")[0]["address"] as! String
        let payee = try cli("getnewaddress", "", "bech32", wallet: "miner")
        let outputs: [[String: Any]] = [[payee: 52.5], [change: 1.4999]]
        var psbt = try cli(
            "createpsbt", String(decoding: try JSONSerialization.data(withJSONObject: inputs), as: UTF8.self),
            String(decoding: try JSONSerialization.data(withJSONObject: outputs), as: UTF8.self))
        psbt = field(try json("walletprocesspsbt", psbt, "false", "ALL", "true", wallet: "watch"), "psbt")
        psbt = field(try json("walletprocesspsbt", psbt, "false", "ALL", "true", wallet: "miner"), "psbt")

        // Offline, our key: a summary, then the PSBT with our four signatures.
        let signed = try signTx(Self.ours, stdin: psbtLine(psbt, extra: #","note":"batch 7""#))
        XCTAssertEqual(signed.status, 0, signed.stderr)
        XCTAssertEqual(signed.records.count, 2)
        let summary = signed.records[0], record = signed.records[1]
        XCTAssertEqual(summary["type"] as? String, "psbt_summary")
        let summaryInputs = summary["inputs"] as! [[String: Any]]
        XCTAssertEqual(summaryInputs.map { $0["kind"] as? String }, ["p2pkh", "p2sh-p2wpkh", "p2wpkh", "p2wsh", "p2wpkh"])
        XCTAssertEqual(summaryInputs.map { $0["ours"] as? Bool }, [true, true, true, true, false])
        XCTAssertEqual(summaryInputs.map { $0["amount"] as? String }, ["100000000", "100000000", "100000000", "100000000", "5000000000"])
        XCTAssertEqual(
            summaryInputs.map { ($0["paths"] as? [String])?.first },
            ["m/44'/1'/0'/0/0", "m/49'/1'/0'/0/0", "m/84'/1'/0'/0/0", "m/48'/1'/0'/2'/0/0", nil])
        XCTAssertEqual(summaryInputs[3]["address"] as? String, multisigAddress)
        let summaryOutputs = summary["outputs"] as! [[String: Any]]
        XCTAssertEqual(summaryOutputs.map { $0["address"] as? String }, [payee, change])
        XCTAssertEqual(summaryOutputs.map { $0["change"] as? Bool }, [false, true])
        XCTAssertEqual(summary["fee"] as? String, "10000")
        XCTAssertEqual(summary["sent"] as? String, "5250000000")
        XCTAssertEqual(record["type"] as? String, "psbt")
        XCTAssertEqual(record["note"] as? String, "batch 7")
        XCTAssertEqual(record["complete"] as? Bool, false)
        XCTAssertEqual(record["signed_inputs"] as? [Int], [0, 1, 2, 3])
        let ourPSBT = record["psbt"] as! String

        // The node's own signatures for the same keys (a wallet holding them): byte for byte ours.
        try cli("createwallet", "hot")
        for path in ["m/44h/1h/0h/0/0", "m/49h/1h/0h/0/0", "m/84h/1h/0h/0/0", Self.multisigPath] {
            try cli("importprivkey", try derive("--path \(path) --private")[0]["wif"] as! String, "", "false", wallet: "hot")
        }
        let nodeSigned = try PSBT(base64: field(try json("walletprocesspsbt", psbt, "true", "ALL", "true", wallet: "hot"), "psbt"))
        let satchelSigned = try PSBT(base64: ourPSBT)
        for i in 0..<4 {
            // The node finalizes what its signature completes: its signature is then the first
            // push of the scriptSig (P2PKH) or the first witness item.
            let ours = satchelSigned.inputs[i].all(PSBTField.inPartialSig).map(\.value)
            XCTAssertEqual(ours.count, 1, "input \(i)")
            let theirs =
                nodeSigned.inputs[i].all(PSBTField.inPartialSig).map(\.value).first
                ?? Self.firstWitnessItem(nodeSigned.inputs[i])
                ?? Script.pushes(nodeSigned.inputs[i].value(PSBTField.inFinalScriptSig) ?? [])?.first
            XCTAssertEqual(ours.first, theirs, "input \(i): the node's signature")
        }

        // The miner signs its input, cosigner B the multisig (offline); then it is complete.
        let withMiner = field(try json("walletprocesspsbt", ourPSBT, "true", "ALL", "true", wallet: "miner"), "psbt")
        let byB = try signTx(Self.cosignerB, stdin: psbtLine(withMiner))
        XCTAssertEqual(byB.status, 0, byB.stderr)
        XCTAssertEqual(byB.records[1]["complete"] as? Bool, true)
        XCTAssertEqual(byB.records[1]["signed_inputs"] as? [Int], [3])
        XCTAssertNil(byB.records[1]["hex"], "no --finalize, no transaction")
        let finalized = try signTx(Self.cosignerB, "--finalize", stdin: psbtLine(withMiner))
        XCTAssertEqual(finalized.status, 0, finalized.stderr)
        let hex = finalized.records[1]["hex"] as! String
        // The node's finalizer and ours write the same transaction.
        let nodeFinal = try json("finalizepsbt", byB.records[1]["psbt"] as! String) as! [String: Any]
        XCTAssertEqual(nodeFinal["complete"] as? Bool, true)
        XCTAssertEqual(nodeFinal["hex"] as? String, hex)
        let accepted = (try json("testmempoolaccept", #"["\#(hex)"]"#) as! [[String: Any]])[0]
        XCTAssertEqual(accepted["allowed"] as? Bool, true, "\(accepted)")
        let txid = try cli("sendrawtransaction", hex)
        XCTAssertEqual(txid, finalized.records[1]["txid"] as? String)
        try cli("generatetoaddress", "1", miner)
        XCTAssertEqual((try json("gettransaction", txid, wallet: "miner") as! [String: Any])["confirmations"] as? Int, 1)
        // The change is the watch-only wallet's, confirmed.
        let left = try json("listunspent", wallet: "watch") as! [[String: Any]]
        XCTAssertEqual(left.map { $0["address"] as? String }, [change])

        // Refusals on the node's PSBT, each exit 65 with nothing signed: a witness UTXO that lies
        // about its amount (the node gave the previous transaction too), and a fee over --max-fee.
        var forged = try PSBT(base64: psbt)
        var lie = forged.inputs[2].value(PSBTField.inWitnessUtxo)!
        lie[0] &+= 1
        forged.inputs[2].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: lie))
        let refused = try signTx(Self.ours, stdin: psbtLine(forged.base64))
        XCTAssertEqual(refused.status, 65, refused.stderr)
        XCTAssertEqual(refused.records.map { $0["code"] as? String }, ["psbt.utxo_mismatch"])
        let tooDear = try signTx(Self.ours, "--max-fee 9999", stdin: psbtLine(psbt))
        XCTAssertEqual(tooDear.status, 65, tooDear.stderr)
        XCTAssertEqual(tooDear.records.map { $0["code"] as? String }, ["psbt.fee_above_limit"])
        XCTAssertEqual(try signTx(Self.ours, "--max-fee 10000", stdin: psbtLine(psbt)).status, 0)

        // Files: a base64 .psbt in, a binary one out, which the node reads.
        XCTAssertTrue(FileManager.default.createFile(atPath: "\(node.dir)/unsigned.psbt", contents: Data(psbt.utf8)))
        let viaFiles = try signTx(Self.ours, "--in \(node.dir)/unsigned.psbt --out \(node.dir)/signed.psbt", stdin: Data())
        XCTAssertEqual(viaFiles.status, 0, viaFiles.stderr)
        let written = try Data(contentsOf: URL(fileURLWithPath: "\(node.dir)/signed.psbt"))
        XCTAssertEqual(Array(written.prefix(5)), PSBT.magic)
        XCTAssertEqual(written.base64EncodedString(), viaFiles.records[1]["psbt"] as? String)
        XCTAssertEqual((try json("decodepsbt", written.base64EncodedString()) as! [String: Any])["fee"] as? NSNumber, 0.0001)
    }

    static func firstWitnessItem(_ map: PSBT.Map) -> [UInt8]? {
        guard let w = map.value(PSBTField.inFinalScriptWitness), w.count > 2, w[0] > 0 else { return nil }
        return Array(w[2..<2 + Int(w[1])])
    }

    /// A BIP86 output (m/86'/1'/0'/0/0), funded by the node; Satchel signs the key path and the
    /// node accepts and mines the transaction.
    func testTaprootKeyPathPSBTIsAcceptedAndMined() throws {
        try cli("createwallet", "miner")
        let miner = try cli("getnewaddress", "", "bech32", wallet: "miner")
        try cli("generatetoaddress", "101", miner)
        // Litecoin has no BIP86 wallets; the key and its output key are Bitcoin regtest's (coin type 1 both).
        let key = try Shell.run("derive --coin btc --network regtest --purpose 86 --index 0 --count 1", stdin: Self.record(Self.ours))
            .records[0]
        let outputKey = try Hex.decode(key["output_key"] as! String)
        let internalKey = Array(try Hex.decode(key["public_key"] as! String).dropFirst())
        let address = SegwitAddress.encode(hrp: "rltc", version: 1, program: outputKey)
        let funding = try cli("sendtoaddress", address, "1.0", wallet: "miner")
        // Read from the mempool (the node keeps no transaction index), then mined.
        let vout =
            ((try json("getrawtransaction", funding, "true") as! [String: Any])["vout"] as! [[String: Any]])
            .first { ($0["scriptPubKey"] as! [String: Any])["hex"] as? String == "5120" + Hex.encode(outputKey) }!["n"] as! Int
        try cli("generatetoaddress", "1", miner)
        let payee = try cli("getnewaddress", "", "bech32", wallet: "miner")
        var psbt = try PSBT(base64: try cli("createpsbt", #"[{"txid":"\#(funding)","vout":\#(vout)}]"#, #"[{"\#(payee)":0.9999}]"#))
        let fingerprint = try Hex.decode(
            try Shell.run("derive account --coin btc --network regtest --purpose 86", stdin: Self.record(Self.ours)).records[0][
                "master_fingerprint"] as! String)
        let origin =
            [0x00] + fingerprint
            + [86, 1, 0].map { $0 | 0x8000_0000 as UInt32 }.flatMap { withUnsafeBytes(of: $0.littleEndian) { Array($0) } }
            + [0, 0].flatMap { (c: UInt32) in withUnsafeBytes(of: c.littleEndian) { Array($0) } }
        var utxo = [UInt8]()
        withUnsafeBytes(of: UInt64(100_000_000).littleEndian) { utxo += $0 }
        utxo += [34, 0x51, 0x20] + outputKey
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: utxo))
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inTapBIP32Derivation, keyData: internalKey, value: origin))
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inTapInternalKey, value: internalKey))
        let signed = try signTx(Self.ours, "--finalize", stdin: psbtLine(psbt.base64))
        XCTAssertEqual(signed.status, 0, signed.stderr)
        let inputs = signed.records[0]["inputs"] as! [[String: Any]]
        XCTAssertEqual(inputs.map { $0["kind"] as? String }, ["p2tr"])
        XCTAssertEqual(inputs.map { $0["sighash"] as? String }, ["DEFAULT"])
        XCTAssertEqual(signed.records[0]["fee"] as? String, "10000")
        // The summary comes before the signature, so its size is an estimate: exact for a key
        // path, whose signature is always 64 bytes.
        XCTAssertEqual(signed.records[0]["vsize_estimated"] as? Bool, true)
        XCTAssertEqual(signed.records[1]["complete"] as? Bool, true)
        let hex = signed.records[1]["hex"] as! String
        let accepted = (try json("testmempoolaccept", #"["\#(hex)"]"#) as! [[String: Any]])[0]
        XCTAssertEqual(accepted["allowed"] as? Bool, true, "\(accepted)")
        XCTAssertEqual(accepted["vsize"] as? Int, signed.records[0]["vsize"] as? Int)
        let txid = try cli("sendrawtransaction", hex)
        try cli("generatetoaddress", "1", miner)
        XCTAssertEqual((try json("gettransaction", txid, wallet: "miner") as! [String: Any])["confirmations"] as? Int, 1)
    }
}
