import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
@testable import WalletCard
import WalletCrypto

/// The host side of a session recorded with the genuine Keycard applet 3.2
/// (Tests/Fixtures/fixtures/keycard): every value Satchel computes must match it byte for byte.
final class TranscriptTests: XCTestCase {
    struct Step {
        let name: String
        let command: [UInt8]
        let response: [UInt8]
        let plainCommand: [UInt8]?
        let plainResponse: [UInt8]?
        let note: [String: String]
    }

    lazy var steps: [Step] = {
        let text = try! String(contentsOf: TestPaths.fixture("keycard/transcript.jsonl"), encoding: .utf8)
        return text.split(separator: "\n").map { line in
            let r = try! JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            var note = [String: String]()
            for word in (r["note"] as? String ?? "").split(separator: " ") where word.contains("=") {
                let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                note[String(parts[0])] = String(parts[1])
            }
            func hex(_ key: String) -> [UInt8]? { (r[key] as? String).map { try! Hex.decode($0) } }
            return Step(
                name: r["step"] as! String, command: hex("command_hex")!, response: hex("response_hex")!,
                plainCommand: hex("plain_command_hex"), plainResponse: hex("plain_response_hex"), note: note)
        }
    }()

    func step(_ prefix: String, after index: Int = 0) -> (Int, Step) {
        let i = steps.indices.first { $0 >= index && steps[$0].name.hasPrefix(prefix) }!
        return (i, steps[i])
    }

    let secret = try! Hex.decode("05c6ce68c78760fd529232a37484d9420bce348ffcf00689f03fbc5f8761723b")

    func testPairingSecretFromPassword() {
        XCTAssertEqual(KeycardCrypto.pairingSecret(password: SecureBytes(Array("KeycardTest".utf8))).bytes, secret)
    }

    func testSelectAnswersParse() throws {
        let fresh = try ApplicationInfo(selectResponse: ResponseAPDU(bytes: step("SELECT (factory-fresh").1.response).data)
        XCTAssertFalse(fresh.initialized)
        XCTAssertEqual(fresh.secureChannelPublicKey.count, 65)
        let noKey = try ApplicationInfo(selectResponse: ResponseAPDU(bytes: step("SELECT (initialized, no key)").1.response).data)
        XCTAssertTrue(noKey.initialized)
        XCTAssertEqual(noKey.versionText, "3.2")
        XCTAssertEqual(noKey.freePairingSlots, 10)
        XCTAssertEqual(noKey.instanceUID.map { Hex.encode($0) }, "6c5544797a91115dc3330ebd003851d2")
        XCTAssertFalse(noKey.keyLoaded)
        XCTAssertEqual(noKey.capabilities, 0x1F)
        // 81-form length once a key is loaded.
        let withKey = try ApplicationInfo(selectResponse: ResponseAPDU(bytes: step("SELECT (with key)").1.response).data)
        XCTAssertEqual(withKey.keyUID.map { Hex.encode($0) }, "16f5b9c7657df5e0b45016292d852a36622fb39b63c28017ccf21633270858f1")
        XCTAssertEqual(withKey.freePairingSlots, 9)
    }

    /// INIT's data rebuilt from the recorded ephemeral key and IV: 58-byte form.
    func testInitIsRebuiltExactly() throws {
        let cardKey = try ApplicationInfo(selectResponse: ResponseAPDU(bytes: step("SELECT (factory-fresh").1.response).data)
            .secureChannelPublicKey
        let (_, initStep) = step("INIT (58-byte")
        let ephemeral = SecureBytes(try Hex.decode(initStep.note["init_ephemeral_priv"]!))
        let pub = try Secp256k1.publicKey(of: ephemeral).uncompressed
        let shared = try Keycard.ecdh(ephemeral, cardKey)
        let data = Array(initStep.command[5...])
        XCTAssertEqual(Array(data[1..<66]), pub)
        let iv = Array(data[66..<82])
        let payload = Array("123456123456789012".utf8) + secret + [3, 5] + Array("654321".utf8)
        XCTAssertEqual(payload.count, 58)
        XCTAssertEqual(Array(data[82...]), KeycardCrypto.aesCBC(encrypt: true, key: shared.bytes, iv: iv, KeycardCrypto.pad(payload)))
    }

    func testPairingCryptogramsAndKey() throws {
        let (i, first) = step("PAIR step 1")
        let second = steps[i + 1]
        let challenge = Array(first.command[5...])
        XCTAssertEqual(Hash.sha256(secret + challenge), Array(first.response[0..<32]), "card cryptogram")
        XCTAssertEqual(Hash.sha256(secret + Array(first.response[32..<64])), Array(second.command[5...]), "client cryptogram")
        let salt = Array(second.response[1..<33])
        XCTAssertEqual(second.response[0], 0)
        XCTAssertEqual(Hex.encode(Hash.sha256(secret + salt)), first.note["pairing_key"])
    }

    /// Each secure-channel session of the transcript: ECDH, session keys, then every wrapped
    /// command re-encrypted and MACed to the recorded bytes, and every answer checked and
    /// decrypted to the recorded plaintext (the unknown-INS answer included).
    func testSecureChannelSessionsReplayByteForByte() throws {
        var index = 0
        var sessions = 0
        while let open = steps.indices.first(where: { $0 >= index && steps[$0].name.hasSuffix("OPEN SECURE CHANNEL") }) {
            let step = steps[open]
            let select = steps[..<open].last {
                $0.name.contains("SELECT") && ResponseAPDU.sw($0.response) == 0x9000 && $0.response.first == 0xA4
            }!
            let cardKey = try ApplicationInfo(selectResponse: Array(select.response.dropLast(2))).secureChannelPublicKey
            let ephemeral = SecureBytes(try Hex.decode(step.note["client_ephemeral_priv"]!))
            let x = try Keycard.ecdh(ephemeral, cardKey)
            XCTAssertEqual(Hex.encode(x.bytes), step.note["ecdh_x"])
            XCTAssertEqual(Array(step.command[5...]), try Secp256k1.publicKey(of: ephemeral).uncompressed)
            let pairing = steps[..<open].last { $0.note["pairing_key"] != nil }!.note["pairing_key"]!
            let keys = KeycardCrypto.sessionKeys(sharedX: x.bytes, pairingKey: try Hex.decode(pairing), salt: Array(step.response[0..<32]))
            XCTAssertEqual(Hex.encode(keys.enc.bytes), step.note["enc_key"])
            XCTAssertEqual(Hex.encode(keys.mac.bytes), step.note["mac_key"])
            XCTAssertEqual(Hex.encode(Array(step.response[32..<48])), step.note["iv0"])
            var session = SecureChannelSession(encKey: keys.enc, macKey: keys.mac, iv: Array(step.response[32..<48]))
            var k = open + 1
            while k < steps.count, let plain = steps[k].plainCommand {
                let s = steps[k]
                let apdu = CommandAPDU(cla: plain[0], ins: plain[1], p1: plain[2], p2: plain[3], data: Array(plain[4...]))
                XCTAssertEqual(Hex.encode(session.wrap(apdu)), Hex.encode(s.command), s.name)
                let answer = try session.unwrap(try ResponseAPDU(bytes: s.response), command: s.name)
                XCTAssertEqual(Hex.encode(answer.bytes), Hex.encode(s.plainResponse!), s.name)
                k += 1
            }
            XCTAssertGreaterThan(k, open + 2)
            sessions += 1
            index = k
        }
        XCTAssertEqual(sessions, 3)
    }

    /// A changed byte anywhere in a wrapped answer fails its MAC.
    func testTamperedAnswerFailsTheMAC() throws {
        let (open, step) = step("OPEN SECURE CHANNEL")
        let keys = (enc: SecureBytes(try Hex.decode(step.note["enc_key"]!)), mac: SecureBytes(try Hex.decode(step.note["mac_key"]!)))
        let auth = steps[open + 1]
        for position in [0, 20, auth.response.count - 3] {
            var session = SecureChannelSession(encKey: keys.enc, macKey: keys.mac, iv: Array(step.response[32..<48]))
            let plain = auth.plainCommand!
            _ = session.wrap(CommandAPDU(cla: plain[0], ins: plain[1], p1: plain[2], p2: plain[3], data: Array(plain[4...])))
            var bad = auth.response
            bad[position] ^= 0x01
            XCTAssertThrowsError(try session.unwrap(try ResponseAPDU(bytes: bad), command: "test")) {
                XCTAssertEqual($0 as? CardError, .macMismatch)
            }
        }
    }

    func testStatusExportAndSignatureAnswers() throws {
        func plain(_ name: String) -> [UInt8] { Array(step(name).1.plainResponse!.dropLast(2)) }
        // GET STATUS templates through the same parser the command uses.
        let status = try TLV.parse(TLV.parse(plain("GET STATUS (application)")).first(0xA3)!.value)
        XCTAssertEqual(status.filter { $0.tag == 0x02 }.map { $0.value }, [[3], [5]])
        XCTAssertEqual(Keycard.decodePath(plain("GET STATUS (key path")), [0x8000_002C, 0x8000_003C, 0x8000_0000, 0, 0])
        let export = try TLV.parse(TLV.parse(plain("EXPORT KEY public only")).first(0xA1)!.value)
        XCTAssertTrue(Hex.encode(export.first(0x80)!.value).hasPrefix("0437b0bb"))
        XCTAssertTrue(Hex.encode(export.first(0x80)!.value).hasSuffix("e024230"))
        let hash = try Hex.decode("3df27f3824d75010f430783fae4ceb43b0cbee4bafbac39712297a170cc8beb8")
        for name in ["SIGN (P1=00", "SIGN (P1=01"] {
            let signature = try Keycard.parseSignature(plain(name), hash: hash)
            XCTAssertTrue(Hex.encode(signature.publicKey).hasPrefix("0437b0bb"))
            let key = try Secp256k1.PublicKey(parsing: signature.publicKey)
            XCTAssertTrue(try Secp256k1.verifyECDSA(hash: hash, compact: signature.signature.compact, publicKey: key))
            XCTAssertEqual(try Secp256k1.lowS(compact: signature.signature.compact), signature.signature.compact)
            XCTAssertEqual(
                try Secp256k1.recoverECDSA(
                    hash: hash, compact: signature.signature.compact,
                    recoveryID: signature.signature.recoveryID
                ).uncompressed, signature.publicKey)
        }
        // The duress wallet of part B derives other keys: the reason INIT is always 58 bytes.
        let duress = try TLV.parse(TLV.parse(plain("B: EXPORT KEY public only")).first(0xA1)!.value).first(0x80)!.value
        XCTAssertTrue(Hex.encode(duress).hasPrefix("0450832739b0"))
    }

    /// The known-answer tests the protocol notes quote (§5.2, §5.3; from keycard-go's tests).
    func testKnownAnswersOfTheNotes() throws {
        let cardData = try Hex.decode("1D7C033E75E10EC578AB538F69F1B02538571BA3831441F1649E3F24B5B3E3E71D7BC2D6A3D02FC8CB2FBB3FD8711BB5")
        let keys = KeycardCrypto.sessionKeys(
            sharedX: try Hex.decode("B410E816DA313545151807E25A830201FA389913A977066AB0C6DE0E8631E400"),
            pairingKey: try Hex.decode("544FF0B9B0737E4BFC4ECDFCE09F522B837051BBE4FFCEC494FA420D8525670E"),
            salt: Array(cardData[0..<32]))
        XCTAssertEqual(Hex.encode(keys.enc.bytes), "4ff496554c01bae0a52323e3481b448c99d43982118d95c6918fe0354d224b90")
        XCTAssertEqual(Hex.encode(keys.mac.bytes), "185811013138ea1b4ffdbbfa7343ef2dbe3e54c2c231885e867f792448ac2fe5")
        XCTAssertEqual(Hex.encode(Array(cardData[32..<48])), "1d7bc2d6a3d02fc8cb2fbb3fd8711bb5")

        var session = SecureChannelSession(
            encKey: SecureBytes(try Hex.decode("FDBCB1637597CF3F8F5E8263007D4E45F64C12D44066D4576EB1443D60AEF441")),
            macKey: SecureBytes(try Hex.decode("2FB70219E6635EE0958AB3F7A428BA87E8CD6E6F873A5725A55F25B102D0F1F7")),
            iv: try Hex.decode("627E64358FA9BDCDAD4442BD8006E0A5"))
        let wrapped = session.wrap(
            CommandAPDU(ins: 0x11, data: try Hex.decode("D545A5E95963B6BCED86A6AE826D34C5E06AC64A1217EFFA1415A96674A82500")))
        XCTAssertEqual(
            Hex.encode(Array(wrapped[5...])),
            "ba796bf8fad1fd50407b87127b94f5023ef8903ae926ead8a204f961b8a0edaee7cccfe7f7f6380ce2c6f188e598e4468b7dedd0e807c18ccbda71a55f3e1f9a"
        )
        XCTAssertEqual(Hex.encode(session.iv), "ba796bf8fad1fd50407b87127b94f502")
    }

    func testTLVLengthForms() throws {
        let long = TLV(tag: 0xA4, value: [UInt8](repeating: 7, count: 200))
        XCTAssertEqual(Array(long.bytes.prefix(3)), [0xA4, 0x81, 200])
        XCTAssertEqual(try TLV.parse(long.bytes), [long])
        XCTAssertThrowsError(try TLV.parse([0xA4, 0x05, 1, 2]))
        XCTAssertThrowsError(try TLV.parse([0xA4, 0x81]))
        XCTAssertEqual(try TLV.parse([0x9F, 0x70, 0x01, 0xAA]), [TLV(tag: 0x9F70, value: [0xAA])])
        // Found by the tlv fuzz target: a length written longer than it needs was read, and
        // 0x80 (BER's indefinite form) was read as a length of 128.
        XCTAssertThrowsError(try TLV.parse([0x00, 0x81, 0x01, 0x1F])) {
            XCTAssertEqual($0 as? CardError, .malformedResponse("a TLV length not in its shortest form"))
        }
        XCTAssertThrowsError(try TLV.parse([0xA4, 0x82, 0x00, 0xC8] + [UInt8](repeating: 7, count: 200)))
        XCTAssertThrowsError(try TLV.parse([0xA4, 0x80] + [UInt8](repeating: 7, count: 128))) {
            XCTAssertEqual($0 as? CardError, .malformedResponse("a TLV length form Keycard does not use (0x80)"))
        }
        XCTAssertEqual(
            try TLV.parse([0xA4, 0x82, 0x01, 0x00] + [UInt8](repeating: 7, count: 256)),
            [TLV(tag: 0xA4, value: [UInt8](repeating: 7, count: 256))])
    }
}

extension ResponseAPDU {
    static func sw(_ bytes: [UInt8]) -> UInt16 { UInt16(bytes[bytes.count - 2]) << 8 | UInt16(bytes[bytes.count - 1]) }
}
