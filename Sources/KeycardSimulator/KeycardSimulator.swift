import Foundation
import WalletCard
import WalletCore
import WalletKeys
import WalletCrypto

/// A software Keycard: the applet 3.2 behaviour of ../shared/design/keycard-protocol.md —
/// states, PIN/PUK counters and blocking, the duress PIN, 10 pairing slots and the ephemeral
/// one, secure channel v1, key loading, derivation, signing, export rules and status words.
/// It is a `CardChannel` for in-process tests and the card behind vpcd for end-to-end tests.
/// Test support only: its secrets live in ordinary memory.
public final class KeycardSimulator: CardChannel {
    public static let pairingSlots = 10

    // Identity
    private var scKey = SecureBytes([])
    private var scPublic = [UInt8]()
    private var instanceUID = [UInt8]()
    private var initialized = false
    // Credentials
    private var pin = [UInt8](), puk = [UInt8](), altPIN = [UInt8]()
    private var pinMax = 3, pukMax = 5, pinLeft = 3, pukLeft = 5
    private var pinValidated = false, duress = false
    private var pairingSecret = [UInt8]()
    private var pairings = [Int: [UInt8]]()  // slot → pairing key; 0xFF is the ephemeral slot
    private var pendingCardChallenge: [UInt8]?
    // Secure channel
    private var encKey: [UInt8]?, macKey: [UInt8]?, iv = [UInt8]()
    private var authenticated = false
    // Keys
    private var master: ExtendedKey?
    private var hasChainCode = true
    private var currentPath = [UInt32]()
    private var pinlessPath: [UInt32]?
    /// The applet's derivation scratch buffer (CLEAR_ON_RESET): an empty path copies only the
    /// private key into it, so an extended export at m answers whatever chain code the last
    /// derivation left there, zeros after power-up.
    private var scratchChainCode = [UInt8](repeating: 0, count: 32)
    /// Whether the applet is selected: after a power cycle or reset nothing is, and the runtime
    /// answers any command but SELECT with 6986 (as jCardSim does for the genuine applet).
    private var selected = false

    /// Counts what crossed the channel, for tests.
    public private(set) var transmitted = 0

    public init() { factoryReset() }

    public func transmit(_ apdu: [UInt8]) throws(CardError) -> [UInt8] {
        transmitted += 1
        return process(apdu)
    }

    /// A card reset or power cycle: the channel closes and the PIN must be verified again;
    /// what the card stores (keys, pairings, counters) stays.
    public func reset() {
        pinValidated = false
        duress = false
        pendingCardChallenge = nil
        pairings[0xFF] = nil
        scratchChainCode = [UInt8](repeating: 0, count: 32)
        selected = false
        closeChannel()
    }

    /// One APDU in, one response out (data ‖ SW), as the applet's process() does.
    public func process(_ apdu: [UInt8]) -> [UInt8] {
        guard apdu.count >= 4 else { return sw(0x6700) }
        let (cla, ins, p1, p2) = (apdu[0], apdu[1], apdu[2], apdu[3])
        let data = apdu.count > 5 ? Array(apdu[5..<min(apdu.count, 5 + Int(apdu[4]))]) : []
        if cla == 0x00 && ins == 0xA4 { return select(data) }
        guard selected else { return sw(0x6986) }
        guard initialized else {
            return ins == 0xFE ? initialize(data) : sw(0x6D00)
        }
        switch ins {
        case 0xFD:
            return p1 == 0xAA && p2 == 0x55
                ? {
                    factoryReset(); return sw(0x9000)
                }() : sw(0x6A86)
        case 0x12: return pair(p1: p1, p2: p2, data)
        case 0x10: return openSecureChannel(p1: p1, data)
        case 0xC0 where encKey == nil && p1 & 0x03 == 0x03: return sign(p1: p1, data, channel: false)
        default: break
        }
        guard let encKey, let macKey else { return sw(0x6985) }
        // Wrapped: MAC ‖ ciphertext, the MAC over the header, 11 zeros and the ciphertext.
        guard data.count >= 16, (data.count - 16) % 16 == 0 else { closeChannel(); return sw(0x6982) }
        let mac = Array(data[0..<16]), ct = Array(data[16...])
        let header = [cla, ins, p1, p2, UInt8(data.count)]
        guard Self.cbcMAC(macKey, header + [UInt8](repeating: 0, count: 11) + ct) == mac,
            let command = Self.unpad(Self.aes(false, encKey, iv, ct))
        else { closeChannel(); return sw(0x6982) }
        let commandIV = iv
        iv = mac
        let known: Set<UInt8> = [0x11, 0xF2, 0x20, 0x21, 0x22, 0xD0, 0xD1, 0xD2, 0xD3, 0xD4, 0xC0, 0xC1, 0xC2, 0x13, 0x12]
        guard known.contains(ins) else {
            // 3.x: an unknown INS never reaches preprocessAPDU, so its answer uses the old IV.
            return wrap(sw(0x6D00), iv: commandIV)
        }
        if !authenticated && ins != 0x11 { return wrap(sw(0x6985), iv: mac) }
        let answer: [UInt8]
        switch ins {
        case 0x11:
            guard command.count == 32 else { closeChannel(); return sw(0x6982) }
            authenticated = true
            answer = Sodium.randomBytes(32).bytes + sw(0x9000)
        case 0xF2: answer = getStatus(p1: p1)
        case 0x20: answer = verifyPIN(command)
        case 0x21: answer = needPIN { changeCredential(p1: p1, command) }
        case 0x22: answer = unblock(command)
        case 0xD0: answer = needPIN { loadKey(p1: p1, command) }
        case 0xD1: answer = needPIN { derive(p1: p1, command) }
        case 0xD2: answer = generateMnemonic(p1: p1)
        case 0xD3: answer = needPIN { removeKey() }
        case 0xD4: answer = needPIN { generateKey() }
        case 0xC0: answer = sign(p1: p1, command, channel: true)
        case 0xC1: answer = needPIN { setPinless(command) }
        case 0xC2: answer = needPIN { export(p1: p1, p2: p2, command) }
        case 0x13: answer = needPIN { unpair(p1) }
        default: answer = sw(0x6985)  // PAIR with the channel open
        }
        return wrap(answer, iv: mac)
    }

    // MARK: - States

    private func factoryReset() {
        newSecureChannelKeyPair()
        instanceUID = Sodium.randomBytes(16).bytes
        initialized = false
        (pin, puk, altPIN, pairingSecret) = ([], [], [], [])
        pairings = [:]
        pinValidated = false
        duress = false
        master = nil
        currentPath = []
        pinlessPath = nil
        closeChannel()
    }

    /// The secure-channel key pair: made at factory reset and again at INIT (the transcript's
    /// SELECT answers a different key before and after INIT).
    private func newSecureChannelKeyPair() {
        repeat { scKey = Sodium.randomBytes(32) } while !Secp256k1.isValidPrivateKey(scKey)
        scPublic = (try? Secp256k1.publicKey(of: scKey).uncompressed) ?? []
    }

    private func closeChannel() {
        encKey = nil
        macKey = nil
        authenticated = false
    }

    private func select(_ aid: [UInt8]) -> [UInt8] {
        guard aid.count >= 8, Array(aid.prefix(8)) == Array(Keycard.instanceAID.prefix(8)), aid.count == 8 || aid == Keycard.instanceAID
        else {
            selected = false
            return sw(0x6A82)
        }
        selected = true
        pinValidated = false
        pendingCardChallenge = nil
        pairings[0xFF] = nil  // the ephemeral pairing lasts until the next SELECT
        closeChannel()
        guard initialized else { return TLV(tag: 0x80, value: scPublic).bytes + sw(0x9000) }
        var fields = TLV(tag: 0x8F, value: instanceUID).bytes + TLV(tag: 0x80, value: scPublic).bytes
        fields += TLV(tag: 0x02, value: [3, 2]).bytes + TLV(tag: 0x02, value: [UInt8(freeSlots)]).bytes
        fields += TLV(tag: 0x8E, value: keyUID).bytes + TLV(tag: 0x8D, value: [0x1F]).bytes
        return TLV(tag: 0xA4, value: fields).bytes + sw(0x9000)
    }

    private var freeSlots: Int { Self.pairingSlots - pairings.keys.filter { $0 != 0xFF }.count }
    private var keyUID: [UInt8] { master.map { Hash.sha256($0.publicKey.uncompressed) } ?? [] }

    private func initialize(_ data: [UInt8]) -> [UInt8] {
        guard data.count > 82, data[0] == 0x41, (data.count - 82) % 16 == 0,
            let pub = try? Secp256k1.PublicKey(parsing: Array(data[1..<66])),
            let x = try? Secp256k1.ecdhX(privateKey: scKey, publicKey: pub),
            let payload = Self.unpad(Self.aes(false, x.bytes, Array(data[66..<82]), Array(data[82...]))),
            [50, 52, 58].contains(payload.count)
        else { return sw(0x6A80) }
        let digits = payload[0..<18] + (payload.count == 58 ? payload[52..<58] : [])
        guard digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return sw(0x6A80) }
        pin = Array(payload[0..<6])
        puk = Array(payload[6..<18])
        pairingSecret = Array(payload[18..<50])
        (pinMax, pukMax) = (3, 5)
        if payload.count >= 52 {
            guard (2...10).contains(payload[50]), (3...12).contains(payload[51]) else { return sw(0x6A80) }
            (pinMax, pukMax) = (Int(payload[50]), Int(payload[51]))
        }
        // The pitfall the notes describe: without the 58-byte form the duress PIN is PUK[0:6].
        altPIN = payload.count == 58 ? Array(payload[52..<58]) : Array(puk[0..<6])
        (pinLeft, pukLeft) = (pinMax, pukMax)
        initialized = true
        newSecureChannelKeyPair()
        return sw(0x9000)
    }

    // MARK: - Pairing and the channel

    private func pair(p1: UInt8, p2: UInt8, _ data: [UInt8]) -> [UInt8] {
        if encKey != nil { return sw(0x6985) }
        guard data.count == 32 else { return sw(0x6A80) }
        switch p1 {
        case 0x00:
            let cardChallenge = Sodium.randomBytes(32).bytes
            pendingCardChallenge = cardChallenge
            return Hash.sha256(pairingSecret + data) + cardChallenge + sw(0x9000)
        case 0x01:
            guard let challenge = pendingCardChallenge else { return sw(0x6A86) }
            pendingCardChallenge = nil
            guard Hash.sha256(pairingSecret + challenge) == data else { return sw(0x6982) }
            let slot: Int
            if p2 == 0x01 {
                slot = 0xFF
            } else if let free = (0..<Self.pairingSlots).first(where: { pairings[$0] == nil }) {
                slot = free
            } else if p2 == 0x00 {
                slot = 0xFF
            } else {
                return sw(0x6A84)
            }
            let salt = Sodium.randomBytes(32).bytes
            pairings[slot] = Hash.sha256(pairingSecret + salt)
            return [UInt8(slot)] + salt + sw(0x9000)
        default:
            return sw(0x6A86)
        }
    }

    private func openSecureChannel(p1: UInt8, _ data: [UInt8]) -> [UInt8] {
        guard let pairingKey = pairings[Int(p1)] else { return sw(0x6A86) }
        guard data.count == 65, let pub = try? Secp256k1.PublicKey(parsing: data),
            let x = try? Secp256k1.ecdhX(privateKey: scKey, publicKey: pub)
        else { return sw(0x6A80) }
        let salt = Sodium.randomBytes(32).bytes, newIV = Sodium.randomBytes(16).bytes
        let keys = KeycardCrypto.sessionKeys(sharedX: x.bytes, pairingKey: pairingKey, salt: salt)
        (encKey, macKey, iv, authenticated) = (keys.enc.bytes, keys.mac.bytes, newIV, false)
        return salt + newIV + sw(0x9000)
    }

    /// data ‖ SW encrypted under `iv`, MACed; the MAC is the next IV.
    private func wrap(_ answer: [UInt8], iv responseIV: [UInt8]) -> [UInt8] {
        guard let encKey, let macKey else { return answer }
        let ct = Self.aes(true, encKey, responseIV, KeycardCrypto.pad(answer))
        let rmac = Self.cbcMAC(macKey, [UInt8((16 + ct.count) & 0xFF)] + [UInt8](repeating: 0, count: 15) + ct)
        iv = rmac
        return rmac + ct + sw(0x9000)
    }

    // MARK: - Credentials

    private func needPIN(_ body: () -> [UInt8]) -> [UInt8] { pinValidated ? body() : sw(0x6985) }

    private func verifyPIN(_ data: [UInt8]) -> [UInt8] {
        guard data.count == 6, data.allSatisfy({ (0x30...0x39).contains($0) }) else { return sw(0x6A80) }
        guard pinLeft > 0 else { return sw(0x63C0) }
        if data == altPIN || data == pin {
            // Both match: the duress ("fake") PIN takes precedence, as in the applet.
            duress = data == altPIN
            pinValidated = true
            pinLeft = pinMax
            return sw(0x9000)
        }
        pinLeft -= 1
        pinValidated = false
        return sw(0x63C0 | UInt16(pinLeft))
    }

    private func changeCredential(p1: UInt8, _ data: [UInt8]) -> [UInt8] {
        let digits = data.allSatisfy { (0x30...0x39).contains($0) }
        switch p1 {
        case 0x00:
            guard data.count == 6, digits else { return sw(0x6A80) }
            // The applet updates the PIN that was verified: after the duress PIN, that one.
            if duress { altPIN = data } else { pin = data }
        case 0x01:
            guard data.count == 12, digits else { return sw(0x6A80) }
            puk = data
        case 0x02:
            guard data.count == 32 else { return sw(0x6A80) }
            pairingSecret = data
        default: return sw(0x6A86)
        }
        return sw(0x9000)
    }

    private func unblock(_ data: [UInt8]) -> [UInt8] {
        guard pinLeft == 0 else { return sw(0x6985) }
        guard data.count == 18, data.allSatisfy({ (0x30...0x39).contains($0) }) else { return sw(0x6A80) }
        guard pukLeft > 0 else { return sw(0x63C0) }
        guard Array(data[0..<12]) == puk else {
            pukLeft -= 1
            return sw(0x63C0 | UInt16(pukLeft))
        }
        pin = Array(data[12..<18])
        (pinLeft, pukLeft, pinValidated, duress) = (pinMax, pukMax, true, false)
        return sw(0x9000)
    }

    private func getStatus(p1: UInt8) -> [UInt8] {
        switch p1 {
        case 0x00:
            let fields =
                TLV(tag: 0x02, value: [UInt8(pinLeft)]).bytes + TLV(tag: 0x02, value: [UInt8(pukLeft)]).bytes
                + TLV(tag: 0x01, value: [master == nil ? 0x00 : 0xFF]).bytes
            return TLV(tag: 0xA3, value: fields).bytes + sw(0x9000)
        case 0x01: return Keycard.encodePath(currentPath) + sw(0x9000)
        default: return sw(0x6A86)
        }
    }

    private func unpair(_ index: UInt8) -> [UInt8] {
        guard Int(index) < Self.pairingSlots || index == 0xFF else { return sw(0x6A86) }
        pairings[Int(index)] = nil
        return sw(0x9000)
    }

    // MARK: - Keys

    private func loadKey(p1: UInt8, _ data: [UInt8]) -> [UInt8] {
        switch p1 {
        case 0x01, 0x02:
            guard let template = try? TLV.parse(data).first(0xA1), let fields = try? TLV.parse(template.value),
                let priv = fields.first(0x81)?.value, priv.count == 32
            else { return sw(0x6A80) }
            let chain = fields.first(0x82)?.value
            if p1 == 0x02 && chain?.count != 32 { return sw(0x6A80) }
            guard let key = try? ExtendedKey(masterPrivateKey: SecureBytes(priv), chainCode: chain ?? [UInt8](repeating: 0, count: 32))
            else {
                return sw(0x6A80)
            }
            master = key
            hasChainCode = p1 == 0x02
        case 0x03:
            guard (16...64).contains(data.count), let key = try? ExtendedKey.master(seed: SecureBytes(data)) else { return sw(0x6A80) }
            master = key
            hasChainCode = true
        default:
            return sw(0x6A86)
        }
        currentPath = []
        pinlessPath = nil
        return keyUID + sw(0x9000)
    }

    private func generateKey() -> [UInt8] { loadKey(p1: 0x03, Sodium.randomBytes(64).bytes) }

    private func removeKey() -> [UInt8] {
        master = nil
        currentPath = []
        pinlessPath = nil
        return sw(0x9000)
    }

    private func generateMnemonic(p1: UInt8) -> [UInt8] {
        guard (4...8).contains(p1) else { return sw(0x6A86) }
        let entropy = Sodium.randomBytes(Int(p1) * 4).bytes
        let checksum = Hash.sha256(entropy)
        var bits = entropy.flatMap { byte in (0..<8).map { (byte >> (7 - $0)) & 1 } }
        bits += (0..<Int(p1)).map { (checksum[0] >> (7 - $0)) & 1 }
        var out = [UInt8]()
        for word in stride(from: 0, to: bits.count, by: 11) {
            let index = bits[word..<word + 11].reduce(0) { $0 << 1 | Int($1) }
            out += [UInt8(index >> 8), UInt8(index & 0xFF)]
        }
        return out + sw(0x9000)
    }

    /// The path a command names: P1's source bits (master, parent, current) and the data.
    private func resolvePath(p1: UInt8, _ data: [UInt8]) -> Result<[UInt32], StatusWord> {
        guard data.count % 4 == 0 else { return .failure(StatusWord(0x6A80)) }
        let steps = Keycard.decodePath(data)
        let path: [UInt32]
        switch p1 & 0xC0 {
        case 0x00: path = steps
        case 0x40:
            guard !currentPath.isEmpty else { return .failure(StatusWord(0x6B00)) }
            path = currentPath.dropLast() + steps
        case 0x80: path = currentPath + steps
        default: return .failure(StatusWord(0x6A86))
        }
        guard path.count <= 10 else { return .failure(StatusWord(0x6A80)) }
        return .success(path)
    }

    struct StatusWord: Error { let value: UInt16; init(_ v: UInt16) { value = v } }

    /// The key at `path`; with the duress PIN, from the master key with SHA-256(chain code).
    private func key(at path: [UInt32]) -> Result<ExtendedKey, StatusWord> {
        guard var key = master else { return .failure(StatusWord(0x6985)) }
        if !path.isEmpty && !hasChainCode { return .failure(StatusWord(0x6985)) }
        if duress, let altered = try? ExtendedKey(masterPrivateKey: key.privateKey!, chainCode: Hash.sha256(key.chainCode)) {
            key = altered
        }
        do {
            let derived = try key.derive(path)
            if !path.isEmpty { scratchChainCode = derived.chainCode }
            return .success(derived)
        } catch { return .failure(StatusWord(0x6984)) }
    }

    private func derive(p1: UInt8, _ data: [UInt8]) -> [UInt8] {
        guard master != nil else { return sw(0x6985) }
        switch resolvePath(p1: p1, data).flatMap(key(at:)).map({ _ in () }) {
        case .failure(let e): return sw(e.value)
        case .success:
            if case .success(let path) = resolvePath(p1: p1, data) { currentPath = path }
            return sw(0x9000)
        }
    }

    private func setPinless(_ data: [UInt8]) -> [UInt8] {
        guard data.count % 4 == 0, data.count <= 40 else { return sw(0x6A80) }
        pinlessPath = data.isEmpty ? nil : Keycard.decodePath(data)
        return sw(0x9000)
    }

    private func sign(p1: UInt8, _ data: [UInt8], channel: Bool) -> [UInt8] {
        guard data.count >= 32 else { return sw(0x6A80) }
        guard master != nil else { return sw(0x6985) }
        let hash = Array(data[0..<32])
        let path: [UInt32]
        var makeCurrent = false
        switch p1 & 0x03 {
        case 0x00: path = currentPath
        case 0x01, 0x02:
            switch resolvePath(p1: p1, Array(data[32...])) {
            case .failure(let e): return sw(e.value)
            case .success(let p): path = p
            }
            makeCurrent = p1 & 0x03 == 0x02
        default:
            guard let pinless = pinlessPath else { return sw(0x6A88) }
            path = pinless
        }
        if !pinValidated && path != pinlessPath { return sw(0x6985) }
        guard channel || p1 & 0x03 == 0x03 else { return sw(0x6985) }
        switch key(at: path) {
        case .failure(let e): return sw(e.value)
        case .success(let k):
            guard let signature = try? Secp256k1.signECDSA(hash: hash, privateKey: k.privateKey!) else { return sw(0x6F00) }
            if makeCurrent { currentPath = path }
            let body = TLV(tag: 0x80, value: k.publicKey.uncompressed).bytes + signature.der
            var template = TLV(tag: 0xA0, value: body).bytes
            if template[1] < 0x80 { template.insert(0x81, at: 1) }  // the applet always writes 81 LL here
            return template + sw(0x9000)
        }
    }

    private func export(p1: UInt8, p2: UInt8, _ data: [UInt8]) -> [UInt8] {
        guard p2 <= 2, p1 & 0x3F <= 2 else { return sw(0x6A86) }
        let path: [UInt32]
        if p1 & 0x3F == 0 {
            path = currentPath
        } else {
            switch resolvePath(p1: p1, data) {
            case .failure(let e): return sw(e.value)
            case .success(let p): path = p
            }
        }
        let eip1581 = path.count >= 5 && Array(path.prefix(3)) == [0x8000_002B, 0x8000_003C, 0x8000_062D]
        if p2 == 0x00 && !eip1581 { return sw(0x6985) }
        if p2 == 0x02 && eip1581 { return sw(0x6985) }
        switch key(at: path) {
        case .failure(let e): return sw(e.value)
        case .success(let k):
            if p1 & 0x3F == 0x02 { currentPath = path }
            let fields: [UInt8]
            switch p2 {
            case 0x00: fields = TLV(tag: 0x81, value: k.privateKey!.bytes).bytes
            case 0x01: fields = TLV(tag: 0x80, value: k.publicKey.uncompressed).bytes
            default:
                // At m the applet copies no chain code: the scratch buffer's stale one goes out.
                let chain = path.isEmpty ? scratchChainCode : k.chainCode
                fields = TLV(tag: 0x80, value: k.publicKey.uncompressed).bytes + TLV(tag: 0x82, value: chain).bytes
            }
            return TLV(tag: 0xA1, value: fields).bytes + sw(0x9000)
        }
    }

    // MARK: - Bytes

    private func sw(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    static func aes(_ encrypt: Bool, _ key: [UInt8], _ iv: [UInt8], _ data: [UInt8]) -> [UInt8] {
        KeycardCrypto.aesCBC(encrypt: encrypt, key: key, iv: iv, data)
    }
    static func cbcMAC(_ key: [UInt8], _ data: [UInt8]) -> [UInt8] { KeycardCrypto.cbcMAC(key: key, data) }
    static func unpad(_ data: [UInt8]) -> [UInt8]? { KeycardCrypto.unpad(data) }
}

extension Result {
    fileprivate func flatMap<T>(_ transform: (Success) -> Result<T, Failure>) -> Result<T, Failure> {
        switch self {
        case .success(let v): transform(v)
        case .failure(let e): .failure(e)
        }
    }
}
