import Foundation
import SatchelTestSupport
import WalletCore
import XCTest

@testable import WalletUR
import WalletCrypto

/// vectors/ur/registry.json: every example read, turned back into descriptor text or an
/// extended key, and written again byte for byte where the format is ours to write.
final class RegistryTests: XCTestCase {
    private var doc: [String: Any] = [:]

    override func setUpWithError() throws {
        doc = try TestPaths.json(TestPaths.vector("ur/registry.json")) as! [String: Any]
    }

    private func cases(_ key: String) -> [[String: Any]] { doc[key] as! [[String: Any]] }

    private func ur(_ v: [String: Any]) throws -> UR {
        guard case .single(let ur) = try URText(v["ur"] as! String) else { throw URError.syntax("a part") }
        return ur
    }

    func testPSBTBothNames() throws {
        let all = cases("psbt")
        XCTAssertEqual(all.map { $0["type"] as! String }, ["psbt", "crypto-psbt"])
        for v in all {
            let psbt = try Hex.decode(v["psbt_hex"] as! String)
            let written = try PSBTPayload.ur(psbt, type: v["type"] as! String)
            XCTAssertEqual(Hex.encode(written.cbor), v["cbor_hex"] as? String)
            XCTAssertEqual(written.text, v["ur"] as? String)
            XCTAssertEqual(try PSBTPayload.psbt(from: try ur(v)), psbt)
            // A tagged byte string is read too, under its own generation's tag (310 for
            // crypto-psbt, 40310 for psbt), never the other's.
            let own: UInt64 = written.type == "psbt" ? 40310 : 310
            let tagged = try UR(type: written.type, cbor: CBOR.tagged(own, .bytes(psbt)).encoded)
            XCTAssertEqual(try PSBTPayload.psbt(from: tagged), psbt)
            let other = try UR(type: written.type, cbor: CBOR.tagged(own == 310 ? 40310 : 310, .bytes(psbt)).encoded)
            XCTAssertThrowsError(try PSBTPayload.psbt(from: other))
        }
        XCTAssertThrowsError(try PSBTPayload.psbt(from: try UR(type: "bytes", cbor: CBOR.bytes([1]).encoded)))
    }

    func testHDKeysBothGenerations() throws {
        for (key, generation) in [("crypto_hdkey", RegistryGeneration.v1), ("hdkey_v2", .v2)] {
            let all = cases(key)
            XCTAssertEqual(all.count, 2)
            for v in all {
                let parsed = try HDKey(ur: try ur(v))
                XCTAssertEqual(parsed.extendedKeyText, v["extended_key"] as? String, v["name"] as! String)
                XCTAssertEqual(Hex.encode(parsed.cbor(generation).encoded), v["cbor_hex"] as? String)
                XCTAssertEqual(try parsed.ur(generation).text, v["ur"] as? String)
            }
        }
        // The second vector, m/44'/1'/1'/0/1 on testnet, read from its tpub and origin.
        let v = cases("crypto_hdkey")[1]
        let parsed = try HDKey(ur: try ur(v))
        XCTAssertEqual(parsed.origin?.text, "44'/1'/1'/0/1")
        XCTAssertEqual(parsed.useInfo, CoinInfo(network: 1))
        XCTAssertEqual(parsed.parentFingerprint, 0xe918_1cf3)
        // The origin and use-info alone, as crypto-keypath and crypto-coin-info, both names.
        for generation in [RegistryGeneration.v1, .v2] {
            XCTAssertEqual(try KeyPath(ur: try parsed.origin!.ur(generation)), parsed.origin)
            XCTAssertEqual(try CoinInfo(ur: try parsed.useInfo!.ur(generation)), parsed.useInfo)
        }
        // BCR-2020-007's text: the origin m/44'/1'/1'/0/1 is {1: [44, true, 1, true, 1, true, 0, false, 1, false]}.
        XCTAssertEqual(Hex.encode(try parsed.origin!.ur().cbor), "a1018a182cf501f501f500f401f4")
        XCTAssertEqual(Hex.encode(try parsed.useInfo!.ur().cbor), "a10201")
        XCTAssertThrowsError(try KeyPath(ur: try UR(type: "crypto-keypath", cbor: CBOR.map([(.unsigned(9), .null)]).encoded)))
    }

    func testCryptoOutputs() throws {
        let all = cases("crypto_output")
        XCTAssertEqual(all.count, 5)
        for (i, v) in all.enumerated() {
            let parsed = try OutputDescriptor(ur: try ur(v))
            XCTAssertEqual(Hex.encode(parsed.cbor(.v1).encoded), v["cbor_hex"] as? String)
            XCTAssertEqual(try parsed.ur().text, v["ur"] as? String)
            let expected = v["descriptor"] as! String
            if i < 3 {
                XCTAssertEqual(parsed.text, expected)
            } else {
                // The README: vectors 4 and 5 print xpubs their CBOR cannot rebuild (no parent
                // fingerprint); their key data and chain codes must agree.
                var keys: [HDKey] = []
                switch parsed {
                case .pkh(.hd(let k)): keys = [k]
                case .wsh(.multi(1, let ks, sorted: false)): keys = ks.compactMap { if case .hd(let k) = $0 { k } else { nil } }
                default: XCTFail("vector \(i + 1): \(parsed.text)")
                }
                let printed = expected.split(whereSeparator: { "(),[]/".contains($0) }).filter { $0.hasPrefix("xpub") }
                XCTAssertEqual(printed.count, keys.count)
                for (key, text) in zip(keys, printed) {
                    let raw = try Base58.decodeCheck(String(text))
                    XCTAssertEqual(Array(raw[13..<45]), key.chainCode)
                    XCTAssertEqual(Array(raw[45..<78]), key.keyData)
                }
            }
        }
        XCTAssertEqual(
            try OutputDescriptor(ur: try ur(all[3])).text.replacing(#/xpub[1-9A-HJ-NP-Za-km-z]+/#, with: "K"),
            "pkh([d34db33f/44'/0'/0']K/1/*)")
    }

    func testOutputDescriptorV3AndAccountDescriptor() throws {
        let v3 = cases("output_descriptor_v3")
        XCTAssertEqual(v3.count, 2)
        for v in v3 {
            let parsed = try TextOutputDescriptor(ur: try UR(type: "output-descriptor", cbor: try Hex.decode(v["cbor_hex"] as! String)))
            XCTAssertEqual(parsed.source, v["source_text"] as? String)
            XCTAssertEqual(parsed.text, v["descriptor"] as? String)
            // The tagged form (as BCR-2023-010 prints it) is read too.
            let tagged = try TextOutputDescriptor(
                ur: try UR(type: "output-descriptor", cbor: try Hex.decode(v["tagged_cbor_hex"] as! String)))
            XCTAssertEqual(tagged, parsed)
        }
        let account = cases("account_descriptor")[0]
        let parsed = try Account(ur: try ur(account))
        XCTAssertEqual(parsed.masterFingerprint, 0x37b5_eed4)
        XCTAssertEqual(parsed.descriptors, account["descriptors"] as! [String])
    }

    func testCryptoAccount() throws {
        let v = cases("crypto_account")[0]
        let parsed = try Account(ur: try ur(v))
        XCTAssertEqual(parsed.masterFingerprint, 0x37b5_eed4)
        XCTAssertEqual(parsed.descriptors, v["descriptors"] as! [String])
        XCTAssertEqual(try parsed.ur().text, v["ur"] as? String)
        XCTAssertEqual(Hex.encode(try parsed.ur().cbor), v["cbor_hex"] as? String)
    }

    func testEthereumRequestAndSignatureRoundTrip() throws {
        let request = EthSignRequest(
            requestId: Array(0..<16),
            signData: try Hex.decode("e9808504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080"),
            dataType: .legacyTransaction, chainId: 1,
            path: KeyPath(path: [0x8000_002C, 0x8000_003C, 0x8000_0000, 0, 0], sourceFingerprint: 0x1234_5678),
            address: Array(repeating: 0x35, count: 20), origin: "MetaMask")
        let ur = try request.ur()
        XCTAssertEqual(ur.type, "eth-sign-request")
        XCTAssertEqual(try EthSignRequest(ur: ur), request)
        // The map: request id as UUID (tag 37), then keys 2-7 in order; the path under tag 304.
        let item = try CBOR(decoding: ur.cbor)
        XCTAssertEqual(item[1], .tagged(37, .bytes(Array(0..<16))))
        guard case .tagged(304, _)? = item[5] else { return XCTFail("the derivation path is not a tagged crypto-keypath") }
        let bad = try UR(type: "eth-sign-request", cbor: CBOR.map([(.unsigned(2), .bytes([1])), (.unsigned(3), .unsigned(9))]).encoded)
        XCTAssertThrowsError(try EthSignRequest(ur: bad))
        let unknownField = try UR(
            type: "eth-sign-request",
            cbor: CBOR.map([(.unsigned(2), .bytes([1])), (.unsigned(3), .unsigned(1)), (.unsigned(99), .null)]).encoded)
        XCTAssertThrowsError(try EthSignRequest(ur: unknownField))

        let signature = EthSignature(requestId: Array(0..<16), signature: Array(repeating: 7, count: 65))
        XCTAssertEqual(try EthSignature(ur: try signature.ur()), signature)
    }
}
