import Bitcoin
import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
import WalletCrypto

/// Every case of BIP352's send_and_receive_test_vectors.json (bitcoin/bips @ 7fe0b034): the
/// receiver's addresses, each transaction's counted input keys, A, input_hash·A, the shared
/// secret, the outputs found with their tweaks, and a BIP340 signature by each found key.
final class SilentPaymentVectorTests: XCTestCase {
    private let cases = (try? TestPaths.json(TestPaths.vector("bip352/send_and_receive_test_vectors.json"))) as? [[String: Any]] ?? []

    func testTheFileIsTheOneCopied() {
        XCTAssertEqual(cases.count, 28)
    }

    /// The senders' inputs: which keys BIP352 counts, in order (the sending half of each case,
    /// whose inputs carry the same scripts and witnesses).
    func testInputKeysAsTheSendersCountThem() throws {
        var checked = 0
        for vector in cases {
            let comment = vector["comment"] as! String
            for sending in vector["sending"] as! [[String: Any]] {
                let given = sending["given"] as! [String: Any], expected = sending["expected"] as! [String: Any]
                let inputs = try (given["vin"] as! [[String: Any]]).map(input)
                let keys = inputs.compactMap(\.publicKey).map { Hex.encode($0.compressed) }
                XCTAssertEqual(keys, expected["input_pub_keys"] as? [String] ?? [], comment)
                checked += 1
            }
        }
        XCTAssertEqual(checked, 28)
    }

    /// The senders' outputs: one of the sets BIP352 accepts (recipients that share a scan key
    /// may be taken in any order), or a refusal where the vectors expect none.
    func testSending() throws {
        var checked = 0
        for vector in cases {
            let comment = vector["comment"] as! String
            for sending in vector["sending"] as! [[String: Any]] {
                let given = sending["given"] as! [String: Any], expected = sending["expected"] as! [String: Any]
                let vin = given["vin"] as! [[String: Any]]
                let inputs = try vin.map(input)
                var keys: [SilentPaymentSender.InputKey] = []
                for (v, i) in zip(vin, inputs) where i.publicKey != nil {
                    let taproot: Bool
                    if case .p2tr = ScriptTemplate(i.spentScript) { taproot = true } else { taproot = false }
                    keys.append(.init(key: SecureBytes(try Hex.decode(v["private_key"] as! String)), taproot: taproot))
                }
                let recipients = try (given["recipients"] as! [[String: Any]]).flatMap { r in
                    let address = try SilentPaymentAddress(parsing: r["address"] as! String)
                    XCTAssertEqual(Hex.encode(address.scanKey.compressed), r["scan_pub_key"] as? String, comment)
                    XCTAssertEqual(Hex.encode(address.spendKey.compressed), r["spend_pub_key"] as? String, comment)
                    return [SilentPaymentAddress](repeating: address, count: r["count"] as? Int ?? 1)
                }
                let sets = (expected["outputs"] as! [[String]]).map(Set.init)
                checked += 1
                guard sets != [[]] else {
                    XCTAssertThrowsError(
                        try SilentPaymentSender.outputs(inputs: keys, outpoints: inputs.map(\.outpoint), recipients: recipients), comment)
                    continue
                }
                let outputs = try SilentPaymentSender.outputs(inputs: keys, outpoints: inputs.map(\.outpoint), recipients: recipients)
                XCTAssertEqual(outputs.count, recipients.count, comment)
                XCTAssertTrue(sets.contains(Set(outputs.map { Hex.encode($0) })), comment)
            }
        }
        XCTAssertEqual(checked, 28)
        // A zero key is no key, beside a valid one or alone (it is not a zero partial sum).
        let address = try SilentPaymentAddress(
            parsing: (cases[0]["receiving"] as! [[String: Any]])[0]["expected"].flatMap {
                ($0 as! [String: Any])["addresses"] as? [String]
            }![0])
        for keys in [[SecureBytes(count: 32)], [SecureBytes([UInt8](repeating: 1, count: 32)), SecureBytes(count: 32)]] {
            XCTAssertThrowsError(
                try SilentPaymentSender.outputs(
                    inputs: keys.map { .init(key: $0, taproot: false) }, outpoints: [Bitcoin.outpoint([UInt8](repeating: 3, count: 32), 0)],
                    recipients: [address])
            ) { XCTAssertEqual($0 as? SilentPaymentError, .invalidKey("an input's private key is zero or not below the group order")) }
        }
    }

    /// A transaction spending a segwit v2 (or later) output holds no silent payment, even
    /// with inputs that count: BIP352 leaves those versions to later rules.
    func testASpendOfSegwitV2OrLaterIsSkipped() throws {
        let vector = cases[0]["receiving"] as! [[String: Any]]
        let vin = (vector[0]["given"] as! [String: Any])["vin"] as! [[String: Any]]
        let counted = try vin.map(input)
        XCTAssertNotNil(SilentPaymentTweak(inputs: counted))
        for version: UInt8 in [0x52, 0x60] {  // OP_2, OP_16
            let future = SilentPaymentInput(
                outpoint: Bitcoin.outpoint([UInt8](repeating: 7, count: 32), 1), scriptSig: [], witness: [[1]],
                spentScript: [version, 32] + [UInt8](repeating: 9, count: 32))
            XCTAssertTrue(future.spendsFutureSegwitVersion)
            XCTAssertNil(SilentPaymentTweak(inputs: counted + [future]))
        }
        // Not witness programs: a push of 41 bytes, or OP_1's own v1 (taproot, which counts).
        XCTAssertFalse(
            SilentPaymentInput(outpoint: [], scriptSig: [], witness: [], spentScript: [0x52, 41] + [UInt8](repeating: 0, count: 41))
                .spendsFutureSegwitVersion)
        XCTAssertFalse(
            SilentPaymentInput(outpoint: [], scriptSig: [], witness: [], spentScript: [0x51, 32] + [UInt8](repeating: 0, count: 32))
                .spendsFutureSegwitVersion)
    }

    func testReceiving() throws {
        let message = Hash.sha256(Array("message".utf8)), aux = Hash.sha256(Array("random auxiliary data".utf8))
        var found = 0, receivers = 0
        for vector in cases {
            let comment = vector["comment"] as! String
            for receiving in vector["receiving"] as! [[String: Any]] {
                receivers += 1
                let given = receiving["given"] as! [String: Any], expected = receiving["expected"] as! [String: Any]
                let material = given["key_material"] as! [String: String]
                let spendPrivate = SecureBytes(try Hex.decode(material["spend_priv_key"]!))
                let keys = try SilentPaymentKeys(
                    scanPrivateKey: SecureBytes(try Hex.decode(material["scan_priv_key"]!)),
                    spendPublicKey: try Secp256k1.publicKey(of: spendPrivate), spendPrivateKey: spendPrivate)
                let labels = (given["labels"] as! [Int]).map(UInt32.init)
                let addresses = try [keys.address(testnet: false)] + labels.map { try keys.address(label: $0, testnet: false) }
                XCTAssertEqual(addresses.map(\.description), expected["addresses"] as! [String], comment)
                for (text, address) in zip(expected["addresses"] as! [String], addresses) {
                    XCTAssertEqual(try SilentPaymentAddress(parsing: text), address, comment)
                }

                let inputs = try (given["vin"] as! [[String: Any]]).map(input)
                let outputs = try (given["outputs"] as! [String]).map { try Hex.decode($0) }
                guard let tweak = SilentPaymentTweak(inputs: inputs) else {
                    XCTAssertNil(expected["tweak"] as? String, comment)  // JSON null
                    XCTAssertEqual((expected["outputs"] as? [Any])?.count, 0, comment)
                    continue
                }
                XCTAssertEqual(Hex.encode(tweak.inputKeySum.compressed), expected["input_pub_key_sum"] as? String, comment)
                XCTAssertEqual(Hex.encode(tweak.point.compressed), expected["tweak"] as? String, comment)
                let receiver = try SilentPaymentReceiver(keys: keys, labels: labels)
                XCTAssertEqual(try receiver.sharedSecret(tweak).hex, expected["shared_secret"] as? String, comment)

                let results = try receiver.scan(tweak, outputs: outputs)
                // The batched first keys (x(P_0), and with each label: the fixed-base kernel on
                // each vector path): an output among them exactly when the receiver is paid, and
                // the same finds with them as without.
                let shared = try receiver.sharedSecret(tweak)
                for path in CurveBatchPath.allCases where Secp256k1Batch.hasOwnKernel(path) {
                    let first = receiver.firstOutputKeys([shared], path: path)
                    guard labels.count <= SilentPaymentReceiver.batchedLabels else {
                        XCTAssertNil(first, comment)
                        continue
                    }
                    let keys = try XCTUnwrap(first?.first, comment)
                    XCTAssertEqual(outputs.contains(where: keys.contains), !results.isEmpty, "\(path): " + comment)
                    XCTAssertEqual(receiver.scan(outputs: outputs, sharedSecret: shared, firstKeys: keys), results, "\(path): " + comment)
                }
                if let count = expected["n_outputs"] as? Int {
                    XCTAssertEqual(results.count, count, comment)  // K_max: found up to the limit, no further
                    XCTAssertEqual(count, SilentPayment.maxOutputsPerReceiver)
                    XCTAssertGreaterThan(outputs.count, count)
                    found += results.count
                    continue
                }
                var got = Set<[String]>()
                for result in results {
                    XCTAssertEqual(result.xOnlyKey, outputs[result.output], comment)
                    let privateKey = try SilentPayment.outputPrivateKey(spendKey: spendPrivate, tweak: result.tweak)
                    let pair = try Secp256k1.SchnorrKeyPair(privateKey: privateKey)
                    XCTAssertEqual(pair.xOnlyPublicKey, result.xOnlyKey, comment)
                    let signature = try pair.sign(message, auxRand: aux)
                    got.insert([Hex.encode(result.xOnlyKey), Hex.encode(result.tweak), Hex.encode(signature)])
                }
                let want = Set(
                    (expected["outputs"] as! [[String: String]]).map { [$0["pub_key"]!, $0["priv_key_tweak"]!, $0["signature"]!] })
                XCTAssertEqual(got, want, comment)
                found += results.count
            }
        }
        XCTAssertEqual(receivers, 29)
        XCTAssertEqual(found, 2323 + 32)
    }

    func testAddressesRefusedOrReadForward() throws {
        let keys = try SilentPaymentKeys(
            scanPrivateKey: SecureBytes([UInt8](repeating: 1, count: 32)),
            spendPublicKey: Secp256k1.publicKey(of: SecureBytes([UInt8](repeating: 2, count: 32))))
        let address = try keys.address(testnet: true)
        XCTAssertTrue(address.description.hasPrefix("tsp1q"))
        XCTAssertEqual(try SilentPaymentAddress(parsing: address.description), address)
        XCTAssertEqual(try SilentPaymentAddress(parsing: address.description.uppercased()), address)
        let payload = address.scanKey.compressed + address.spendKey.compressed
        func encode(version: UInt8, _ bytes: [UInt8], variant: Bech32.Variant = .bech32m, hrp: String = "tsp") throws -> String {
            Bech32.encode(hrp: hrp, data: [version] + (try Bech32.convertBits(bytes, from: 8, to: 5, pad: true)), variant: variant)
        }
        // A later version with more data is read by its first 66 bytes; version 0 must be 66 exactly.
        XCTAssertEqual(try SilentPaymentAddress(parsing: encode(version: 1, payload + [0xAB, 0xCD])), address)
        for (text, reason) in [
            (try encode(version: 0, payload + [0]), "version 0 carries 67 bytes, not 66"),
            (try encode(version: 31, payload), "version 31 is reserved for a backward-incompatible change"),
            (try encode(version: 0, payload, variant: .bech32), "a bech32 checksum where bech32m is required"),
            (try encode(version: 0, payload, hrp: "bc"), "the prefix is \"bc\", not sp or tsp"),
            (
                try encode(version: 0, Array(payload.prefix(33)) + [0x02] + [UInt8](repeating: 0, count: 32)),
                "a key in it is not on the curve"
            ),
        ] {
            XCTAssertThrowsError(try SilentPaymentAddress(parsing: text)) {
                XCTAssertEqual($0 as? SilentPaymentError, .invalidAddress(reason))
            }
        }
    }

    /// One vector input: txid as shown (byte-reversed), the witness as its serialized stack.
    private func input(_ vin: [String: Any]) throws -> SilentPaymentInput {
        let txid = Array(try Hex.decode(vin["txid"] as! String).reversed())
        let prevout = (vin["prevout"] as! [String: Any])["scriptPubKey"] as! [String: Any]
        return SilentPaymentInput(
            outpoint: Bitcoin.outpoint(txid, UInt32(vin["vout"] as! Int)),
            scriptSig: try Hex.decode(vin["scriptSig"] as! String),
            witness: try witnessStack(Hex.decode(vin["txinwitness"] as! String)),
            spentScript: try Hex.decode(prevout["hex"] as! String))
    }

    private func witnessStack(_ bytes: [UInt8]) throws -> [[UInt8]] {
        guard !bytes.isEmpty else { return [] }
        var at = 0
        func compactSize() throws -> Int {
            let first = bytes[at]
            at += 1
            guard first >= 0xFD else { return Int(first) }
            let width = first == 0xFD ? 2 : first == 0xFE ? 4 : 8
            let value = bytes[at..<(at + width)].reversed().reduce(0) { $0 << 8 | Int($1) }
            at += width
            return value
        }
        var stack: [[UInt8]] = []
        for _ in 0..<(try compactSize()) {
            let n = try compactSize()
            stack.append(Array(bytes[at..<(at + n)]))
            at += n
        }
        XCTAssertEqual(at, bytes.count)
        return stack
    }
}
