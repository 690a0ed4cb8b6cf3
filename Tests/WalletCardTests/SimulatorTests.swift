import SatchelTestSupport
@testable import WalletCardCLI
import WalletCore
import WalletKeys
import XCTest
@testable import KeycardSimulator
@testable import WalletCard
import WalletCrypto

/// The simulated card of these tests: credentials, the loaded seed and a known key.
struct CardFixture {
    let pin = SecureBytes(Array("123456".utf8)), puk = SecureBytes(Array("123456789012".utf8))
    let duress = SecureBytes(Array("654321".utf8))
    let secret = KeycardCrypto.pairingSecret(password: SecureBytes(Array("KeycardTest".utf8)))
    let path: [UInt32] = [0x8000_002C, 0x8000_003C, 0x8000_0000, 0, 0]
    let expectedPublic =
        "0437b0bb7a8288d38ed49a524b5dc98cff3eb5ca824c9f9dc0dfdb3d9cd600f299a6179912b7451c09896c4098eca7ce6b2e58330672795e847c4d6af44e024230"

    var seed: SecureBytes {
        let bip39 = BIP39()
        let m = try! bip39.parse(
            TestPhrase.abandonAbout, language: "english")
        return try! bip39.seed(of: m, passphrase: nil)
    }

    /// A card initialized, paired, with the channel open (PIN not verified).
    func ready(_ card: KeycardSimulator = KeycardSimulator()) throws -> (Keycard, Pairing) {
        let keycard = Keycard(channel: card)
        XCTAssertFalse(try keycard.select().initialized)
        try keycard.initialize(pin: pin, puk: puk, duressPIN: duress, pairingSecret: secret)
        XCTAssertTrue(try keycard.select().initialized)
        let pairing = try keycard.pair(pairingSecret: secret)
        try keycard.openSecureChannel(pairing)
        return (keycard, pairing)
    }
}

/// Satchel's Keycard client against the simulated applet 3.2, in process.
final class SimulatorTests: XCTestCase {
    let fixture = CardFixture()
    var pin: SecureBytes { fixture.pin }
    var puk: SecureBytes { fixture.puk }
    var duress: SecureBytes { fixture.duress }
    var secret: SecureBytes { fixture.secret }
    var path: [UInt32] { fixture.path }
    var expectedPublic: String { fixture.expectedPublic }
    var seed: SecureBytes { fixture.seed }
    func ready(_ card: KeycardSimulator = KeycardSimulator()) throws -> (Keycard, Pairing) { try fixture.ready(card) }

    func testTheAcceptanceFlow() throws {
        let (keycard, pairing) = try ready()
        XCTAssertEqual(keycard.info?.versionText, "3.2")
        XCTAssertEqual(try keycard.status(), CardStatus(pinRetries: 3, pukRetries: 5, keyLoaded: false))
        XCTAssertThrowsError(try keycard.loadSeed(seed)) {
            XCTAssertEqual(
                $0 as? CardError, .conditionsNotSatisfied("LOAD KEY (a PIN, a key or an open channel is missing, or the card forbids it)"))
        }
        try keycard.verifyPIN(pin)
        XCTAssertEqual(Hex.encode(try keycard.loadSeed(seed)), "16f5b9c7657df5e0b45016292d852a36622fb39b63c28017ccf21633270858f1")
        XCTAssertEqual(try keycard.exportKey(path: path, kind: .publicKey).publicKey.map { Hex.encode($0) }, expectedPublic)
        // As the recorded card: the extended key of m/44'/60'/0'/0, and a private key only in EIP-1581.
        let extended = try keycard.exportKey(path: Array(path.prefix(4)), kind: .extendedPublicKey)
        XCTAssertEqual(
            extended.chainCode.map { Hex.encode($0) },
            "8220c879d136f02003dc804811e42390714ea06448aeaee158c62d65f12a421d988f".dropFirst(4).description)
        XCTAssertThrowsError(try keycard.exportKey(path: path, kind: .privateKey))
        let eip1581 = try keycard.exportKey(path: [0x8000_002B, 0x8000_003C, 0x8000_062D, 0x8000_0000, 0], kind: .privateKey)
        XCTAssertEqual(eip1581.privateKey.map { Hex.encode($0.bytes) }, "20e61d44eb73cb7d5ff4526bac8c0b96451d8e018b2d6c79022e7ce3b583a754")
        // SIGN with a path: verifies, low-S, the recovery id gives the exported key.
        let hash = Hash.sha256(Array("Satchel Keycard transcript test message".utf8))
        let signature = try keycard.sign(hash: hash, key: .path(path, makeCurrent: true))
        XCTAssertEqual(Hex.encode(signature.publicKey), expectedPublic)
        let recovered = try Secp256k1.recoverECDSA(
            hash: hash, compact: signature.signature.compact, recoveryID: signature.signature.recoveryID)
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
        XCTAssertThrowsError(
            try keycard.unblockPIN(puk: SecureBytes(Array("000000000000".utf8)), newPIN: SecureBytes(Array("111111".utf8)))
        ) {
            XCTAssertEqual($0 as? CardError, .wrongPUK(retriesLeft: 4))
        }
        try keycard.unblockPIN(puk: puk, newPIN: SecureBytes(Array("111111".utf8)))
        XCTAssertEqual(try keycard.status(), CardStatus(pinRetries: 3, pukRetries: 5, keyLoaded: false))
        _ = try keycard.select()
        try keycard.openSecureChannel(try keycard.pair(pairingSecret: secret))
        try keycard.verifyPIN(SecureBytes(Array("111111".utf8)))
    }

    /// The PUK's last try used: the card answers 63C0 to every PUK, the right one too, and the
    /// error says it is blocked and that only a factory reset helps (not "wrong PUK: 0 tries").
    func testBlockedPUKIsSaidSo() throws {
        let (keycard, _) = try ready()
        let wrong = SecureBytes(Array("000000".utf8)), wrongPUK = SecureBytes(Array("000000000000".utf8))
        for _ in 0..<3 { XCTAssertThrowsError(try keycard.verifyPIN(wrong)) }
        for left in (1...4).reversed() {
            XCTAssertThrowsError(try keycard.unblockPIN(puk: wrongPUK, newPIN: pin)) {
                XCTAssertEqual($0 as? CardError, .wrongPUK(retriesLeft: left))
            }
        }
        XCTAssertThrowsError(try keycard.unblockPIN(puk: wrongPUK, newPIN: pin)) { XCTAssertEqual($0 as? CardError, .pukBlocked) }
        XCTAssertThrowsError(try keycard.unblockPIN(puk: puk, newPIN: pin)) { error in
            XCTAssertEqual(error as? CardError, .pukBlocked)
            XCTAssertEqual((error as? CardError)?.code, "card.puk_blocked")
            XCTAssertEqual(
                (error as? CardError)?.message,
                "the PUK is blocked (no tries left; the card refuses every PUK now, the right one too): only a factory reset helps (card-info factory-reset --confirm), which erases the card's key and pairings"
            )
        }
    }

    /// A pairing kept from before a factory reset belongs to another applet instance: refused
    /// by name before its slot is used (the card would say its slot is empty, or open a slot
    /// that another client paired since).
    func testPairingOfAnotherInstanceIsNamed() throws {
        let card = KeycardSimulator()
        let (keycard, pairing) = try ready(card)
        let before = try XCTUnwrap(keycard.info?.instanceUID)
        let kept = Pairing(index: pairing.index, key: pairing.key, instanceUID: before)
        try keycard.verifyPIN(pin)
        try keycard.factoryReset()
        _ = try keycard.select()
        try keycard.initialize(pin: pin, puk: puk, duressPIN: duress, pairingSecret: secret)
        let after = try XCTUnwrap(try keycard.select().instanceUID)
        XCTAssertNotEqual(before, after)
        XCTAssertThrowsError(try keycard.openSecureChannel(kept)) { error in
            XCTAssertEqual(error as? CardError, .otherCardInstance(pairedWith: Hex.encode(before), card: Hex.encode(after)))
            XCTAssertEqual((error as? CardError)?.code, "card.other_instance")
        }
        // Records write paths as every other record does.
        XCTAssertEqual(CardRecords.path([0x8000_0054, 0x8000_0000, 0x8000_0000, 0, 7]), "m/84'/0'/0'/0/7")
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
        XCTAssertThrowsError(
            try keycard.initialize(pin: pin, puk: SecureBytes(Array("12345678901".utf8)), duressPIN: duress, pairingSecret: secret))
        XCTAssertThrowsError(
            try keycard.initialize(pin: SecureBytes(Array("12345a".utf8)), puk: puk, duressPIN: duress, pairingSecret: secret))
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
                let fields =
                    TLV(tag: 0x8F, value: [UInt8](repeating: 1, count: 16)).bytes
                    + TLV(tag: 0x80, value: [0x04] + [UInt8](repeating: 2, count: 64)).bytes
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

/// Where the genuine applet 3.2 and the first simulator differed (found by running Satchel
/// against status-keycard 3.2 in jCardSim), and what Satchel does about each.
final class GenuineAppletFidelityTests: XCTestCase {
    let base = CardFixture()

    func unlocked(_ card: KeycardSimulator) throws -> (Keycard, Pairing) {
        let (keycard, pairing) = try base.ready(card)
        try keycard.verifyPIN(base.pin)
        try keycard.loadSeed(base.seed)
        return (keycard, pairing)
    }

    /// An extended export at m answers a stale chain code (zeros after power-up, then the last
    /// derived key's); the client refuses to ask, and CardKeys gives BIP32's keys at paths with
    /// no hardened step, a hardened last step, and inside EIP-1581.
    func testNoExtendedExportAtMasterAndCardKeysMatchSoftware() throws {
        let card = KeycardSimulator()
        let (keycard, _) = try unlocked(card)
        let master = try ExtendedKey.master(seed: base.seed)
        let atMaster = {
            try TLV.parse(TLV.parse(try keycard.command(CommandAPDU(ins: 0xC2, p1: 0x01, p2: 0x02), "EXPORT KEY")).first(0xA1)!.value)
                .first(0x82)!.value
        }
        XCTAssertEqual(try atMaster(), [UInt8](repeating: 0, count: 32))
        let account = try keycard.exportKey(path: base.path.dropLast(2) + [], kind: .extendedPublicKey)
        XCTAssertEqual(try atMaster(), account.chainCode)
        XCTAssertNotEqual(try atMaster(), master.chainCode)
        XCTAssertThrowsError(try keycard.exportKey(path: [], kind: .extendedPublicKey)) {
            XCTAssertEqual($0 as? CardError, .masterChainCodeUnavailable)
        }

        let keys = CardKeys(keycard)
        let h = DerivationPath.hardened
        // Extended nodes: no hardened step, a hardened last step, and below one.
        for path in [[0, 0, 0], [0, 0, 1], [0, 0, 2], [0], [44 + h, 60 + h, 0 + h], [44 + h, 60 + h, 0 + h, 0, 0]] as [[UInt32]] {
            let node = try keys.node(at: path)
            let want = try master.derive(path)
            XCTAssertEqual(node.publicKey.compressed, want.publicKey.compressed, "\(path)")
            XCTAssertEqual(node.chainCode, want.chainCode, "\(path)")
            XCTAssertEqual(node.parentFingerprint, want.parentFingerprint, "\(path)")
        }
        // Public keys alone, also inside EIP-1581 where the card exports no extended key.
        for path in [
            [], [0, 0, 5], [44 + h, 60 + h, 0 + h], [43 + h, 60 + h, 1581 + h, 0 + h, 0 + h], [43 + h, 60 + h, 1581 + h, 0 + h, 0],
        ] as [[UInt32]] {
            XCTAssertEqual(try keys.publicKey(at: path).compressed, try master.derive(path).publicKey.compressed, "\(path)")
        }
        XCTAssertThrowsError(try keys.node(at: [])) { XCTAssertEqual($0 as? CardError, .masterChainCodeUnavailable) }
    }

    /// CHANGE PIN after the duress PIN changes the duress PIN, as the applet's `pin` is then
    /// the alt PIN: the main PIN still opens the main wallet, the new one the duress wallet.
    func testChangePINUnderTheDuressPINChangesTheDuressPIN() throws {
        let card = KeycardSimulator()
        let (keycard, pairing) = try unlocked(card)
        let reopen = { (pin: SecureBytes) throws -> Void in
            _ = try keycard.select()
            try keycard.openSecureChannel(pairing)
            try keycard.verifyPIN(pin)
        }
        try reopen(base.duress)
        let newPIN = SecureBytes(Array("111111".utf8))
        try keycard.changePIN(newPIN)
        try reopen(base.pin)
        XCTAssertEqual(try keycard.exportKey(path: base.path, kind: .publicKey).publicKey.map { Hex.encode($0) }, base.expectedPublic)
        try reopen(newPIN)
        let duressKey = try keycard.exportKey(path: base.path, kind: .publicKey).publicKey.map { Hex.encode($0) }
        XCTAssertNotNil(duressKey)
        XCTAssertNotEqual(duressKey, base.expectedPublic)
        XCTAssertThrowsError(try reopen(base.duress)) { XCTAssertEqual($0 as? CardError, .wrongPIN(retriesLeft: 2)) }
    }

    /// INIT makes a new secure-channel key pair (the transcript's SELECT answers differ before
    /// and after INIT); after a reset, anything but SELECT gets 6986.
    func testNewChannelKeyAtInitAnd6986AfterReset() throws {
        let transcript = try TestPaths.jsonLines(TestPaths.fixture("keycard/transcript.jsonl"))
        XCTAssertNotEqual(
            Array(HexString.bytes(transcript[0]["response_hex"] as! String).prefix(67)),
            Array(HexString.bytes(transcript[3]["response_hex"] as! String)[20..<87]))
        let card = KeycardSimulator()
        let keycard = Keycard(channel: card)
        let before = try keycard.select().secureChannelPublicKey
        try keycard.initialize(pin: base.pin, puk: base.puk, duressPIN: base.duress, pairingSecret: base.secret)
        let after = try keycard.select().secureChannelPublicKey
        XCTAssertEqual(before.count, 65)
        XCTAssertEqual(after.count, 65)
        XCTAssertNotEqual(before, after)
        card.reset()
        XCTAssertEqual(card.process([0x80, 0xF2, 0x00, 0x00, 0x00]), [0x69, 0x86])
        XCTAssertEqual(card.process([0x80, 0x12, 0x00, 0x00, 0x20] + [UInt8](repeating: 1, count: 32)), [0x69, 0x86])
        XCTAssertTrue(try keycard.select().initialized)
        XCTAssertEqual(card.process([0x80, 0xF2, 0x00, 0x00, 0x00]), [0x69, 0x85])  // selected: no channel
    }

    /// What the card's answers mean, said plainly; malformed PINs and PUKs never reach the card.
    func testMessagesAndCredentialFormats() throws {
        let card = KeycardSimulator()
        let (keycard, pairing) = try unlocked(card)
        XCTAssertThrowsError(try keycard.unblockPIN(puk: base.puk, newPIN: base.pin)) { XCTAssertEqual($0 as? CardError, .pinNotBlocked) }
        _ = try keycard.select()
        XCTAssertThrowsError(try keycard.sign(hash: [UInt8](repeating: 7, count: 32), key: .pinless)) {
            XCTAssertEqual($0 as? CardError, .noPinlessPath)
        }
        try keycard.openSecureChannel(pairing)
        let sent = card.transmitted
        for bad in ["12345", "1234567", "12345a"] {
            XCTAssertThrowsError(try keycard.verifyPIN(SecureBytes(Array(bad.utf8)))) {
                XCTAssertEqual($0 as? CardError, .badCredential("the PIN must be 6 digits"))
            }
        }
        XCTAssertThrowsError(try keycard.unblockPIN(puk: SecureBytes(Array("12345678901".utf8)), newPIN: base.pin)) {
            XCTAssertEqual($0 as? CardError, .badCredential("the PUK must be 12 digits"))
        }
        XCTAssertEqual(card.transmitted, sent)
        XCTAssertEqual(try keycard.status().pinRetries, 3)
    }
}

/// --wait: until a Keycard answers SELECT, not until any card is present.
final class WaitForKeycardTests: XCTestCase {
    struct Blank: Error {}

    func testWaitsPastCardsThatAreNotAKeycard() throws {
        var tries = 0
        // A blank card answers the first attempts (nil: no Keycard), the Keycard the fourth.
        let found = try ReaderOptions.untilKeycard(
            wait: 5,
            { () -> String? in
                tries += 1
                return tries < 4 ? nil : "keycard"
            }, failure: { throw Blank() })
        XCTAssertEqual(found, "keycard")
        XCTAssertEqual(tries, 4)
        // Without --wait: one attempt, then the failure.
        tries = 0
        XCTAssertThrowsError(
            try ReaderOptions.untilKeycard(
                wait: 0,
                { () -> String? in
                    tries += 1; return nil
                }, failure: { throw Blank() })
        ) {
            XCTAssertTrue($0 is Blank)
        }
        XCTAssertEqual(tries, 1)
    }
}
