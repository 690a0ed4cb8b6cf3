import WalletCore
import WalletKeys
import XCTest
@testable import KeycardSimulator
@testable import WalletCard

/// Satchel's Keycard client against the simulated applet 3.2, in process.
final class SimulatorTests: XCTestCase {
    let pin = SecureBytes(Array("123456".utf8)), puk = SecureBytes(Array("123456789012".utf8))
    let duress = SecureBytes(Array("654321".utf8))
    let secret = KeycardCrypto.pairingSecret(password: SecureBytes(Array("KeycardTest".utf8)))
    let path: [UInt32] = [0x8000_002C, 0x8000_003C, 0x8000_0000, 0, 0]
    let expectedPublic = "0437b0bb7a8288d38ed49a524b5dc98cff3eb5ca824c9f9dc0dfdb3d9cd600f299a6179912b7451c09896c4098eca7ce6b2e58330672795e847c4d6af44e024230"

    var seed: SecureBytes {
        let bip39 = BIP39()
        let m = try! bip39.parse("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", language: "english")
        return try! bip39.seed(of: m, passphrase: nil)
    }

    /// A card initialized, paired, with the channel open and the PIN verified.
    func ready(_ card: KeycardSimulator = KeycardSimulator()) throws -> (Keycard, Pairing) {
        let keycard = Keycard(channel: card)
        XCTAssertFalse(try keycard.select().initialized)
        try keycard.initialize(pin: pin, puk: puk, duressPIN: duress, pairingSecret: secret)
        XCTAssertTrue(try keycard.select().initialized)
        let pairing = try keycard.pair(pairingSecret: secret)
        try keycard.openSecureChannel(pairing)
        return (keycard, pairing)
    }

    func testTheAcceptanceFlow() throws {
        let (keycard, pairing) = try ready()
        XCTAssertEqual(keycard.info?.versionText, "3.2")
        XCTAssertEqual(try keycard.status(), CardStatus(pinRetries: 3, pukRetries: 5, keyLoaded: false))
        XCTAssertThrowsError(try keycard.loadSeed(seed)) { XCTAssertEqual($0 as? CardError, .conditionsNotSatisfied("LOAD KEY (a PIN, a key or an open channel is missing, or the card forbids it)")) }
        try keycard.verifyPIN(pin)
        XCTAssertEqual(Hex.encode(try keycard.loadSeed(seed)), "16f5b9c7657df5e0b45016292d852a36622fb39b63c28017ccf21633270858f1")
        XCTAssertEqual(try keycard.exportKey(path: path, kind: .publicKey).publicKey.map { Hex.encode($0) }, expectedPublic)
        // As the recorded card: the extended key of m/44'/60'/0'/0, and a private key only in EIP-1581.
        let extended = try keycard.exportKey(path: Array(path.prefix(4)), kind: .extendedPublicKey)
        XCTAssertEqual(extended.chainCode.map { Hex.encode($0) }, "8220c879d136f02003dc804811e42390714ea06448aeaee158c62d65f12a421d988f".dropFirst(4).description)
        XCTAssertThrowsError(try keycard.exportKey(path: path, kind: .privateKey))
        let eip1581 = try keycard.exportKey(path: [0x8000_002B, 0x8000_003C, 0x8000_062D, 0x8000_0000, 0], kind: .privateKey)
        XCTAssertEqual(eip1581.privateKey.map { Hex.encode($0.bytes) }, "20e61d44eb73cb7d5ff4526bac8c0b96451d8e018b2d6c79022e7ce3b583a754")
        // SIGN with a path: verifies, low-S, the recovery id gives the exported key.
        let hash = Hash.sha256(Array("Satchel Keycard transcript test message".utf8))
        let signature = try keycard.sign(hash: hash, key: .path(path, makeCurrent: true))
        XCTAssertEqual(Hex.encode(signature.publicKey), expectedPublic)
        let recovered = try Secp256k1.recoverECDSA(hash: hash, compact: signature.signature.compact, recoveryID: signature.signature.recoveryID)
        XCTAssertEqual(Hex.encode(recovered.uncompressed), expectedPublic)
        XCTAssertEqual(try Secp256k1.lowS(compact: signature.signature.compact), signature.signature.compact)
        XCTAssertEqual(try keycard.currentPath(), path)
        XCTAssertEqual(try keycard.status(), CardStatus(pinRetries: 3, pukRetries: 5, keyLoaded: true))
        // An unknown INS: 6D00 under the old IV (3.x quirk), and the channel goes on.
        XCTAssertThrowsError(try keycard.command(CommandAPDU(ins: 0xE0), "UNKNOWN")) {
            XCTAssertEqual($0 as? CardError, .unexpectedStatus(command: "UNKNOWN", sw: 0x6D00))
        }
        XCTAssertEqual(try keycard.status().keyLoaded, true)
        // Unpair our own slot, then a factory reset wipes everything.
        try keycard.unpair(index: pairing.index)
        XCTAssertEqual(try keycard.select().freePairingSlots, 10)
        try keycard.factoryReset()
        XCTAssertFalse(try keycard.select().initialized)
    }

    func testWrongPINCountsDownBlocksAndThePUKUnblocks() throws {
        let (keycard, _) = try ready()
        let wrong = SecureBytes(Array("000000".utf8))
        XCTAssertThrowsError(try keycard.verifyPIN(wrong)) { XCTAssertEqual($0 as? CardError, .wrongPIN(retriesLeft: 2)) }
        XCTAssertThrowsError(try keycard.verifyPIN(wrong)) { XCTAssertEqual($0 as? CardError, .wrongPIN(retriesLeft: 1)) }
        XCTAssertThrowsError(try keycard.verifyPIN(wrong)) { XCTAssertEqual($0 as? CardError, .pinBlocked) }
        XCTAssertThrowsError(try keycard.verifyPIN(pin)) { XCTAssertEqual($0 as? CardError, .pinBlocked) }
        XCTAssertEqual(try keycard.status().pinRetries, 0)
        XCTAssertThrowsError(try keycard.unblockPIN(puk: SecureBytes(Array("000000000000".utf8)), newPIN: SecureBytes(Array("111111".utf8)))) {
            XCTAssertEqual($0 as? CardError, .wrongPUK(retriesLeft: 4))
        }
        try keycard.unblockPIN(puk: puk, newPIN: SecureBytes(Array("111111".utf8)))
        XCTAssertEqual(try keycard.status(), CardStatus(pinRetries: 3, pukRetries: 5, keyLoaded: false))
        _ = try keycard.select()
        try keycard.openSecureChannel(try keycard.pair(pairingSecret: secret))
        try keycard.verifyPIN(SecureBytes(Array("111111".utf8)))
    }

    func testNoFreePairingSlot() throws {
        let (keycard, _) = try ready()
        _ = try keycard.select()
        for _ in 1..<KeycardSimulator.pairingSlots { _ = try keycard.pair(pairingSecret: secret) }
        XCTAssertEqual(try keycard.select().freePairingSlots, 0)
        XCTAssertThrowsError(try keycard.pair(pairingSecret: secret)) { XCTAssertEqual($0 as? CardError, .noFreePairingSlot) }
        // A wrong pairing password is caught by the card's cryptogram, before any slot is used.
        XCTAssertThrowsError(try keycard.pair(pairingSecret: KeycardCrypto.pairingSecret(password: SecureBytes(Array("wrong".utf8))))) {
            XCTAssertEqual($0 as? CardError, .badCardCryptogram)
        }
    }

    /// A channel that changes one bit of the next wrapped command or answer.
    final class Tamper: CardChannel {
        let card: KeycardSimulator
        var flipCommand = false, flipAnswer = false
        init(_ card: KeycardSimulator) { self.card = card }
        func transmit(_ apdu: [UInt8]) throws(CardError) -> [UInt8] {
            var apdu = apdu
            if flipCommand && apdu.count > 10 { apdu[10] ^= 1; flipCommand = false }
            var answer = try card.transmit(apdu)
            if flipAnswer && answer.count > 10 { answer[3] ^= 1; flipAnswer = false }
            return answer
        }
    }

    func testTamperedMACsCloseTheChannel() throws {
        let card = KeycardSimulator()
        _ = try ready(card)
        let tamper = Tamper(card)
        let keycard = Keycard(channel: tamper)
        _ = try keycard.select()
        try keycard.openSecureChannel(try keycard.pair(pairingSecret: secret))
        tamper.flipCommand = true
        XCTAssertThrowsError(try keycard.status()) { XCTAssertEqual($0 as? CardError, .channelClosed) }
        XCTAssertFalse(keycard.channelOpen)
        _ = try keycard.select()
        try keycard.openSecureChannel(try keycard.pair(pairingSecret: secret))
        tamper.flipAnswer = true
        XCTAssertThrowsError(try keycard.status()) { XCTAssertEqual($0 as? CardError, .macMismatch) }
        XCTAssertFalse(keycard.channelOpen)
    }

    /// A duress PIN equal to the PIN, or malformed credentials, are refused before anything is
    /// sent. (PIN 123456 with PUK 123456789012 is fine: INIT is always the 58-byte form, and the
    /// acceptance flow exports the real BIP44 key with them, not the duress wallet's.)
    func testDangerousCredentialsAreRefused() throws {
        let card = KeycardSimulator()
        let keycard = Keycard(channel: card)
        _ = try keycard.select()
        let sent = card.transmitted
        XCTAssertThrowsError(try keycard.initialize(pin: pin, puk: puk, duressPIN: pin, pairingSecret: secret))
        XCTAssertThrowsError(try keycard.initialize(pin: pin, puk: SecureBytes(Array("12345678901".utf8)), duressPIN: duress, pairingSecret: secret))
        XCTAssertThrowsError(try keycard.initialize(pin: SecureBytes(Array("12345a".utf8)), puk: puk, duressPIN: duress, pairingSecret: secret))
        XCTAssertEqual(card.transmitted, sent)
    }

    func testGeneratedMnemonicIsAValidPhrase() throws {
        let (keycard, _) = try ready()
        let indexes = try keycard.generateMnemonicIndexes(words: 24)
        XCTAssertEqual(indexes.count, 24)
        let words = indexes.map { BIP39.wordlist("english")!.words[$0] }
        XCTAssertNoThrow(try BIP39().parse(words.joined(separator: " "), language: "english"))
    }

    /// A card that answers SELECT with applet 4.0 (secure channel v2) is named, not misread.
    func testApplet4IsReportedUnsupported() throws {
        final class Applet4: CardChannel {
            func transmit(_ apdu: [UInt8]) throws(CardError) -> [UInt8] {
                let fields = TLV(tag: 0x8F, value: [UInt8](repeating: 1, count: 16)).bytes + TLV(tag: 0x80, value: [0x04] + [UInt8](repeating: 2, count: 64)).bytes
                    + TLV(tag: 0x02, value: [4, 0]).bytes + TLV(tag: 0x02, value: [10]).bytes
                return TLV(tag: 0xA4, value: fields).bytes + [0x90, 0x00]
            }
        }
        XCTAssertThrowsError(try Keycard(channel: Applet4()).select()) {
            XCTAssertEqual($0 as? CardError, .unsupportedApplet(version: "4.0"))
            XCTAssertEqual(($0 as? CardError)?.exitStatus, .unavailable)
        }
    }
}
