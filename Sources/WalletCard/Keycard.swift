import Foundation
import WalletCore
import WalletCrypto

/// What SELECT says about a Keycard applet.
public struct ApplicationInfo: Sendable, Equatable {
    public let initialized: Bool
    /// The card's secure-channel public key (65 bytes, uncompressed).
    public let secureChannelPublicKey: [UInt8]
    public let instanceUID: [UInt8]?
    /// (major, minor); nil before INIT (the pre-initialized answer carries no version).
    public let version: (major: UInt8, minor: UInt8)?
    public let freePairingSlots: Int?
    /// SHA-256 of the master public key; empty when no key is loaded.
    public let keyUID: [UInt8]?
    public let capabilities: UInt8?

    public var keyLoaded: Bool { keyUID?.count == 32 }
    public var versionText: String? { version.map { "\($0.major).\($0.minor)" } }

    public static func == (a: ApplicationInfo, b: ApplicationInfo) -> Bool {
        a.initialized == b.initialized && a.secureChannelPublicKey == b.secureChannelPublicKey && a.instanceUID == b.instanceUID
            && a.versionText == b.versionText && a.freePairingSlots == b.freePairingSlots && a.keyUID == b.keyUID
            && a.capabilities == b.capabilities
    }

    /// Parses a SELECT answer: `80 41 <key>` before INIT, the A4 template after.
    public init(selectResponse data: [UInt8]) throws(CardError) {
        let top = try TLV.parse(data)
        if let key = top.first(0x80), top.first(0xA4) == nil {
            guard key.value.count == 65 else { throw .malformedResponse("SELECT: a public key of \(key.value.count) bytes") }
            (initialized, secureChannelPublicKey) = (false, key.value)
            (instanceUID, version, freePairingSlots, keyUID, capabilities) = (nil, nil, nil, nil, nil)
            return
        }
        guard let template = top.first(0xA4) else { throw .malformedResponse("SELECT: neither 80 nor A4") }
        let fields = try TLV.parse(template.value)
        guard let key = fields.first(0x80), key.value.count == 65 else { throw .malformedResponse("SELECT: no secure-channel key") }
        let integers = fields.filter { $0.tag == 0x02 }
        guard integers.count >= 2, integers[0].value.count == 2, integers[1].value.count == 1 else {
            throw .malformedResponse("SELECT: no version or pairing-slot count")
        }
        initialized = true
        secureChannelPublicKey = key.value
        instanceUID = fields.first(0x8F)?.value
        version = (integers[0].value[0], integers[0].value[1])
        freePairingSlots = Int(integers[1].value[0])
        keyUID = fields.first(0x8E)?.value ?? []
        capabilities = fields.first(0x8D)?.value.first
    }
}

/// GET STATUS (application).
public struct CardStatus: Sendable, Equatable {
    public let pinRetries: Int
    public let pukRetries: Int
    public let keyLoaded: Bool
}

/// A pairing: the slot index and the key both sides derived. The key is a secret.
public struct Pairing: Sendable {
    public let index: UInt8
    public let key: SecureBytes
    /// The applet instance it was made with, when known: a card of another instance is
    /// refused by name before its slot is used.
    public let instanceUID: [UInt8]?

    public init(index: UInt8, key: SecureBytes, instanceUID: [UInt8]? = nil) {
        self.index = index
        self.key = key
        self.instanceUID = instanceUID
    }
}

/// A signature from the card, as Satchel's other signatures: low-S r ‖ s, a recovery id
/// found by recovering the card's returned key, and that key.
public struct CardSignature: Sendable {
    public let publicKey: [UInt8]
    public let signature: ECDSASignature
}

/// What EXPORT KEY can give.
public enum ExportKind: UInt8, Sendable {
    case privateKey = 0, publicKey = 1, extendedPublicKey = 2
}

public struct ExportedKey: Sendable {
    public let publicKey: [UInt8]?
    public let chainCode: [UInt8]?
    public let privateKey: SecureBytes?
}

/// SIGN's choice of key (P1): the current key, a path (optionally made current), or the
/// PIN-less path.
public enum SignKey: Sendable, Equatable {
    case current
    case path([UInt32], makeCurrent: Bool)
    case pinless
}

/// The Keycard applet 3.x command set over a `CardChannel`, with secure channel v1.
public final class Keycard {
    public let channel: CardChannel
    public private(set) var info: ApplicationInfo?
    private var session: SecureChannelSession?

    public static let instanceAID: [UInt8] = [0xA0, 0x00, 0x00, 0x08, 0x04, 0x00, 0x01, 0x01, 0x01]

    public init(channel: CardChannel) { self.channel = channel }

    // MARK: - Without the secure channel

    /// SELECT by the instance AID, falling back to the 8-byte class AID. Closes any channel.
    @discardableResult
    public func select() throws(CardError) -> ApplicationInfo {
        session = nil
        var response = try channel.send(CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, data: Self.instanceAID))
        if response.sw != 0x9000 {
            response = try channel.send(CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, data: Array(Self.instanceAID.prefix(8))))
        }
        guard response.sw == 0x9000 else { throw .noKeycard }
        let parsed = try ApplicationInfo(selectResponse: response.data)
        if let v = parsed.version, v.major >= 4 { throw .unsupportedApplet(version: parsed.versionText!) }
        info = parsed
        return parsed
    }

    /// INIT, always in the 58-byte form with an explicit duress PIN different from the PIN: the
    /// shorter forms make the duress PIN the PUK's first six digits, and a PIN equal to those
    /// then silently opens the duress wallet (protocol notes §4). With the 58-byte form a PIN
    /// equal to the PUK's first digits is harmless, so it is allowed.
    public func initialize(
        pin: SecureBytes, puk: SecureBytes, duressPIN: SecureBytes, pairingSecret: SecureBytes,
        pinRetries: UInt8 = 3, pukRetries: UInt8 = 5
    ) throws(CardError) {
        guard let info else { throw .notInitialized }
        guard !info.initialized else { throw .alreadyInitialized }
        try Self.checkDigits(pin, count: 6, what: "the PIN")
        try Self.checkDigits(puk, count: 12, what: "the PUK")
        try Self.checkDigits(duressPIN, count: 6, what: "the duress PIN")
        guard pin.bytes != duressPIN.bytes else { throw .badCredential("the duress PIN must differ from the PIN") }
        guard pairingSecret.count == 32, (2...10).contains(pinRetries), (3...12).contains(pukRetries) else {
            throw .badCredential("retries: PIN 2–10, PUK 3–12")
        }
        var payload = pin.bytes + puk.bytes + pairingSecret.bytes + [pinRetries, pukRetries] + duressPIN.bytes
        defer { SecureBytes.wipe(&payload) }
        let (ephemeral, publicKey) = try Self.ephemeralKey()
        let shared = try Self.ecdh(ephemeral, info.secureChannelPublicKey)
        let iv = Sodium.randomBytes(16).bytes
        let ct = KeycardCrypto.aesCBC(encrypt: true, key: shared.bytes, iv: iv, KeycardCrypto.pad(payload))
        let response = try channel.send(CommandAPDU(ins: 0xFE, data: [0x41] + publicKey + iv + ct))
        try check(response.sw, "INIT")
    }

    /// PAIR, both steps; checks the card's cryptogram, so a wrong pairing secret is caught here.
    public func pair(pairingSecret: SecureBytes, persistentOnly: Bool = true) throws(CardError) -> Pairing {
        let challenge = Sodium.randomBytes(32).bytes
        // P2 (3.2): 02 = a persistent slot or 6A84, never the ephemeral slot that a SELECT drops.
        var p2: UInt8 = persistentOnly ? 0x02 : 0x00
        var first = try channel.send(CommandAPDU(ins: 0x12, p1: 0x00, p2: p2, data: challenge))
        if first.sw == 0x6A86 && persistentOnly {  // 3.1 knows no P2
            p2 = 0x00
            first = try channel.send(CommandAPDU(ins: 0x12, p1: 0x00, data: challenge))
        }
        try check(first.sw, "PAIR")
        guard first.data.count == 64 else { throw .malformedResponse("PAIR: \(first.data.count) bytes") }
        guard Hash.sha256(pairingSecret.bytes + challenge) == Array(first.data[0..<32]) else { throw .badCardCryptogram }
        let cardChallenge = Array(first.data[32..<64])
        let second = try channel.send(CommandAPDU(ins: 0x12, p1: 0x01, p2: p2, data: Hash.sha256(pairingSecret.bytes + cardChallenge)))
        try check(second.sw, "PAIR")
        guard second.data.count == 33 else { throw .malformedResponse("PAIR step 2: \(second.data.count) bytes") }
        return Pairing(index: second.data[0], key: SecureBytes(Hash.sha256(pairingSecret.bytes + Array(second.data[1...]))))
    }

    /// FACTORY RESET: plain, no PIN, no channel. Everything on the card is gone afterwards.
    public func factoryReset() throws(CardError) {
        let response = try channel.send(CommandAPDU(ins: 0xFD, p1: 0xAA, p2: 0x55))
        try check(response.sw, "FACTORY RESET")
        session = nil
        info = nil
    }

    /// GENERATE MNEMONIC (no PIN in 3.x): word indexes 0…2047 from the card's TRNG.
    public func generateMnemonicIndexes(words: Int) throws(CardError) -> [Int] {
        guard [12, 15, 18, 21, 24].contains(words) else { throw .badCredential("the card makes 12, 15, 18, 21 or 24 words") }
        let data = try command(CommandAPDU(ins: 0xD2, p1: UInt8(words / 3)), "GENERATE MNEMONIC")
        guard data.count == 2 * words else { throw .malformedResponse("GENERATE MNEMONIC: \(data.count) bytes") }
        return stride(from: 0, to: data.count, by: 2).map { Int(data[$0]) << 8 | Int(data[$0 + 1]) }
    }

    // MARK: - The secure channel

    /// OPEN SECURE CHANNEL and MUTUALLY AUTHENTICATE.
    public func openSecureChannel(_ pairing: Pairing) throws(CardError) {
        guard let info, info.initialized else { throw .notInitialized }
        if let paired = pairing.instanceUID, let card = info.instanceUID, paired != card {
            throw .otherCardInstance(pairedWith: Hex.encode(paired), card: Hex.encode(card))
        }
        let (ephemeral, publicKey) = try Self.ephemeralKey()
        let response = try channel.send(CommandAPDU(ins: 0x10, p1: pairing.index, data: publicKey))
        if response.sw == 0x6A86 { throw .conditionsNotSatisfied("pairing slot \(pairing.index) is empty on this card: pair again") }
        try check(response.sw, "OPEN SECURE CHANNEL")
        guard response.data.count == 48 else { throw .malformedResponse("OPEN SECURE CHANNEL: \(response.data.count) bytes") }
        let shared = try Self.ecdh(ephemeral, info.secureChannelPublicKey)
        let keys = KeycardCrypto.sessionKeys(sharedX: shared.bytes, pairingKey: pairing.key.bytes, salt: Array(response.data[0..<32]))
        session = SecureChannelSession(encKey: keys.enc, macKey: keys.mac, iv: Array(response.data[32..<48]))
        let answer = try command(CommandAPDU(ins: 0x11, data: Sodium.randomBytes(32).bytes), "MUTUALLY AUTHENTICATE")
        guard answer.count == 32 else {
            session = nil
            throw .malformedResponse("MUTUALLY AUTHENTICATE: \(answer.count) bytes")
        }
    }

    public var channelOpen: Bool { session != nil }

    public func status() throws(CardError) -> CardStatus {
        let data = try command(CommandAPDU(ins: 0xF2), "GET STATUS")
        guard let template = try TLV.parse(data).first(0xA3) else { throw .malformedResponse("GET STATUS: no A3 template") }
        let fields = try TLV.parse(template.value)
        let integers = fields.filter { $0.tag == 0x02 }.compactMap(\.value.first)
        guard integers.count >= 2, let loaded = fields.first(0x01)?.value.first else {
            throw .malformedResponse("GET STATUS: fields missing")
        }
        return CardStatus(pinRetries: Int(integers[0]), pukRetries: Int(integers[1]), keyLoaded: loaded == 0xFF)
    }

    /// The current derivation path (GET STATUS P1=01).
    public func currentPath() throws(CardError) -> [UInt32] {
        let data = try command(CommandAPDU(ins: 0xF2, p1: 0x01), "GET STATUS")
        guard data.count % 4 == 0 else { throw .malformedResponse("GET STATUS: a path of \(data.count) bytes") }
        return Self.decodePath(data)
    }

    public func verifyPIN(_ pin: SecureBytes) throws(CardError) {
        // A malformed PIN is refused here: sent, the card would count it as a wrong try.
        try Self.checkDigits(pin, count: 6, what: "the PIN")
        _ = try command(CommandAPDU(ins: 0x20, data: pin.bytes), "VERIFY PIN", credential: .pin)
    }

    public func changePIN(_ pin: SecureBytes) throws(CardError) {
        try Self.checkDigits(pin, count: 6, what: "the new PIN")
        _ = try command(CommandAPDU(ins: 0x21, p1: 0x00, data: pin.bytes), "CHANGE PIN")
    }

    public func changePUK(_ puk: SecureBytes) throws(CardError) {
        try Self.checkDigits(puk, count: 12, what: "the new PUK")
        _ = try command(CommandAPDU(ins: 0x21, p1: 0x01, data: puk.bytes), "CHANGE PUK")
    }

    public func changePairingSecret(_ secret: SecureBytes) throws(CardError) {
        guard secret.count == 32 else { throw .badCredential("a pairing secret is 32 bytes") }
        _ = try command(CommandAPDU(ins: 0x21, p1: 0x02, data: secret.bytes), "CHANGE PAIRING SECRET")
    }

    public func unblockPIN(puk: SecureBytes, newPIN: SecureBytes) throws(CardError) {
        try Self.checkDigits(puk, count: 12, what: "the PUK")
        try Self.checkDigits(newPIN, count: 6, what: "the new PIN")
        do {
            _ = try command(CommandAPDU(ins: 0x22, data: puk.bytes + newPIN.bytes), "UNBLOCK PIN", credential: .puk)
        } catch .conditionsNotSatisfied {
            throw .pinNotBlocked  // 6985: the applet unblocks only a PIN with no tries left
        }
    }

    /// LOAD KEY from a BIP39 seed (P1=03); returns the key UID.
    @discardableResult
    public func loadSeed(_ seed: SecureBytes) throws(CardError) -> [UInt8] {
        guard (16...64).contains(seed.count) else { throw .badCredential("a seed is 16 to 64 bytes") }
        return try command(CommandAPDU(ins: 0xD0, p1: 0x03, data: seed.bytes), "LOAD KEY")
    }

    /// GENERATE KEY: a random master key made on the card (no phrase exists for it).
    @discardableResult
    public func generateKey() throws(CardError) -> [UInt8] { try command(CommandAPDU(ins: 0xD4), "GENERATE KEY") }

    public func removeKey() throws(CardError) { _ = try command(CommandAPDU(ins: 0xD3), "REMOVE KEY") }

    /// SET PINLESS PATH; an empty path unsets it.
    public func setPinlessPath(_ path: [UInt32]) throws(CardError) {
        _ = try command(CommandAPDU(ins: 0xC1, data: Self.encodePath(path)), "SET PINLESS PATH")
    }

    public func unpair(index: UInt8) throws(CardError) { _ = try command(CommandAPDU(ins: 0x13, p1: index), "UNPAIR") }

    /// EXPORT KEY for a path from the master (private keys only inside EIP-1581, as the card allows).
    public func exportKey(path: [UInt32], kind: ExportKind, makeCurrent: Bool = false) throws(CardError) -> ExportedKey {
        // Applet 3.x copies only the private key when the path is empty and answers whatever
        // chain code its scratch buffer holds (zeros after power-up, else the last key's).
        if path.isEmpty && kind == .extendedPublicKey { throw .masterChainCodeUnavailable }
        let data = try command(
            CommandAPDU(ins: 0xC2, p1: makeCurrent ? 0x02 : 0x01, p2: kind.rawValue, data: Self.encodePath(path)), "EXPORT KEY")
        guard let template = try TLV.parse(data).first(0xA1) else { throw .malformedResponse("EXPORT KEY: no A1 template") }
        let fields = try TLV.parse(template.value)
        return ExportedKey(
            publicKey: fields.first(0x80)?.value, chainCode: fields.first(0x82)?.value,
            privateKey: fields.first(0x81).map { SecureBytes($0.value) })
    }

    /// SIGN a 32-byte hash. The DER signature is read leniently, made low-S, and its recovery id
    /// is found by trying 0…3 against the key the card returned.
    public func sign(hash: [UInt8], key: SignKey) throws(CardError) -> CardSignature {
        guard hash.count == 32 else { throw .badCredential("SIGN takes a 32-byte hash") }
        let apdu: CommandAPDU
        switch key {
        case .current: apdu = CommandAPDU(ins: 0xC0, p1: 0x00, data: hash)
        case .path(let path, let makeCurrent):
            apdu = CommandAPDU(ins: 0xC0, p1: makeCurrent ? 0x02 : 0x01, data: hash + Self.encodePath(path))
        case .pinless: apdu = CommandAPDU(ins: 0xC0, p1: 0x03, data: hash)
        }
        let data: [UInt8]
        do { data = try command(apdu, "SIGN") } catch .unexpectedStatus(_, 0x6A88) where key == .pinless { throw .noPinlessPath }
        return try Self.parseSignature(data, hash: hash)
    }

    static func parseSignature(_ data: [UInt8], hash: [UInt8]) throws(CardError) -> CardSignature {
        let top = try TLV.parse(data)
        var publicKey: [UInt8]
        var compact: [UInt8]
        if let template = top.first(0xA0) {
            let fields = try TLV.parse(template.value)
            guard let pub = fields.first(0x80)?.value, let der = fields.first(0x30) else {
                throw .malformedResponse("SIGN: fields missing")
            }
            let parts = try TLV.parse(der.value).filter { $0.tag == 0x02 }
            guard parts.count == 2 else { throw .malformedResponse("SIGN: not an ECDSA signature") }
            func scalar(_ v: [UInt8]) throws(CardError) -> [UInt8] {
                let trimmed = Array(v.drop { $0 == 0 })
                guard trimmed.count <= 32 else { throw .malformedResponse("SIGN: r or s too long") }
                return [UInt8](repeating: 0, count: 32 - trimmed.count) + trimmed
            }
            publicKey = pub
            compact = try scalar(parts[0].value) + scalar(parts[1].value)
        } else if let raw = top.first(0x80), raw.value.count == 65 {
            // The 65-byte r ‖ s ‖ v form some Keycard-protocol devices send: no key in it.
            compact = Array(raw.value[0..<64])
            guard let key = try? Secp256k1.recoverECDSA(hash: hash, compact: compact, recoveryID: Int(raw.value[64] % 4)) else {
                throw .malformedResponse("SIGN: the signature recovers no key")
            }
            publicKey = key.uncompressed
        } else {
            throw .malformedResponse("SIGN: neither A0 nor 80")
        }
        guard let low = try? Secp256k1.lowS(compact: compact) else { throw .malformedResponse("SIGN: r or s out of range") }
        compact = low
        for id in 0...3 {
            if let key = try? Secp256k1.recoverECDSA(hash: hash, compact: compact, recoveryID: id), key.uncompressed == publicKey {
                return CardSignature(publicKey: publicKey, signature: ECDSASignature(compact: compact, recoveryID: id))
            }
        }
        throw .malformedResponse("SIGN: the signature does not match the key the card returned")
    }

    // MARK: - Plumbing

    enum Credential { case none, pin, puk }

    /// Sends a command inside the secure channel and returns its data, or throws the typed error
    /// for its inner status word.
    func command(_ apdu: CommandAPDU, _ name: String, credential: Credential = .none) throws(CardError) -> [UInt8] {
        guard var s = session else {
            // Only PIN-less SIGN works without the channel; others get 6985 from the card.
            let response = try channel.send(apdu)
            try check(response.sw, name, credential: credential)
            return response.data
        }
        let wrapped = s.wrap(apdu)
        do {
            let inner = try s.unwrap(ResponseAPDU(bytes: channel.transmit(wrapped)), command: name)
            session = s
            try check(inner.sw, name, credential: credential)
            return inner.data
        } catch {
            if case .channelClosed = error { session = nil }
            if case .macMismatch = error { session = nil }
            throw error
        }
    }

    func check(_ sw: UInt16, _ name: String, credential: Credential = .none) throws(CardError) {
        switch sw {
        case 0x9000: return
        case 0x63C0...0x63CF:
            let left = Int(sw & 0x0F)
            if credential == .puk { throw left == 0 ? .pukBlocked : .wrongPUK(retriesLeft: left) }
            if left == 0 { throw .pinBlocked }
            throw .wrongPIN(retriesLeft: left)
        case 0x6A84: throw .noFreePairingSlot
        case 0x6986: throw .cardReset
        case 0x6982: session = nil; throw .channelClosed
        case 0x6984: throw .invalidDerivedKey
        case 0x6985: throw .conditionsNotSatisfied("\(name) (a PIN, a key or an open channel is missing, or the card forbids it)")
        case 0x6A80: throw .wrongData(name)
        case 0x6D00: throw info?.initialized == false ? .notInitialized : .unexpectedStatus(command: name, sw: sw)
        default: throw .unexpectedStatus(command: name, sw: sw)
        }
    }

    static func checkDigits(_ value: SecureBytes, count: Int, what: String) throws(CardError) {
        guard value.count == count, value.bytes.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .badCredential("\(what) must be \(count) digits")
        }
    }

    static func ephemeralKey() throws(CardError) -> (SecureBytes, [UInt8]) {
        while true {
            let key = Sodium.randomBytes(32)
            if Secp256k1.isValidPrivateKey(key), let pub = try? Secp256k1.publicKey(of: key) { return (key, pub.uncompressed) }
        }
    }

    static func ecdh(_ secret: SecureBytes, _ cardKey: [UInt8]) throws(CardError) -> SecureBytes {
        guard let pub = try? Secp256k1.PublicKey(parsing: cardKey), let x = try? Secp256k1.ecdhX(privateKey: secret, publicKey: pub) else {
            throw .malformedResponse("the card's secure-channel key is not a secp256k1 point")
        }
        return x
    }

    public static func encodePath(_ path: [UInt32]) -> [UInt8] {
        path.flatMap { [UInt8($0 >> 24), UInt8($0 >> 16 & 0xFF), UInt8($0 >> 8 & 0xFF), UInt8($0 & 0xFF)] }
    }

    public static func decodePath(_ bytes: [UInt8]) -> [UInt32] {
        stride(from: 0, to: bytes.count - bytes.count % 4, by: 4).map {
            UInt32(bytes[$0]) << 24 | UInt32(bytes[$0 + 1]) << 16 | UInt32(bytes[$0 + 2]) << 8 | UInt32(bytes[$0 + 3])
        }
    }
}
