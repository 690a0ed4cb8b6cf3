import Bitcoin
import Foundation
import SatchelTestSupport
import WalletCore
import WalletKeys
import XCTest
import WalletCrypto

/// Silent payments on a real litecoind (Debian's 0.21) in regtest, where taproot is active:
/// payments to a receiver's tsp1 addresses made here by BIP352's sender algorithm from the
/// inputs' private keys (never from the scanner's reading of the inputs), signed by the node's
/// wallet (P2PKH, P2SH-P2WPKH, P2WPKH) or by sign-tx (a BIP86 key-path input), accepted and
/// mined by the node; a transaction whose only input is P2WSH pays the output key its key
/// would give, and must not be found; a script-path input under the NUMS key is left out of
/// the sum; a transaction spending a segwit v2 output is skipped. Two found outputs are then
/// spent with a version 2 PSBT (BIP376) that sign-tx signs. scan-blocks finds the same outputs through the node's
/// RPC (-txindex: litecoind 0.21's getblock has no prevouts) and in its blk and rev files.
final class SilentPaymentLiveTests: XCTestCase {
    static let receiver = TestPhrase.legalWinner
    static let sender = TestPhrase.abandonAbout
    var node: LitecoinRegtest!

    override func setUpWithError() throws {
        node = try LitecoinRegtest(name: "silent")
        try node.start(rest: false, options: ["-txindex"])
    }

    override func tearDownWithError() throws { try node?.tearDown() }

    @discardableResult
    func cli(_ args: String..., wallet: String? = nil) throws -> String { try node.run(args, wallet: wallet) }
    func json(_ args: String..., wallet: String? = nil) throws -> Any { try node.json(args, wallet: wallet) }

    static func record(_ phrase: String) -> Data { Data(#"{"mnemonic":"\#(phrase)"}"#.utf8) }

    func tool(_ command: String, stdin: Data) throws -> [[String: Any]] {
        let r = try Shell.run(command, stdin: stdin)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.records
    }

    /// Sends 1 LTC from the miner's wallet to `address`; the outpoint and its script.
    func fund(_ address: String, script: [UInt8]) throws -> (outpoint: [UInt8], txid: String, vout: Int) {
        let txid = try cli("sendtoaddress", address, "1.0", wallet: "miner")
        let outputs = (try json("getrawtransaction", txid, "true") as! [String: Any])["vout"] as! [[String: Any]]
        let vout = outputs.first { ($0["scriptPubKey"] as! [String: Any])["hex"] as? String == Hex.encode(script) }!["n"] as! Int
        // The miner's wallet owns some of these addresses: it must not spend the output meanwhile.
        try cli("lockunspent", "false", #"[{"txid":"\#(txid)","vout":\#(vout)}]"#, wallet: "miner")
        return (Bitcoin.outpoint(try Bitcoin.internalBytes(ofDisplayed: txid), UInt32(vout)), txid, vout)
    }

    func scriptOf(_ address: String) throws -> [UInt8] {
        try Hex.decode((try json("getaddressinfo", address, wallet: "miner") as! [String: Any])["scriptPubKey"] as! String)
    }

    func privateKey(_ address: String) throws -> SecureBytes { try WIF.decode(try cli("dumpprivkey", address, wallet: "miner")) }

    func taprootAddress(_ xOnly: [UInt8]) -> String { SegwitAddress.encode(hrp: "rltc", version: 1, program: xOnly) }

    func testPaymentsFoundThroughTheNodeAndInItsFiles() throws {
        try cli("createwallet", "miner")
        let miner = try cli("getnewaddress", "", "bech32", wallet: "miner")
        try cli("generatetoaddress", "101", miner)

        // The receiver: a watch-only record, and its addresses with and without label 1.
        let account = try tool(
            "derive account --purpose 352 --view-only --private --coin ltc --network regtest", stdin: Self.record(Self.receiver))[0]
        let spendKey = SecureBytes(try Hex.decode(account["sp_spend_key"] as! String))
        var watch = account
        watch["sp_spend_key"] = nil
        let unlabeled = try SilentPaymentAddress(parsing: account["address"] as! String)
        let labeled = try SilentPaymentAddress(
            parsing: try tool("derive --purpose 352 --label 1 --coin ltc --network regtest", stdin: Self.record(Self.receiver))[0][
                "address"] as! String)
        XCTAssertTrue(unlabeled.testnet)

        // Transaction A: P2PKH, P2SH-P2WPKH and P2WPKH inputs; two outputs to the receiver (k = 0
        // unlabeled, k = 1 labeled) and change.
        var keys: [SilentPaymentSender.InputKey] = [], outpoints: [[UInt8]] = [], spends: [String] = []
        var fundedAddresses: [String] = []
        for kind in ["legacy", "p2sh-segwit", "bech32"] {
            let address = try cli("getnewaddress", "", kind, wallet: "miner")
            fundedAddresses.append(address)
            let funded = try fund(address, script: try scriptOf(address))
            keys.append(.init(key: try privateKey(address), taproot: false))
            outpoints.append(funded.outpoint)
            spends.append(#"{"txid":"\#(funded.txid)","vout":\#(funded.vout)}"#)
        }
        try cli("generatetoaddress", "1", miner)
        let paidA = try SilentPaymentSender.outputs(inputs: keys, outpoints: outpoints, recipients: [unlabeled, labeled])
        let rawA = try cli(
            "createrawtransaction", "[\(spends.joined(separator: ","))]",
            #"[{"\#(taprootAddress(paidA[0]))":0.5},{"\#(taprootAddress(paidA[1]))":0.7},{"\#(miner)":1.7999}]"#)
        let signedA = try json("signrawtransactionwithwallet", rawA, wallet: "miner") as! [String: Any]
        XCTAssertEqual(signedA["complete"] as? Bool, true, "\(signedA["errors"] ?? "")")
        let txA = try cli("sendrawtransaction", signedA["hex"] as! String)

        // Transaction B: a BIP86 key-path input alone (its tweaked key, negated for an odd y,
        // is what the sender sums), signed by sign-tx.
        let (internalKey, tweaked, outputKey) = try senderBIP86()
        let fundedB = try fund(taprootAddress(outputKey), script: [0x51, 0x20] + outputKey)
        try cli("generatetoaddress", "1", miner)
        let paidB = try SilentPaymentSender.outputs(
            inputs: [.init(key: tweaked, taproot: true)], outpoints: [fundedB.outpoint], recipients: [unlabeled])
        let txB = try cli("sendrawtransaction", try signTaproot(fundedB, outputKey: outputKey, internal: internalKey, to: paidB[0]))

        // Transaction C: one P2WSH input (1-of-1), which BIP352 does not count, paying the
        // output its key would give if it did.
        let signer = try cli("getnewaddress", "", "legacy", wallet: "miner")
        let pubkey = (try json("getaddressinfo", signer, wallet: "miner") as! [String: Any])["pubkey"] as! String
        let multisig = try json("addmultisigaddress", "1", #"["\#(pubkey)"]"#, "", "bech32", wallet: "miner") as! [String: Any]
        let p2wsh = multisig["address"] as! String
        let fundedC = try fund(p2wsh, script: try scriptOf(p2wsh))
        try cli("generatetoaddress", "1", miner)
        let lure = try SilentPaymentSender.outputs(
            inputs: [.init(key: try privateKey(signer), taproot: false)], outpoints: [fundedC.outpoint], recipients: [unlabeled])
        let rawC = try cli(
            "createrawtransaction", #"[{"txid":"\#(fundedC.txid)","vout":\#(fundedC.vout)}]"#, #"[{"\#(taprootAddress(lure[0]))":0.9999}]"#)
        let signedC = try json("signrawtransactionwithwallet", rawC, wallet: "miner") as! [String: Any]
        XCTAssertEqual(signedC["complete"] as? Bool, true)
        let txC = try cli("sendrawtransaction", signedC["hex"] as! String)

        // Transaction D: a script path under BIP341's NUMS key H (a leaf of OP_TRUE), which
        // BIP352 does not count, beside a P2WPKH input, whose key alone the sender sums.
        let h = SilentPayment.numsH
        let leaf = Hash.tagged("TapLeaf", [0xC0, 0x01, 0x51])
        let nums = try Secp256k1.PublicKey(xOnly: h).adding(tweak: Hash.tagged("TapTweak", h + leaf))
        let fundedNUMS = try fund(taprootAddress(nums.xOnly), script: [0x51, 0x20] + nums.xOnly)
        let keyed = try cli("getnewaddress", "", "bech32", wallet: "miner")
        let fundedKeyed = try fund(keyed, script: try scriptOf(keyed))
        try cli("generatetoaddress", "1", miner)
        let paidD = try SilentPaymentSender.outputs(
            inputs: [.init(key: try privateKey(keyed), taproot: false)], outpoints: [fundedNUMS.outpoint, fundedKeyed.outpoint],
            recipients: [unlabeled])
        var d = try partlySigned([fundedNUMS, fundedKeyed], to: paidD[0], amount: "1.9999")
        d.inputs[0].witness = [[0x51], [0xC0 | (nums.compressed[0] & 1)] + h]
        let txD = try cli("sendrawtransaction", Hex.encode(d.serialized()))

        // Transaction E: an input spending a segwit v2 output beside a P2WPKH one: BIP352 skips
        // the whole transaction. Spending v2 is not standard, so it is mined by generateblock.
        let future = SegwitAddress.encode(hrp: "rltc", version: 2, program: [UInt8](repeating: 0x42, count: 32))
        let fundedFuture = try fund(future, script: [0x52, 0x20] + [UInt8](repeating: 0x42, count: 32))
        let keyedE = try cli("getnewaddress", "", "bech32", wallet: "miner")
        let fundedKeyedE = try fund(keyedE, script: try scriptOf(keyedE))
        try cli("generatetoaddress", "1", miner)
        let lureE = try SilentPaymentSender.outputs(
            inputs: [.init(key: try privateKey(keyedE), taproot: false)], outpoints: [fundedFuture.outpoint, fundedKeyedE.outpoint],
            recipients: [unlabeled])
        let e = try partlySigned([fundedFuture, fundedKeyedE], to: lureE[0], amount: "1.9999")
        try cli("generateblock", miner, #"["\#(Hex.encode(e.serialized()))"]"#)
        let txE = Bitcoin.display(e.txid)
        try cli("generatetoaddress", "2", miner)
        // Each mined: A in the block that mined B's funding, B in C's funding's, C and D in D's
        // funding's, E in its own.
        for (txid, confirmations) in [(txA, 7), (txB, 6), (txC, 5), (txD, 4), (txE, 3)] {
            XCTAssertEqual((try json("getrawtransaction", txid, "true") as! [String: Any])["confirmations"] as? Int, confirmations, txid)
        }

        let expected: Set<[String]> = [[txA, "0", "-"], [txA, "1", "1"], [txB, "0", "-"], [txD, "0", "-"]]
        let keyOf: [String: [UInt8]] = ["\(txA):0": paidA[0], "\(txA):1": paidA[1], "\(txB):0": paidB[0], "\(txD):0": paidD[0]]
        let record = Data(try JSONSerialization.data(withJSONObject: watch))
        func found(_ source: String, state: String, confirmed: String, spent: Int) throws -> Set<[String]> {
            let r = try Shell.run(
                "scan-blocks --chain litecoin --network regtest --birthday 0 --sp-labels 1 --state-dir \(node.dir)/\(state) \(source)",
                stdin: record)
            XCTAssertEqual(r.status, 0, r.stderr)
            var out = Set<[String]>()
            for event in r.records where event["type"] as? String == "received" {
                XCTAssertEqual(event["script_type"] as? String, "silent-payment")
                let txid = event["txid"] as! String, vout = event["vout"] as! Int
                // The tweak spends it: b_spend + tweak is the output key's private key.
                let tweak = try Hex.decode(event["sp_tweak"] as! String)
                let key = try SilentPayment.outputPrivateKey(spendKey: spendKey, tweak: tweak)
                XCTAssertEqual(try Secp256k1.publicKey(of: key).xOnly, keyOf["\(txid):\(vout)"], "\(txid):\(vout)")
                XCTAssertEqual(event["address"] as? String, keyOf["\(txid):\(vout)"].map(taprootAddress))
                out.insert([txid, String(vout), (event["label"] as? Int).map(String.init) ?? "-"])
            }
            let balance = r.records.last { $0["type"] as? String == "balance" }
            XCTAssertEqual(balance?["confirmed"] as? String, confirmed)
            XCTAssertEqual(r.records.filter { $0["type"] as? String == "spent" }.count, spent)
            return out
        }
        let cookie = "--node 127.0.0.1:\(node.port) --rpc-cookie \(node.dir)/node/regtest/.cookie"
        XCTAssertEqual(try found(cookie, state: "rpc", confirmed: "419980000", spent: 0), expected)  // 0.5 + 0.7 + 0.9999 + 1.9999 LTC

        // Tweak records: a pass with no wallet writes them from the node; the receiver, with
        // its scan key alone, finds in them what it found in the blocks, record for record.
        let keyFile = "\(node.dir)/watch.json"
        XCTAssertTrue(FileManager.default.createFile(atPath: keyFile, contents: record, attributes: [.posixPermissions: 0o600]))
        let tweakFile = "\(node.dir)/tweaks.jsonl"
        let writeTweaks = "scan-blocks --chain litecoin --network regtest --birthday 0 --state-dir \(node.dir)/writer"
        let written = try Shell.run("\(writeTweaks) --tweaks-out \(tweakFile) \(cookie) < /dev/null")
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertEqual(written.stdout, Data())
        func receivedRecords(_ source: String, state: String) throws -> [String] {
            let r = try Shell.run(
                "scan-blocks --chain litecoin --network regtest --birthday 0 --sp-labels 1 --state-dir \(node.dir)/\(state) --key-file \(keyFile) \(source)"
            )
            XCTAssertEqual(r.status, 0, r.stderr)
            return try r.records.filter { $0["type"] as? String == "received" }.map { event in
                var e = event
                e["event_id"] = nil
                return String(decoding: try JSONSerialization.data(withJSONObject: e, options: .sortedKeys), as: UTF8.self)
            }
        }
        // The receiver's own scan writes them too, beside its events: the same bytes.
        let direct = try receivedRecords("\(cookie) --tweaks-out \(node.dir)/tweaks-beside.jsonl", state: "rpc-direct")
        XCTAssertEqual(direct.count, expected.count)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: "\(node.dir)/tweaks-beside.jsonl")),
            try Data(contentsOf: URL(fileURLWithPath: tweakFile)))
        XCTAssertEqual(try receivedRecords("--tweaks \(tweakFile)", state: "tweaks"), direct)
        XCTAssertEqual(try found("--tweaks \(tweakFile)", state: "tweaks-2", confirmed: "419980000", spent: 0), expected)
        // In a pipe: the writer's stdout into the receiver's scan.
        let piped = try Shell.run(
            "set -o pipefail; \(writeTweaks)-pipe --tweaks-out - \(cookie) < /dev/null | scan-blocks --chain litecoin --network regtest --birthday 0 --sp-labels 1 --state-dir \(node.dir)/piped --key-file \(keyFile) --tweaks -"
        )
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(
            try piped.records.filter { $0["type"] as? String == "received" }.map { event in
                var e = event
                e["event_id"] = nil
                return String(decoding: try JSONSerialization.data(withJSONObject: e, options: .sortedKeys), as: UTF8.self)
            }, direct)

        // Bitcoin Core 23's getblock HASH 3, which litecoind 0.21 lacks: scripts/core-getblock3.py
        // answers it in front of the node as Core does. The prevouts come with each block and no
        // spent transaction is asked for; a block without undo data (Core gives no prevouts) is
        // met by getrawtransaction, after one try.
        // What the node says those runs ask for: every block's prevouts; without undo data, the
        // blocks up to the first with a spend (coinbase-only blocks need no prevout, so they
        // cannot tell) and then, per block, each transaction its inputs spend that is not in it.
        let tip = Int(try cli("getblockcount"))!
        var firstSpend: Int?, spentElsewhere = 0
        for height in 0...tip {
            let block = try json("getblock", try cli("getblockhash", String(height)), "2") as! [String: Any]
            let txs = block["tx"] as! [[String: Any]]
            let inBlock = Set(txs.map { $0["txid"] as! String })
            let spent = Set(txs.dropFirst().flatMap { ($0["vin"] as! [[String: Any]]).map { $0["txid"] as! String } })
            if !spent.isEmpty, firstSpend == nil { firstSpend = height }
            if firstSpend != nil { spentElsewhere += spent.subtracting(inBlock).count }
        }
        let allBlocks = tip + 1, rawTransactionsAsked = spentElsewhere
        for noUndo in [false, true] {
            let log = "\(node.dir)/core-\(noUndo).json"
            let proxy = try ScriptServer(
                script: "scripts/core-getblock3.py", ["--upstream", "127.0.0.1:\(node.port)", "--log", log] + (noUndo ? ["--no-undo"] : []))
            defer { proxy.stop() }
            let through = "--node 127.0.0.1:\(proxy.port) --rpc-cookie \(node.dir)/node/regtest/.cookie"
            XCTAssertEqual(try found(through, state: "core-\(noUndo)", confirmed: "419980000", spent: 0), expected)
            let asked = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: log))) as! [String: Int]
            XCTAssertEqual(asked["getblock/3"], noUndo ? firstSpend! + 1 : allBlocks, "\(asked)")
            XCTAssertEqual(asked["getrawtransaction"], noUndo ? rawTransactionsAsked : nil, "\(asked)")
            // The proxy's answer itself, against the node: transaction A's first input spends the
            // 1 LTC sent to a legacy address in block firstSpend (addr() with BIP380's checksum).
            let blockA = (try json("getrawtransaction", txA, "true") as! [String: Any])["blockhash"] as! String
            let cookieText = try String(contentsOfFile: "\(node.dir)/node/regtest/.cookie", encoding: .utf8)
            let r = try Shell.run(
                "curl -sf -m 30 --user '\(cookieText)' http://127.0.0.1:\(proxy.port)/ -d '{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"getblock\",\"params\":[\"\(blockA)\",3]}'"
            )
            XCTAssertEqual(r.status, 0, r.stderr)
            let answer = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
            let txs = (answer["result"] as! [String: Any])["tx"] as! [[String: Any]]
            let input = (txs.first { $0["txid"] as? String == txA }!["vin"] as! [[String: Any]])[0]
            let prevout = input["prevout"] as? [String: Any]
            XCTAssertEqual(prevout == nil, noUndo)
            if let prevout {
                let script = prevout["scriptPubKey"] as! [String: Any]
                XCTAssertEqual(prevout["generated"] as? Bool, false)
                XCTAssertEqual(prevout["height"] as? Int, firstSpend)
                XCTAssertEqual(prevout["value"] as? Double, 1.0)
                XCTAssertEqual(script["hex"] as? String, Hex.encode(try scriptOf(fundedAddresses[0])))
                XCTAssertEqual(script["address"] as? String, fundedAddresses[0])
                XCTAssertEqual(script["type"] as? String, "pubkeyhash")
                XCTAssertEqual(script["desc"] as? String, Descriptor.withChecksum("addr(\(fundedAddresses[0]))"))
            }
        }

        // Spending two of them with a version 2 PSBT (BIP376): the labeled one named by a zero
        // fingerprint and no path, B's by the receiver's origin; sign-tx signs with the spend key
        // plus each tweak, after checking each output key, and the node accepts it.
        // This scan knows the receiver by its BIP392 descriptor alone (derive's --private form,
        // spspend): the same outputs.
        let descriptorOnly = Data(try JSONSerialization.data(withJSONObject: ["descriptor": account["descriptor"] as! String]))
        XCTAssertTrue((account["descriptor"] as! String).hasPrefix("sp([") && (account["descriptor"] as! String).contains("]tspspend1q"))
        let events = try Shell.run(
            "scan-blocks --chain litecoin --network regtest --birthday 0 --sp-labels 1 --state-dir \(node.dir)/rpc2 \(cookie)",
            stdin: descriptorOnly
        ).records.filter { $0["type"] as? String == "received" }
        XCTAssertEqual(Set(events.map { [$0["txid"] as! String, String($0["vout"] as! Int)] }), Set(expected.map { Array($0.prefix(2)) }))
        func tweak(_ txid: String, _ vout: Int) throws -> [UInt8] {
            try Hex.decode(events.first { $0["txid"] as? String == txid && $0["vout"] as? Int == vout }!["sp_tweak"] as! String)
        }
        let fingerprint = try Hex.decode(
            try tool("derive account --purpose 84 --coin ltc --network regtest", stdin: Self.record(Self.receiver))[0]["master_fingerprint"]
                as! String)
        let spendPublic = try Hex.decode(account["sp_spend_public_key"] as! String)
        let path: [UInt32] = [352 | 0x8000_0000, 1 | 0x8000_0000, 0x8000_0000, 0x8000_0000, 0]
        let paid: [(txid: String, vout: Int, amount: UInt64, key: [UInt8], origin: [UInt8])] = [
            (txA, 1, 70_000_000, paidA[1], [0, 0, 0, 0]),
            (txB, 0, 99_990_000, paidB[0], fingerprint + path.flatMap { withUnsafeBytes(of: $0.littleEndian) { Array($0) } }),
        ]
        let inputs = try paid.map { spend -> [PSBT.Pair] in
            [
                PSBT.Pair(type: PSBTField.inWitnessUtxo, value: le(spend.amount) + [34, 0x51, 0x20] + spend.key),
                PSBT.Pair(type: PSBTField.inPreviousTxid, value: try Bitcoin.internalBytes(ofDisplayed: spend.txid)),
                PSBT.Pair(type: PSBTField.inOutputIndex, value: le(UInt32(spend.vout))),
                PSBT.Pair(type: PSBTField.inSequence, value: le(UInt32.max)),
                PSBT.Pair(type: PSBTField.inSPSpendBIP32Derivation, keyData: spendPublic, value: spend.origin),
                PSBT.Pair(type: PSBTField.inSPTweak, value: try tweak(spend.txid, spend.vout)),
            ]
        }
        let payee = try scriptOf(miner)
        let psbt = try psbtV2(
            inputs: inputs,
            outputs: [
                [PSBT.Pair(type: PSBTField.outAmount, value: le(UInt64(169_970_000))), PSBT.Pair(type: PSBTField.outScript, value: payee)]
            ])
        let path0600 = "\(node.dir)/receiver.json"
        XCTAssertTrue(
            FileManager.default.createFile(atPath: path0600, contents: Self.record(Self.receiver), attributes: [.posixPermissions: 0o600]))
        let signed = try Shell.run(
            "unshare --net sign-tx --coin ltc --network regtest --key-file \(path0600) --finalize",
            stdin: Data(#"{"psbt":"\#(psbt)"}"#.utf8 + [0x0A]))
        XCTAssertEqual(signed.status, 0, signed.stderr)
        let summary = signed.records[0]
        XCTAssertEqual(
            (summary["inputs"] as! [[String: Any]]).map { $0["kind"] as? String }, ["p2tr-silent-payment", "p2tr-silent-payment"])
        XCTAssertEqual(
            (summary["inputs"] as! [[String: Any]]).map { $0["paths"] as? [String] }, [["m/352'/1'/0'/0'/0"], ["m/352'/1'/0'/0'/0"]])
        XCTAssertEqual(summary["fee"] as? String, "20000")
        let spendTx = try cli("sendrawtransaction", signed.records[1]["hex"] as! String)
        try cli("generatetoaddress", "1", miner)
        XCTAssertEqual((try json("getrawtransaction", spendTx, "true") as! [String: Any])["confirmations"] as? Int, 1)

        // The writer's next run appends the blocks since; then, from the node's files, another
        // file of the same bytes.
        let more = try Shell.run("\(writeTweaks) --tweaks-out \(tweakFile) \(cookie) < /dev/null")
        XCTAssertEqual(more.status, 0, more.stderr)
        let tipNow = Int(try cli("getblockcount"))!
        try node.stop()
        XCTAssertEqual(try found("--blocks \(node.dir)/node/regtest/blocks", state: "files", confirmed: "249990000", spent: 2), expected)
        let fromFiles = try Shell.run(
            "\(writeTweaks)-files --tweaks-out \(node.dir)/tweaks-files.jsonl --blocks \(node.dir)/node/regtest/blocks < /dev/null")
        XCTAssertEqual(fromFiles.status, 0, fromFiles.stderr)
        let tweakBytes = try Data(contentsOf: URL(fileURLWithPath: tweakFile))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(node.dir)/tweaks-files.jsonl")), tweakBytes)
        let lines = String(decoding: tweakBytes, as: UTF8.self).split(separator: "\n")
        let blockCount = lines.filter { $0.hasPrefix(#"{"type":"sp_block""#) }.count
        XCTAssertEqual(blockCount, tipNow + 1)
        print("tweak records: \(tweakBytes.count) bytes for \(blockCount) blocks and \(lines.count - blockCount) eligible transactions")
        // The spend is not in the records (no inputs): the receiver still counts the spent
        // outputs, and says its spends are not known.
        let last = try Shell.run(
            "scan-blocks --chain litecoin --network regtest --birthday 0 --sp-labels 1 --state-dir \(node.dir)/tweaks --key-file \(keyFile) --tweaks \(tweakFile)"
        )
        XCTAssertEqual(last.status, 0, last.stderr)
        let balance = last.records.last { $0["type"] as? String == "balance" }
        XCTAssertEqual(balance?["confirmed"] as? String, "419980000")
        XCTAssertEqual(balance?["spends_known"] as? Bool, false)
    }

    /// BIP375: sign-tx pays the receiver's tsp1 address from the sender's BIP86 input (a
    /// version 2 PSBT carrying the address's keys and no script, as a wallet hands it to an
    /// air-gapped signer): its share and proof added, the script computed, signed and finalized
    /// offline; the node accepts it, and scan-blocks finds the payment with the receiver's keys.
    func testPaymentSignedBySignTx() throws {
        try cli("createwallet", "miner")
        let miner = try cli("getnewaddress", "", "bech32", wallet: "miner")
        try cli("generatetoaddress", "101", miner)
        let account = try tool(
            "derive account --purpose 352 --view-only --private --coin ltc --network regtest", stdin: Self.record(Self.receiver))[0]
        var watch = account
        watch["sp_spend_key"] = nil
        let receiver = try SilentPaymentAddress(parsing: account["address"] as! String)

        let (internalKey, tweaked, outputKey) = try senderBIP86()
        let funded = try fund(taprootAddress(outputKey), script: [0x51, 0x20] + outputKey)
        try cli("generatetoaddress", "1", miner)
        let fingerprint = try Hex.decode(
            try tool("derive account --coin btc --network regtest --purpose 86", stdin: Self.record(Self.sender))[0]["master_fingerprint"]
                as! String)
        let steps: [UInt32] = [86 | 0x8000_0000, 1 | 0x8000_0000, 0x8000_0000, 0, 0]
        let back = try scriptOf(miner)
        let keyFile = "\(node.dir)/sender.json"
        XCTAssertTrue(
            FileManager.default.createFile(atPath: keyFile, contents: Self.record(Self.sender), attributes: [.posixPermissions: 0o600]))
        /// The wallet's PSBT spending `funded` (the sender's BIP86 output of 1 LTC): `pay` to the
        /// receiver's address, the rest less 10,000 back to the miner; signed and finalized by
        /// sign-tx offline. With the output key BIP352's sender gives for the same input key
        /// (computed here from the private key, not from the PSBT).
        func payment(_ funded: (outpoint: [UInt8], txid: String, vout: Int), pay: UInt64) throws -> (records: [[String: Any]], key: [UInt8])
        {
            let input: [PSBT.Pair] = [
                PSBT.Pair(type: PSBTField.inPreviousTxid, value: try Bitcoin.internalBytes(ofDisplayed: funded.txid)),
                PSBT.Pair(type: PSBTField.inOutputIndex, value: le(UInt32(funded.vout))),
                PSBT.Pair(type: PSBTField.inWitnessUtxo, value: le(UInt64(100_000_000)) + [34, 0x51, 0x20] + outputKey),
                PSBT.Pair(
                    type: PSBTField.inTapBIP32Derivation, keyData: internalKey.xOnly, value: [0x00] + fingerprint + steps.flatMap(le)),
                PSBT.Pair(type: PSBTField.inTapInternalKey, value: internalKey.xOnly),
            ]
            let psbt = try psbtV2(
                inputs: [input],
                outputs: [
                    [
                        PSBT.Pair(type: PSBTField.outAmount, value: le(pay)),
                        PSBT.Pair(type: PSBTField.outSPV0Info, value: receiver.scanKey.compressed + receiver.spendKey.compressed),
                    ],
                    [
                        PSBT.Pair(type: PSBTField.outAmount, value: le(UInt64(99_990_000) - pay)),
                        PSBT.Pair(type: PSBTField.outScript, value: back),
                    ],
                ])
            let signed = try Shell.run(
                "unshare --net sign-tx --coin ltc --network regtest --key-file \(keyFile) --finalize",
                stdin: Data(#"{"psbt":"\#(psbt)"}"#.utf8 + [0x0A]))
            XCTAssertEqual(signed.status, 0, signed.stderr)
            let paid = try SilentPaymentSender.outputs(
                inputs: [.init(key: tweaked, taproot: true)], outpoints: [funded.outpoint], recipients: [receiver])
            return (signed.records, paid[0])
        }
        let (signed, paid) = try payment(funded, pay: 60_000_000)
        XCTAssertEqual(signed.map { $0["type"] as? String }, ["psbt_summary", "psbt"])
        // The summary: the tsp1 address paid, beside the output key BIP352's sender gives.
        let outputs = try XCTUnwrap(signed[0]["outputs"] as? [[String: Any]])
        XCTAssertEqual(outputs[0]["silent_payment"] as? String, account["address"] as? String)
        XCTAssertEqual(outputs[0]["address"] as? String, taprootAddress(paid))
        XCTAssertEqual(outputs[0]["change"] as? Bool, false)
        XCTAssertEqual(signed[0]["sent"] as? String, "99990000")
        XCTAssertEqual(signed[0]["fee"] as? String, "10000")
        XCTAssertNil(signed[0]["silent_payments_pending"])
        let txid = try cli("sendrawtransaction", try XCTUnwrap(signed[1]["hex"] as? String))

        // A second payment spends an output still in the mempool itself: the same key funded
        // again, not mined. Both payments are then in the mempool: one spends a confirmed
        // output (gettxout's), one a mempool parent's (the parent from the pool).
        let fundedAgain = try fund(taprootAddress(outputKey), script: [0x51, 0x20] + outputKey)
        let (signedB, paidB) = try payment(fundedAgain, pay: 80_628_506)
        let txidB = try cli("sendrawtransaction", try XCTUnwrap(signedB[1]["hex"] as? String))
        XCTAssertEqual(Set(try json("getrawmempool") as! [String]), [txid, fundedAgain.txid, txidB])

        let cookie = "--node 127.0.0.1:\(node.port) --rpc-cookie \(node.dir)/node/regtest/.cookie"
        func scan() throws -> [[String: Any]] {
            let r = try Shell.run(
                "scan-blocks --chain litecoin --network regtest --birthday 0 --state-dir \(node.dir)/sent \(cookie)",
                stdin: Data(try JSONSerialization.data(withJSONObject: watch)))
            XCTAssertEqual(r.status, 0, r.stderr)
            // Nothing unseen: every mempool transaction came with what it spends.
            XCTAssertEqual(r.stderr, "")
            return r.records
        }
        // In the mempool: both pending, counted as unconfirmed, as the node's own wallet would.
        let pool = try scan()
        let pending = pool.filter { $0["type"] as? String == "pending" }
        XCTAssertEqual(Set(pending.map { $0["txid"] as! String }), [txid, txidB])
        XCTAssertEqual(
            Set(pending.map { [$0["address"] as! String, $0["value"] as! String] }),
            [[taprootAddress(paid), "60000000"], [taprootAddress(paidB), "80628506"]])
        let poolBalance = pool.last { $0["type"] as? String == "balance" }
        XCTAssertEqual(poolBalance?["unconfirmed"] as? String, "140628506")
        XCTAssertEqual(poolBalance?["confirmed"] as? String, "0")

        try cli("generatetoaddress", "1", miner)
        let mined = try scan()
        let received = mined.filter { $0["type"] as? String == "received" }
        XCTAssertEqual(Set(received.map { $0["txid"] as! String }), [txid, txidB])
        XCTAssertEqual(Set(received.map { $0["value"] as! String }), ["60000000", "80628506"])
        XCTAssertEqual(received.first { $0["txid"] as? String == txid }?["address"] as? String, taprootAddress(paid))
        XCTAssertTrue(mined.filter { $0["type"] as? String == "pending" }.isEmpty)
        let balance = mined.last { $0["type"] as? String == "balance" }
        XCTAssertEqual(balance?["confirmed"] as? String, "140628506")
        XCTAssertEqual(balance?["unconfirmed"] as? String, "0")
    }

    /// After a reorg the node keeps the undo records of both branches' blocks, and the two
    /// blocks at the fork name the same parent in their checksums: block 103 was first a block
    /// whose one transaction spends a BIP86 output, then (after invalidateblock) one whose one
    /// transaction spends a P2WPKH output — the same shape. The files' scan read the first
    /// record for the second block (the P2TR output key taken for the P2WPKH input's, its
    /// payment missed, exit 0); now the node's block index places each, and the files' scan
    /// equals the JSON Lines scan of what the node says each block spends.
    func testTheFilesAfterAReorg() throws {
        try cli("createwallet", "miner")
        let miner = try cli("getnewaddress", "", "bech32", wallet: "miner")
        try cli("generatetoaddress", "101", miner)
        let account = try tool(
            "derive account --purpose 352 --view-only --coin ltc --network regtest", stdin: Self.record(Self.receiver))[0]
        let receiver = try SilentPaymentAddress(parsing: account["address"] as! String)
        // The BIP86 output (signed by sign-tx) and a P2WPKH output of the miner's wallet.
        let (internalKey, tweaked, outputKey) = try senderBIP86()
        let taproot = try fund(taprootAddress(outputKey), script: [0x51, 0x20] + outputKey)
        let keyed = try cli("getnewaddress", "", "bech32", wallet: "miner")
        let segwit = try fund(keyed, script: try scriptOf(keyed))
        try cli("generatetoaddress", "1", miner)
        let paidX = try SilentPaymentSender.outputs(
            inputs: [.init(key: tweaked, taproot: true)], outpoints: [taproot.outpoint], recipients: [receiver])
        let x = try signTaproot(taproot, outputKey: outputKey, internal: internalKey, to: paidX[0])
        let paidY = try SilentPaymentSender.outputs(
            inputs: [.init(key: try privateKey(keyed), taproot: false)], outpoints: [segwit.outpoint], recipients: [receiver])
        let y = try partlySigned([segwit], to: paidY[0], amount: "0.9999")
        // Block 103: X alone; then it is invalidated and block 103' holds Y alone, and the
        // branch grows past it (X, back in the mempool, is mined again in 104').
        let first = (try json("generateblock", miner, #"["\#(x)"]"#) as! [String: Any])["hash"] as! String
        // Tweak records written before and after the reorg: the writer follows it, writing the
        // new branch from the fork on.
        let writeTweaks =
            "scan-blocks --chain litecoin --network regtest --birthday 0 --state-dir \(node.dir)/writer --tweaks-out \(node.dir)/tweaks.jsonl --node 127.0.0.1:\(node.port) --rpc-cookie \(node.dir)/node/regtest/.cookie < /dev/null"
        let before = try Shell.run(writeTweaks)
        XCTAssertEqual(before.status, 0, before.stderr)
        try cli("invalidateblock", first)
        let second = (try json("generateblock", miner, #"["\#(Hex.encode(y.serialized()))"]"#) as! [String: Any])["hash"] as! String
        try cli("generatetoaddress", "2", miner)
        XCTAssertEqual(try cli("getblockhash", "103"), second)
        XCTAssertNotEqual(first, second)
        let after = try Shell.run(writeTweaks)
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertEqual(after.stdout, Data())
        XCTAssertEqual(
            after.stderr,
            "scan-blocks: warning: tweak records: the chain changed after block 102: its new branch is written from block 103 on\n")
        let written = try String(contentsOfFile: "\(node.dir)/tweaks.jsonl", encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let blockRecords = written.filter { $0["type"] as? String == "sp_block" }
        XCTAssertEqual(blockRecords.map { $0["height"] as? Int }, (0...103).map { $0 } + [103, 104, 105])
        XCTAssertEqual(blockRecords[103]["hash"] as? String, first)
        XCTAssertEqual(blockRecords[104]["hash"] as? String, second)
        // What the node says each block of its chain spends, as JSON Lines.
        let tip = Int(try cli("getblockcount"))!
        var lines = [String]()
        for height in 0...tip {
            let hash = try cli("getblockhash", String(height))
            let block = try json("getblock", hash, "2") as! [String: Any]
            var spent = [String]()
            for tx in (block["tx"] as! [[String: Any]]).dropFirst() {
                for input in tx["vin"] as! [[String: Any]] {
                    let previous = try json("getrawtransaction", input["txid"] as! String, "true") as! [String: Any]
                    let output = (previous["vout"] as! [[String: Any]])[input["vout"] as! Int]
                    spent.append((output["scriptPubKey"] as! [String: Any])["hex"] as! String)
                }
            }
            let record: [String: Any] = ["height": height, "hash": hash, "hex": try cli("getblock", hash, "0"), "spent": spent]
            lines.append(String(decoding: try JSONSerialization.data(withJSONObject: record), as: UTF8.self))
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: "\(node.dir)/chain.jsonl", atomically: true, encoding: .utf8)
        try node.stop()
        let watch = Data(try JSONSerialization.data(withJSONObject: account))
        func scan(_ source: String, state: String) throws -> (received: [String], balance: String?) {
            let r = try Shell.run(
                "scan-blocks --chain litecoin --network regtest --birthday 0 --state-dir \(node.dir)/\(state) \(source)", stdin: watch)
            XCTAssertEqual(r.status, 0, r.stderr)
            return (
                r.records.filter { $0["type"] as? String == "received" }.map {
                    "\($0["height"] ?? "")/\($0["txid"] ?? "")/\($0["vout"] ?? "")"
                },
                r.records.last { $0["type"] as? String == "balance" }?["total"] as? String
            )
        }
        let fromRecords = try scan("--blocks \(node.dir)/chain.jsonl", state: "records")
        let fromFiles = try scan("--blocks \(node.dir)/node/regtest/blocks", state: "files")
        XCTAssertEqual(fromFiles.received, fromRecords.received)
        XCTAssertEqual(fromFiles.balance, fromRecords.balance)
        let fromTweaks = try scan("--tweaks \(node.dir)/tweaks.jsonl", state: "tweaks")
        XCTAssertEqual(fromTweaks.received, fromRecords.received)
        XCTAssertEqual(fromTweaks.balance, fromRecords.balance)
        // Both payments, Y's in block 103' and X's in 104'.
        XCTAssertEqual(fromRecords.received.count, 2)
        XCTAssertEqual(fromRecords.balance, "199980000")
    }

    /// The sender's BIP86 key: its internal key, the private key a key-path spend signs with
    /// (negated first for an odd y, then tweaked: what BIP352's sender sums) and the output key.
    func senderBIP86() throws -> (internal: Secp256k1.PublicKey, tweaked: SecureBytes, output: [UInt8]) {
        let bip86 = try tool("derive --coin btc --network regtest --purpose 86 --private", stdin: Self.record(Self.sender))[0]
        let internalKey = try Secp256k1.PublicKey(parsing: Hex.decode(bip86["public_key"] as! String))
        var secret = SecureBytes(try Hex.decode(bip86["private_key"] as! String))
        if internalKey.compressed[0] == 3 { secret = try Secp256k1.negate(secret) }
        let tweaked = try Secp256k1.add(tweak: Hash.tagged("TapTweak", internalKey.xOnly), to: secret)
        let outputKey = try Hex.decode(bip86["output_key"] as! String)
        XCTAssertEqual(try Secp256k1.publicKey(of: tweaked).xOnly, outputKey)
        return (internalKey, tweaked, outputKey)
    }

    /// A transaction spending `inputs` to one taproot key, the miner's wallet's signatures in
    /// it (its own inputs; the others are left to the caller).
    func partlySigned(_ inputs: [(outpoint: [UInt8], txid: String, vout: Int)], to key: [UInt8], amount: String) throws -> BitcoinTx {
        let spends = inputs.map { #"{"txid":"\#($0.txid)","vout":\#($0.vout)}"# }.joined(separator: ",")
        let raw = try cli("createrawtransaction", "[\(spends)]", #"[{"\#(taprootAddress(key))":\#(amount)}]"#)
        let signed = try json("signrawtransactionwithwallet", raw, wallet: "miner") as! [String: Any]
        return try BitcoinTx(parsing: try Hex.decode(signed["hex"] as! String))
    }

    private func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }

    /// A version 2 PSBT of these input and output maps (BIP370's global fields), as base64,
    /// read back by Satchel's parser first.
    func psbtV2(inputs: [[PSBT.Pair]], outputs: [[PSBT.Pair]]) throws -> String {
        func compact(_ n: Int) -> [UInt8] { n < 0xFD ? [UInt8(n)] : [0xFD, UInt8(n & 0xFF), UInt8(n >> 8)] }
        func map(_ pairs: [PSBT.Pair]) -> [UInt8] {
            pairs.flatMap { compact($0.key.count) + $0.key + compact($0.value.count) + $0.value } + [0]
        }
        let global = [
            PSBT.Pair(type: PSBTField.globalTxVersion, value: le(UInt32(2))),
            PSBT.Pair(type: PSBTField.globalInputCount, value: compact(inputs.count)),
            PSBT.Pair(type: PSBTField.globalOutputCount, value: compact(outputs.count)),
            PSBT.Pair(type: PSBTField.globalVersion, value: le(UInt32(2))),
        ]
        let bytes = PSBT.magic + map(global) + inputs.flatMap(map) + outputs.flatMap(map)
        return try PSBT(parsing: bytes).base64
    }

    /// A PSBT spending the BIP86 output to `payee`'s taproot key, signed and finalized by
    /// sign-tx on a machine without network; the network transaction's hex.
    func signTaproot(
        _ funded: (outpoint: [UInt8], txid: String, vout: Int), outputKey: [UInt8], internal internalKey: Secp256k1.PublicKey,
        to payee: [UInt8]
    ) throws -> String {
        var psbt = try PSBT(
            base64: try cli(
                "createpsbt", #"[{"txid":"\#(funded.txid)","vout":\#(funded.vout)}]"#, #"[{"\#(taprootAddress(payee))":0.9999}]"#))
        let fingerprint = try Hex.decode(
            try tool("derive account --coin btc --network regtest --purpose 86", stdin: Self.record(Self.sender))[0]["master_fingerprint"]
                as! String)
        let steps: [UInt32] = [86 | 0x8000_0000, 1 | 0x8000_0000, 0x8000_0000, 0, 0]
        let origin = [0x00] + fingerprint + steps.flatMap { withUnsafeBytes(of: $0.littleEndian) { Array($0) } }
        let utxo = withUnsafeBytes(of: UInt64(100_000_000).littleEndian) { Array($0) } + [34, 0x51, 0x20] + outputKey
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: utxo))
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inTapBIP32Derivation, keyData: internalKey.xOnly, value: origin))
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inTapInternalKey, value: internalKey.xOnly))
        let path = "\(node.dir)/sender.json"
        XCTAssertTrue(
            FileManager.default.createFile(atPath: path, contents: Self.record(Self.sender), attributes: [.posixPermissions: 0o600]))
        let signed = try Shell.run(
            "unshare --net sign-tx --coin ltc --network regtest --key-file \(path) --finalize",
            stdin: Data(#"{"psbt":"\#(psbt.base64)"}"#.utf8 + [0x0A]))
        XCTAssertEqual(signed.status, 0, signed.stderr)
        return signed.records[1]["hex"] as! String
    }
}
