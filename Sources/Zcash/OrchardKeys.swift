import WalletCore
import WalletCrypto

/// Errors of Orchard keys. None carries key material.
public enum OrchardKeyError: WalletError, Equatable {
    /// A spending key whose ask or ivk is zero, or whose CommitIvk fails (probability ~2^-250).
    case unusableSpendingKey
    case invalidViewingKey(String)

    public var code: String { "zcash.invalid_orchard_key" }
    public var message: String {
        switch self {
        case .unusableSpendingKey: "this Orchard spending key gives a zero ask or ivk and cannot be used (ZIP-32: take the next account)"
        case .invalidViewingKey(let why): "not an Orchard viewing key: \(why)"
        }
    }
}

/// ToScalar and ToBase of the protocol (§4.2.3): a 64-byte little-endian integer mod q or p.
extension PrimeField {
    static func reduced(_ wide: [UInt8]) -> Self { Self(wide: wide) }
}

/// Orchard's fixed bases and hashes (§5.4.9.8, §5.4.1.9).
enum OrchardBases {
    /// G^Orchard, the spend-authorization base.
    static let spendAuth = PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("G".utf8))
    /// K^Orchard, the nullifier base.
    static let nullifier = PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("K".utf8))
}

/// How a spending key gives rivk, the key that commits the incoming viewing key: ZIP 2005's
/// `use_qsk`. The two rules give the same ak and nk, and so the same spends' authority, but
/// other incoming viewing keys, addresses and full viewing keys: an account made with one is
/// invisible to a scan with the other. Everything after rivk (ivk, dk, ovk, the internal
/// scope, the UFVK) is the same for both.
public enum OrchardRivkRule: String, Sendable, CaseIterable {
    /// `use_qsk = false`, every wallet's rule since NU5: rivk = ToScalar(PRF^expand_sk([0x08])).
    case standard
    /// `use_qsk = true` (ZIP 2005's quantum-secure rivk, used today by FROST wallets):
    /// qsk = truncate_32(PRF^expand_sk([0x0C])), qk = BLAKE3.derive_key("Zcash ZIP 2005
    /// qk-derivation v1", qsk), rivk = ToScalar(PRF^expand_qk([0x0D] ‖ ak ‖ nk)). ZIP 2005
    /// leaves ak open under this rule; here it is the usual one (ask = ToScalar(PRF^expand_sk([0x06]))),
    /// as in ../shared/fixtures/zcash-ironwood's account 2.
    case quantumSecure

    /// ZIP 2005's name for the rule, the value of a record's `use_qsk`.
    public var useQsk: Bool { self == .quantumSecure }

    public init(useQsk: Bool) { self = useQsk ? .quantumSecure : .standard }

    static let qkContext = "Zcash ZIP 2005 qk-derivation v1"

    /// rivk of a spending key with its ak (the x of [ask]G, which the sign of ask does not
    /// change; computed only for the rule that needs it) and nk.
    func rivk(spendingKey sk: [UInt8], ak: @autoclosure () -> PallasBase, nk: PallasBase) -> PallasScalar {
        switch self {
        case .standard:
            return PallasScalar.reduced(Blake2.prfExpand(sk, [0x08]))
        case .quantumSecure:
            var qsk = Array(Blake2.prfExpand(sk, [0x0C]).prefix(32))
            var qk = Blake3.deriveKey(context: Self.qkContext, material: qsk)
            defer {
                SecureBytes.wipe(&qsk)
                SecureBytes.wipe(&qk)
            }
            return PallasScalar.reduced(Blake2.prfExpand(qk, [0x0D] + ak().bytes + nk.bytes))
        }
    }

    /// qsk and qk of the quantum-secure rule (secret; for tests against published values).
    static func quantumKeys(spendingKey sk: [UInt8]) -> (qsk: [UInt8], qk: [UInt8]) {
        let qsk = Array(Blake2.prfExpand(sk, [0x0C]).prefix(32))
        return (qsk, Blake3.deriveKey(context: qkContext, material: qsk))
    }
}

/// An Orchard full viewing key: (ak, nk, rivk), the UFVK's Orchard item (96 bytes).
public struct OrchardFullViewingKey: Sendable, Equatable {
    /// Extract_P of the spend-validating key, whose ỹ is 0.
    public let ak: PallasBase
    public let nk: PallasBase
    public let rivk: PallasScalar
    /// Both scopes' incoming viewing keys, derived once: every key is checked by them, and
    /// each costs a Sinsemilla commitment.
    private let externalKey: OrchardIncomingViewingKey
    private let changeKey: OrchardIncomingViewingKey

    /// From a spending key (32 bytes): ask, nk, rivk by PRF^expand (rivk by `rivkRule`); ask
    /// negated when [ask]G's ỹ is 1, so that ak alone says the point.
    public init(spendingKey sk: [UInt8], rivkRule: OrchardRivkRule = .standard) throws(OrchardKeyError) {
        let parts = Self.parts(sk, rivkRule: rivkRule)
        let ak = parts.akPoint.extracted
        // Whether ask is 0 is public by design: such a key is refused, in the open (and never
        // happens: a 2^-250 event).
        guard !ConstantTime.declassified(parts.ask.isZero), let scopes = Self.scopes(ak: ak, nk: parts.nk, rivk: parts.rivk) else {
            throw .unusableSpendingKey
        }
        (self.ak, nk, rivk) = (ak, parts.nk, parts.rivk)
        (externalKey, changeKey) = scopes
    }

    /// ask as PRF^expand gives it (before its sign is fixed), [ask]G, nk and rivk.
    private static func parts(
        _ sk: [UInt8], rivkRule: OrchardRivkRule = .standard
    ) -> (ask: PallasScalar, akPoint: PallasPoint, nk: PallasBase, rivk: PallasScalar) {
        let ask = PallasScalar.reduced(Blake2.prfExpand(sk, [0x06]))
        let akPoint = OrchardBases.spendAuth.times(ask)
        let nk = PallasBase.reduced(Blake2.prfExpand(sk, [0x07]))
        return (ask, akPoint, nk, rivkRule.rivk(spendingKey: sk, ak: akPoint.extracted, nk: nk))
    }

    /// The spend-authorization key of a spending key, as the protocol fixes its sign.
    public static func ask(spendingKey sk: [UInt8]) -> PallasScalar {
        let parts = parts(sk)
        // ỹ by a mask, not a branch (the identity, ask = 0, gives y = 0: ask as it is).
        let y = parts.akPoint.y * parts.akPoint.z.inverse
        return PallasScalar.select(mask: 0 &- y.lowBit, parts.ask.negated, parts.ask)
    }

    /// The fingerprint of a spending key's full viewing key, without its incoming viewing
    /// keys (ZIP-32 tags a child with its parent's).
    static func fingerprint(spendingKey sk: [UInt8]) -> [UInt8] {
        let parts = parts(sk)
        return fingerprint(ak: parts.akPoint.extracted, nk: parts.nk, rivk: parts.rivk)
    }

    /// ak ‖ nk ‖ rivk.
    public var bytes: [UInt8] { ak.bytes + nk.bytes + rivk.bytes }

    /// From the 96-byte form: ak must be the x of a point (with ỹ = 0), nk below p, rivk
    /// below q, and both ivks nonzero.
    public init(bytes: [UInt8]) throws(OrchardKeyError) {
        guard bytes.count == 96 else { throw .invalidViewingKey("an Orchard full viewing key is 96 bytes") }
        guard let ak = PallasBase(bytes: bytes[0..<32]), !ak.isZero, PallasPoint(bytes: Array(bytes[0..<32])) != nil else {
            throw .invalidViewingKey("ak is not a point's x")
        }
        guard let nk = PallasBase(bytes: bytes[32..<64]), let rivk = PallasScalar(bytes: bytes[64..<96]) else {
            throw .invalidViewingKey("nk or rivk is not canonical")
        }
        guard let scopes = Self.scopes(ak: ak, nk: nk, rivk: rivk) else { throw .invalidViewingKey("its incoming viewing key is zero") }
        (self.ak, self.nk, self.rivk) = (ak, nk, rivk)
        (externalKey, changeKey) = scopes
    }

    /// ivk = CommitIvk_rivk(ak, nk) = SinsemillaShortCommit("z.cash:Orchard-CommitIvk", ak ‖ nk);
    /// nil when it is zero or the commitment is the identity.
    static func commitIvk(ak: PallasBase, nk: PallasBase, rivk: PallasScalar) -> PallasBase? {
        let point = Sinsemilla.commit(domain: "z.cash:Orchard-CommitIvk", bits: bits255(ak) + bits255(nk), r: rivk)
        let ivk = point.extracted
        // Public by design: a key whose ivk is 0 is refused in the open (a 2^-254 event; the
        // identity's extract is 0 too).
        return ConstantTime.declassified(ivk.isZero) ? nil : ivk
    }

    /// The internal scope's rivk (ZIP-32): ToScalar(PRF^expand(rivk, [0x83] ‖ ak ‖ nk)).
    private static func internalRivk(ak: PallasBase, nk: PallasBase, rivk: PallasScalar) -> PallasScalar {
        PallasScalar.reduced(Blake2.prfExpand(rivk.bytes, [0x83] + ak.bytes + nk.bytes))
    }

    var internalRivk: PallasScalar { Self.internalRivk(ak: ak, nk: nk, rivk: rivk) }

    /// dk ‖ ovk of a scope's rivk: PRF^expand(rivk, [0x82] ‖ ak ‖ nk).
    private static func dkOvk(ak: PallasBase, nk: PallasBase, rivk: PallasScalar) -> [UInt8] {
        Blake2.prfExpand(rivk.bytes, [0x82] + ak.bytes + nk.bytes)
    }

    /// The external and internal incoming viewing keys; nil when either ivk is zero.
    private static func scopes(
        ak: PallasBase, nk: PallasBase, rivk: PallasScalar
    ) -> (OrchardIncomingViewingKey, OrchardIncomingViewingKey)? {
        func key(_ r: PallasScalar) -> OrchardIncomingViewingKey? {
            commitIvk(ak: ak, nk: nk, rivk: r).map { OrchardIncomingViewingKey(dk: Array(dkOvk(ak: ak, nk: nk, rivk: r)[0..<32]), ivk: $0) }
        }
        guard let external = key(rivk), let change = key(internalRivk(ak: ak, nk: nk, rivk: rivk)) else { return nil }
        return (external, change)
    }

    /// The external (payments) or internal (change) incoming viewing key.
    public func incomingViewingKey(change: Bool) -> OrchardIncomingViewingKey { change ? changeKey : externalKey }

    /// The outgoing viewing key of a scope.
    public func outgoingViewingKey(change: Bool) -> [UInt8] {
        Array(Self.dkOvk(ak: ak, nk: nk, rivk: change ? internalRivk : rivk)[32..<64])
    }

    /// The FVK fingerprint (ZIP-32): BLAKE2b-256("ZcashOrchardFVFP", ak ‖ nk ‖ rivk).
    public var fingerprint: [UInt8] { Self.fingerprint(ak: ak, nk: nk, rivk: rivk) }

    private static func fingerprint(ak: PallasBase, nk: PallasBase, rivk: PallasScalar) -> [UInt8] {
        Blake2.b(32, personal: Array("ZcashOrchardFVFP".utf8), ak.bytes + nk.bytes + rivk.bytes)
    }
}

/// The 255 low bits of a field element, little-endian (I2LEBSP_255).
func bits255(_ x: PallasBase) -> [UInt8] { Array(PedersenHash.bits(x.bytes).prefix(255)) }

/// An Orchard incoming viewing key with its diversifier key: the UIVK's Orchard item, dk ‖ ivk.
public struct OrchardIncomingViewingKey: Sendable, Equatable {
    public let dk: [UInt8]
    /// An F_p element, used as a scalar (ivk < p < q).
    public let ivk: PallasBase

    public init(dk: [UInt8], ivk: PallasBase) {
        self.dk = dk
        self.ivk = ivk
    }

    /// From dk ‖ ivk (64 bytes); nil for an ivk that is zero or not below p.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 64, let ivk = PallasBase(bytes: bytes[32..<64]), !ivk.isZero else { return nil }
        self.init(dk: Array(bytes[0..<32]), ivk: ivk)
    }

    public var bytes: [UInt8] { dk + ivk.bytes }

    /// The address at diversifier index j: every index is valid in Orchard.
    public func address(at index: DiversifierIndex) -> OrchardAddress {
        let d = SaplingDiversifier.at(index, dk: dk)
        return OrchardAddress(diversifier: d, transmissionKey: OrchardAddress.diversifyHash(d).times(ivk.bytes).bytes)
    }
}

/// An Orchard payment address: d (11 bytes) and repr_P(pk_d); the UA's Orchard receiver.
public struct OrchardAddress: Sendable, Equatable {
    public let diversifier: [UInt8]
    public let transmissionKey: [UInt8]

    public var bytes: [UInt8] { diversifier + transmissionKey }

    /// DiversifyHash^Orchard(d) = GroupHash^P("z.cash:Orchard-gd", d), or of "" when that is
    /// the identity.
    public static func diversifyHash(_ d: [UInt8]) -> PallasPoint {
        let g = PallasGroupHash.hash(domain: "z.cash:Orchard-gd", message: d)
        return g.isIdentity ? PallasGroupHash.hash(domain: "z.cash:Orchard-gd", message: []) : g
    }
}

/// ZIP-32 Orchard: hardened derivation only, from the seed's master key.
public struct OrchardExtendedSpendingKey: Sendable {
    public let depth: UInt8
    public let parentTag: [UInt8]
    public let childIndex: UInt32
    public let chainCode: [UInt8]
    /// The spending key sk (secret).
    public let spendingKey: SecureBytes

    /// m: BLAKE2b-512("ZcashIP32Orchard", seed) = sk ‖ c.
    public static func master(seed: [UInt8]) -> OrchardExtendedSpendingKey {
        var i = Blake2.b(64, personal: Array("ZcashIP32Orchard".utf8), seed)
        defer { SecureBytes.wipe(&i) }
        return OrchardExtendedSpendingKey(
            depth: 0, parentTag: [0, 0, 0, 0], childIndex: 0, chainCode: Array(i[32..<64]),
            spendingKey: SecureBytes(i[0..<32]))
    }

    /// The hardened child i (i ≥ 2^31): PRF^expand(c, [0x81] ‖ sk ‖ I2LEOSP32(i)). A key is
    /// checked where it is used (`fullViewingKey`), not on the way to it.
    public func child(_ index: UInt32) -> OrchardExtendedSpendingKey {
        precondition(index >= 0x8000_0000, "Orchard has hardened derivation only")
        var sk = spendingKey.withUnsafeBytes { Array($0) }
        var input = [0x81] + sk + (0..<4).map { UInt8(truncatingIfNeeded: index >> (8 * UInt32($0))) }
        var i = Blake2.prfExpand(chainCode, input)
        defer {
            SecureBytes.wipe(&i)
            SecureBytes.wipe(&sk)
            SecureBytes.wipe(&input)
        }
        let tag = Array(OrchardFullViewingKey.fingerprint(spendingKey: sk).prefix(4))
        return OrchardExtendedSpendingKey(
            depth: depth &+ 1, parentTag: tag, childIndex: index, chainCode: Array(i[32..<64]),
            spendingKey: SecureBytes(i[0..<32]))
    }

    /// m/32'/coinType'/account'.
    public static func account(seed: [UInt8], coinType: UInt32, account: UInt32) -> OrchardExtendedSpendingKey {
        master(seed: seed).child(0x8000_0000 | 32).child(0x8000_0000 | coinType).child(0x8000_0000 | account)
    }

    /// depth ‖ parent tag ‖ I2LEOSP32(i) ‖ c ‖ sk (73 bytes, secret).
    public var bytes: SecureBytes {
        var raw =
            [depth] + parentTag + (0..<4).map { UInt8(truncatingIfNeeded: childIndex >> (8 * UInt32($0))) } + chainCode
            + spendingKey.withUnsafeBytes { Array($0) }
        defer { SecureBytes.wipe(&raw) }
        return SecureBytes(raw)
    }

    /// The account's full viewing key under a rivk rule (ZIP 2005's `use_qsk`).
    public func fullViewingKey(rivkRule: OrchardRivkRule = .standard) throws(OrchardKeyError) -> OrchardFullViewingKey {
        var sk = spendingKey.withUnsafeBytes { Array($0) }
        defer { SecureBytes.wipe(&sk) }
        return try OrchardFullViewingKey(spendingKey: sk, rivkRule: rivkRule)
    }
}

/// The Orchard protocol's note plaintext versions, one per pool: V2 (ZIP-212) in Orchard,
/// V3 (ZIP 2005: a quantum-recoverable rcm) in NU6.3's Ironwood. Each pool accepts only its
/// own lead byte.
public enum OrchardNoteVersion: Sendable, Equatable {
    case v2, v3

    /// The plaintext's lead byte.
    public var leadByte: UInt8 { self == .v2 ? 0x02 : 0x03 }
    /// The value pool whose notes have this version.
    public var pool: String { self == .v2 ? "orchard" : "ironwood" }
}

/// An Orchard-protocol note's derived values (§4.7.3 with ZIP-212; ZIP 2005 for V3, the
/// Ironwood pool's): from rseed and rho, and for V3's rcm the rest of the note.
public struct OrchardNote: Sendable {
    public let address: OrchardAddress
    public let value: UInt64
    public let rho: PallasBase
    public let rseed: [UInt8]
    public let version: OrchardNoteVersion

    public init(address: OrchardAddress, value: UInt64, rho: PallasBase, rseed: [UInt8], version: OrchardNoteVersion = .v2) {
        self.address = address
        self.value = value
        self.rho = rho
        self.rseed = rseed
        self.version = version
    }

    /// V2: ToScalar(PRF^expand(rseed, [0x05] ‖ rho)). V3 (ZIP 2005): ToScalar(PRF^expand(rseed,
    /// [0x0B] ‖ repr g_d ‖ repr pk_d ‖ I2LEOSP64(v) ‖ rho ‖ I2LEOSP256(psi))), which binds the
    /// commitment to the whole note.
    public var rcm: PallasScalar { rcm(gd: OrchardAddress.diversifyHash(address.diversifier).bytes, psi: psi) }

    /// rcm with repr g_d and psi given (the commitment has them already); V2 reads neither.
    private func rcm(gd: @autoclosure () -> [UInt8], psi: @autoclosure () -> PallasBase) -> PallasScalar {
        switch version {
        case .v2:
            return .reduced(Blake2.prfExpand(rseed, [0x05] + rho.bytes))
        case .v3:
            let v = (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
            return .reduced(Blake2.prfExpand(rseed, [0x0B] + gd() + address.transmissionKey + v + rho.bytes + psi().bytes))
        }
    }
    public var psi: PallasBase { .reduced(Blake2.prfExpand(rseed, [0x09] + rho.bytes)) }
    public var esk: PallasScalar { Self.esk(rseed: rseed, rho: rho) }
    /// esk of a note with this rseed and rho (the address is not needed).
    static func esk(rseed: [UInt8], rho: PallasBase) -> PallasScalar { .reduced(Blake2.prfExpand(rseed, [0x04] + rho.bytes)) }

    /// NoteCommit^Orchard_rcm(repr g_d, repr pk_d, v, rho, psi), the point; nil when
    /// pk_d is no point.
    public var commitment: PallasPoint? {
        guard PallasPoint(bytes: address.transmissionKey) != nil else { return nil }
        let gd = OrchardAddress.diversifyHash(address.diversifier).bytes, psi = psi
        let value = (0..<64).map { UInt8(truncatingIfNeeded: self.value >> UInt64($0)) & 1 }
        let bits = PedersenHash.bits(gd) + PedersenHash.bits(address.transmissionKey) + value + bits255(rho) + bits255(psi)
        return Sinsemilla.commit(domain: "z.cash:Orchard-NoteCommit", bits: bits, r: rcm(gd: gd, psi: psi))
    }

    /// cmx = Extract_P(cm).
    public var cmx: PallasBase? { commitment.map(\.extracted) }

    /// nf = Extract_P([(PRF^nf_nk(rho) + psi) mod q]·K + cm), PRF^nf = Poseidon(nk, rho).
    public func nullifier(nk: PallasBase) -> PallasBase? {
        guard let cm = commitment else { return nil }
        let sum = Poseidon.hash(nk, rho) + psi
        let k = PallasScalar(wide: sum.bytes + [UInt8](repeating: 0, count: 32))
        return (OrchardBases.nullifier.times(k) + cm).extracted
    }
}
