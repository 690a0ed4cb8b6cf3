import WalletCore
import WalletCrypto

/// Zcash networks, for key and address encodings (ZIP-32, ZIP-173, ZIP-316).
public enum ZcashNetwork: String, Sendable {
    case main, test

    /// The SLIP-44 coin type of ZIP-32 paths: 133, or 1 on the test network.
    public var coinType: UInt32 { self == .main ? 133 : 1 }
    var paymentAddressHRP: String { self == .main ? "zs" : "ztestsapling" }
    var extendedSpendingKeyHRP: String { self == .main ? "secret-extended-key-main" : "secret-extended-key-test" }
    var extendedFullViewingKeyHRP: String { self == .main ? "zxviews" : "zxviewtestsapling" }
    var incomingViewingKeyHRP: String { self == .main ? "zivks" : "zivktestsapling" }
}

/// Errors of Zcash keys and encodings. None carries key material.
public enum ZcashKeyError: WalletError, Equatable {
    /// A diversifier index of 2^88 or more.
    case diversifierIndexOutOfRange(String)
    /// No valid diversifier from the index up to 2^88 − 1.
    case noValidDiversifier
    /// The index names a diversifier that is no point (about half of them); the next valid index is given.
    case invalidDiversifier(index: String, next: String?)
    case invalidEncoding(String)
    case missingSaplingItem(String)
    /// A viewing key without an Orchard item, asked for Orchard addresses.
    case missingOrchardItem
    /// A unified viewing key with neither a Sapling nor an Orchard item (transparent only).
    case missingShieldedItem(String)

    public var code: String {
        switch self {
        case .diversifierIndexOutOfRange: "zcash.diversifier_index_out_of_range"
        case .noValidDiversifier: "zcash.no_valid_diversifier"
        case .invalidDiversifier: "zcash.invalid_diversifier"
        case .invalidEncoding: "zcash.invalid_encoding"
        case .missingSaplingItem: "zcash.no_sapling_item"
        case .missingOrchardItem: "zcash.no_orchard_item"
        case .missingShieldedItem: "zcash.no_shielded_item"
        }
    }

    public var message: String {
        switch self {
        case .diversifierIndexOutOfRange(let i): "diversifier index \(i) is out of range (0 to 2^88 − 1)"
        case .noValidDiversifier: "no valid Sapling diversifier from this index to 2^88 − 1"
        case .invalidDiversifier(let i, let next):
            "diversifier index \(i) gives no Sapling address (about half of all indexes do not)"
                + (next.map { "; the next valid index is \($0)" } ?? "")
        case .invalidEncoding(let why): "invalid Zcash encoding: \(why)"
        case .missingSaplingItem(let what): "\(what) has no Sapling item; an Orchard-only key gives its addresses with --pool orchard"
        case .missingShieldedItem(let what): "\(what) has neither a Sapling nor an Orchard item: there are no shielded notes to find"
        case .missingOrchardItem:
            "the viewing key has no Orchard item (a key from before NU5); give the seed or a newer unified viewing key"
        }
    }

    public var details: [(key: String, value: ErrorDetail)] {
        if case .invalidDiversifier(_, let next?) = self { return [("next_index", .string(next))] }
        return []
    }
}

/// An 88-bit diversifier index, as ZIP-32 numbers a key's addresses.
public struct DiversifierIndex: Equatable, Comparable, Sendable, CustomStringConvertible {
    /// Little-endian: low 64 bits, then the high 24.
    public let low: UInt64
    public let high: UInt32

    public static let max = DiversifierIndex(low: .max, high: 0xFF_FFFF)

    public init(_ value: UInt64) { low = value; high = 0 }

    public init(low: UInt64, high: UInt32) {
        precondition(high <= 0xFF_FFFF)
        self.low = low; self.high = high
    }

    /// From a decimal string; nil when it is not a number below 2^88.
    public init?(decimal: String) {
        guard !decimal.isEmpty, decimal.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        var lo: UInt64 = 0, hi: UInt64 = 0  // hi holds bits 64… (must stay below 2^24)
        for c in decimal.utf8 {
            let digit = UInt64(c - 48)
            let (p, carryLo) = lo.multipliedFullWidth(by: 10)
            let (s, o) = carryLo.addingReportingOverflow(digit)
            lo = s
            hi = hi * 10 + p + (o ? 1 : 0)
            if hi > 0xFF_FFFF { return nil }
        }
        self.init(low: lo, high: UInt32(hi))
    }

    public static func < (a: DiversifierIndex, b: DiversifierIndex) -> Bool { (a.high, a.low) < (b.high, b.low) }

    public func next() -> DiversifierIndex? {
        if self == .max { return nil }
        return low == .max ? DiversifierIndex(low: 0, high: high + 1) : DiversifierIndex(low: low + 1, high: high)
    }

    /// I2LEBSP88: the index's bits, least significant first.
    var bits: [UInt8] {
        (0..<64).map { UInt8(low >> UInt64($0) & 1) } + (0..<24).map { UInt8(high >> UInt32($0) & 1) }
    }

    public var description: String {
        if high == 0 { return String(low) }
        // 88 bits in decimal: repeated division of the two words by 10.
        var hi = UInt64(high), lo = low, digits = [Character]()
        while hi != 0 || lo != 0 {
            let qHi = hi / 10, rHi = hi % 10
            let (qLo, r) = UInt64(10).dividingFullWidth((high: rHi, low: lo))
            digits.append(Character(String(r)))
            hi = qHi; lo = qLo
        }
        return String(digits.reversed())
    }
}

/// A Sapling diversifier (11 bytes) and its base point g_d, when it is one.
public enum SaplingDiversifier {
    /// d_j = FF1-AES256(dk, "", I2LEBSP88(j)), as 11 bytes.
    public static func at(_ index: DiversifierIndex, dk: [UInt8]) -> [UInt8] {
        let out = FF1AES256(key: dk).encrypt(bits: index.bits)
        // Public by design: the diversifier is half of the address it makes (and whether it
        // is valid decides which index is the default address's, in the open).
        return ConstantTime.declassified((0..<11).map { byte in (0..<8).reduce(UInt8(0)) { $0 | out[8 * byte + $1] << UInt8($1) } })
    }

    /// DiversifyHash(d) = GroupHash("Zcash_gd", d); nil for an invalid diversifier.
    public static func base(_ d: [UInt8]) -> JubjubPoint? { GroupHash.jubjub(personal: "Zcash_gd", d) }
}

/// A Sapling payment address: diversifier and transmission key pk_d = [ivk]g_d.
public struct SaplingPaymentAddress: Equatable, Sendable {
    public let diversifier: [UInt8]
    public let transmissionKey: [UInt8]

    package init(diversifier: [UInt8], transmissionKey: [UInt8]) {
        (self.diversifier, self.transmissionKey) = (diversifier, transmissionKey)
    }

    /// The 43 raw bytes d ‖ repr(pk_d).
    public var bytes: [UInt8] { diversifier + transmissionKey }

    public func encoded(_ network: ZcashNetwork) -> String {
        Bech32.encode(
            hrp: network.paymentAddressHRP, data: (try? Bech32.convertBits(bytes, from: 8, to: 5, pad: true)) ?? [], variant: .bech32)
    }
}

/// The parts of a Sapling full viewing key with its diversifier key: ak, nk, ovk, dk (ZIP-32).
public struct SaplingFullViewingKey: Sendable {
    public let ak: JubjubPoint
    public let nk: JubjubPoint
    public let ovk: [UInt8]
    public let dk: [UInt8]

    /// ak ‖ nk ‖ ovk ‖ dk, 128 bytes (the UFVK's Sapling item).
    public var bytes: [UInt8] { ak.bytes + nk.bytes + ovk + dk }

    /// From the 128-byte form; nil when ak or nk is no point of the prime-order subgroup, or
    /// when they give a zero ivk (see `SaplingIncomingViewingKey.init?(bytes:)`).
    public init?(bytes: [UInt8]) {
        guard bytes.count == 128, let ak = JubjubPoint(bytes: Array(bytes[0..<32])), let nk = JubjubPoint(bytes: Array(bytes[32..<64])),
            ak.isInPrimeSubgroup, nk.isInPrimeSubgroup, !ak.isIdentity
        else { return nil }
        self.init(ak: ak, nk: nk, ovk: Array(bytes[64..<96]), dk: Array(bytes[96..<128]))
        guard !incomingViewingKey.ivk.isZero else { return nil }
    }

    init(ak: JubjubPoint, nk: JubjubPoint, ovk: [UInt8], dk: [UInt8]) {
        self.ak = ak; self.nk = nk; self.ovk = ovk; self.dk = dk
    }

    /// ivk = CRH^ivk(ak, nk): BLAKE2s-256("Zcashivk", repr ak ‖ repr nk) with the top 5 bits cleared.
    public var incomingViewingKey: SaplingIncomingViewingKey {
        var h = Blake2.s256(personal: Array("Zcashivk".utf8), ak.bytes, nk.bytes)
        h[31] &= 0x07
        // < 2^251 < r_J: canonical, so no check (which would branch on the key).
        return SaplingIncomingViewingKey(dk: dk, ivk: Fr(canonical: Limbs(littleEndian: h)))
    }

    /// The FVK fingerprint: BLAKE2b-256("ZcashSaplingFVFP", ak ‖ nk ‖ ovk).
    public var fingerprint: [UInt8] { Blake2.b(32, personal: Array("ZcashSaplingFVFP".utf8), ak.bytes, nk.bytes, ovk) }

    /// The internal (change) full viewing key of ZIP-32: the same ak, nk + [I_nsk]H and new ovk, dk.
    public var `internal`: SaplingFullViewingKey {
        let (iNsk, dkInternal, ovkInternal) = SaplingFullViewingKey.internalParts(ak: ak, nk: nk, ovk: ovk, dk: dk)
        return SaplingFullViewingKey(ak: ak, nk: nk + SaplingGenerators.proofGeneration.times(iNsk), ovk: ovkInternal, dk: dkInternal)
    }

    static func internalParts(ak: JubjubPoint, nk: JubjubPoint, ovk: [UInt8], dk: [UInt8]) -> (Fr, dk: [UInt8], ovk: [UInt8]) {
        let i = Blake2.b(32, personal: Array("Zcash_SaplingInt".utf8), ak.bytes, nk.bytes, ovk, dk)
        let iNsk = Fr(wide: Blake2.prfExpand(i, [0x17]))
        let r = Blake2.prfExpand(i, [0x18])
        return (iNsk, Array(r[0..<32]), Array(r[32..<64]))
    }
}

/// An incoming viewing key with its diversifier key (dk ‖ ivk is the UIVK's Sapling item).
public struct SaplingIncomingViewingKey: Sendable {
    public let dk: [UInt8]
    public let ivk: Fr

    public init(dk: [UInt8], ivk: Fr) { self.dk = dk; self.ivk = ivk }

    /// From dk ‖ ivk (64 bytes); nil when ivk is not a canonical scalar, or is zero: every
    /// pk_d = [ivk]g_d would be the identity, an address anyone can read and no one can spend
    /// from. (g_d is of prime order, so a nonzero ivk below r gives no small-order pk_d.)
    public init?(bytes: [UInt8]) {
        guard bytes.count == 64, let ivk = Fr(bytes: bytes[32..<64]), !ivk.isZero else { return nil }
        self.init(dk: Array(bytes[0..<32]), ivk: ivk)
    }

    public var bytes: [UInt8] { dk + ivk.bytes }

    /// zcashd's encoding of the bare ivk ("zivks1…").
    public func encodedIVK(_ network: ZcashNetwork) -> String {
        Bech32.encode(
            hrp: network.incomingViewingKeyHRP, data: (try? Bech32.convertBits(ivk.bytes, from: 8, to: 5, pad: true)) ?? [],
            variant: .bech32)
    }

    /// The address at exactly `index`, nil when its diversifier is invalid.
    public func address(exactly index: DiversifierIndex) -> SaplingPaymentAddress? {
        let d = SaplingDiversifier.at(index, dk: dk)
        guard let g = SaplingDiversifier.base(d) else { return nil }
        let pkd = g.times(ivk)
        // Only a zero ivk, which no init lets in: public by design (never true for a key).
        guard !ConstantTime.declassified(pkd.isIdentity) else { return nil }
        return SaplingPaymentAddress(diversifier: d, transmissionKey: pkd.bytes)
    }

    /// The first valid address at or after `index`, with its index.
    public func address(from index: DiversifierIndex) throws(ZcashKeyError) -> (index: DiversifierIndex, address: SaplingPaymentAddress) {
        var j = index
        while true {
            if let a = address(exactly: j) { return (j, a) }
            guard let n = j.next() else { throw .noValidDiversifier }
            j = n
        }
    }

    /// The default address: the smallest valid diversifier index.
    public func defaultAddress() -> (index: DiversifierIndex, address: SaplingPaymentAddress) {
        // Half the indexes are valid, so a key without any is a 2^-88 event.
        guard let a = try? address(from: DiversifierIndex(0)) else { preconditionFailure("no valid diversifier in 2^88 indexes") }
        return a
    }
}

/// A ZIP-32 Sapling extended spending key. Its scalars and byte strings are secret; the class
/// overwrites them when released (copies Swift made along the way cannot be reached).
public final class SaplingExtendedSpendingKey: @unchecked Sendable {
    public let depth: UInt8
    public let parentTag: [UInt8]
    public let childIndex: UInt32
    private(set) var chainCode: [UInt8]
    private(set) var ask: Fr
    private(set) var nsk: Fr
    private(set) var ovk: [UInt8]
    private(set) var dk: [UInt8]

    init(depth: UInt8, parentTag: [UInt8], childIndex: UInt32, chainCode: [UInt8], ask: Fr, nsk: Fr, ovk: [UInt8], dk: [UInt8]) {
        self.depth = depth; self.parentTag = parentTag; self.childIndex = childIndex
        self.chainCode = chainCode; self.ask = ask; self.nsk = nsk; self.ovk = ovk; self.dk = dk
    }

    deinit {
        SecureBytes.wipe(&chainCode); SecureBytes.wipe(&ovk); SecureBytes.wipe(&dk)
        ask = .zero; nsk = .zero
    }

    /// The master key of a seed (32 to 252 bytes; BIP39 gives 64): BLAKE2b-512("ZcashIP32Sapling", seed).
    public static func master(seed: [UInt8]) -> SaplingExtendedSpendingKey {
        var i = Blake2.b(64, personal: Array("ZcashIP32Sapling".utf8), seed)
        defer { SecureBytes.wipe(&i) }
        let sk = Array(i[0..<32])
        return fromSpendingKey(sk, chainCode: Array(i[32..<64]), depth: 0, parentTag: [0, 0, 0, 0], childIndex: 0)
    }

    static func fromSpendingKey(
        _ sk: [UInt8], chainCode: [UInt8], depth: UInt8, parentTag: [UInt8], childIndex: UInt32
    ) -> SaplingExtendedSpendingKey {
        var sk = sk
        defer { SecureBytes.wipe(&sk) }
        return SaplingExtendedSpendingKey(
            depth: depth, parentTag: parentTag, childIndex: childIndex, chainCode: chainCode,
            ask: Fr(wide: Blake2.prfExpand(sk, [0x00])), nsk: Fr(wide: Blake2.prfExpand(sk, [0x01])),
            ovk: Array(Blake2.prfExpand(sk, [0x02])[0..<32]), dk: Array(Blake2.prfExpand(sk, [0x10])[0..<32]))
    }

    /// The child at `index` (hardened when index ≥ 2^31), ZIP-32 CKDsk.
    public func child(_ index: UInt32) -> SaplingExtendedSpendingKey {
        let fvk = fullViewingKey
        let indexBytes = withUnsafeBytes(of: index.littleEndian) { Array($0) }
        var i =
            index >= 0x8000_0000
            ? Blake2.prfExpand(chainCode, [0x11] + ask.bytes + nsk.bytes + ovk + dk + indexBytes)
            : Blake2.prfExpand(chainCode, [0x12] + fvk.ak.bytes + fvk.nk.bytes + ovk + dk + indexBytes)
        defer { SecureBytes.wipe(&i) }
        let il = Array(i[0..<32])
        return SaplingExtendedSpendingKey(
            depth: depth &+ 1, parentTag: Array(fvk.fingerprint[0..<4]), childIndex: index, chainCode: Array(i[32..<64]),
            ask: Fr(wide: Blake2.prfExpand(il, [0x13])) + ask, nsk: Fr(wide: Blake2.prfExpand(il, [0x14])) + nsk,
            ovk: Array(Blake2.prfExpand(il, [0x15] + ovk)[0..<32]), dk: Array(Blake2.prfExpand(il, [0x16] + dk)[0..<32]))
    }

    /// m/32'/coin'/account', the account key of ZIP-32.
    public static func account(seed: [UInt8], network: ZcashNetwork, account: UInt32) -> SaplingExtendedSpendingKey {
        master(seed: seed).child(0x8000_0020).child(0x8000_0000 | network.coinType).child(0x8000_0000 | account)
    }

    public var fullViewingKey: SaplingFullViewingKey {
        SaplingFullViewingKey(
            ak: SaplingGenerators.spendAuth.times(ask), nk: SaplingGenerators.proofGeneration.times(nsk), ovk: ovk, dk: dk)
    }

    public var extendedFullViewingKey: SaplingExtendedFullViewingKey {
        SaplingExtendedFullViewingKey(depth: depth, parentTag: parentTag, childIndex: childIndex, chainCode: chainCode, key: fullViewingKey)
    }

    /// The internal (change) spending key of ZIP-32: same ask, nsk + I_nsk, new ovk and dk.
    public var `internal`: SaplingExtendedSpendingKey {
        let fvk = fullViewingKey
        let (iNsk, dkInternal, ovkInternal) = SaplingFullViewingKey.internalParts(ak: fvk.ak, nk: fvk.nk, ovk: ovk, dk: dk)
        return SaplingExtendedSpendingKey(
            depth: depth, parentTag: parentTag, childIndex: childIndex, chainCode: chainCode,
            ask: ask, nsk: nsk + iNsk, ovk: ovkInternal, dk: dkInternal)
    }

    /// depth ‖ parent tag ‖ index (LE) ‖ chain code ‖ ask ‖ nsk ‖ ovk ‖ dk: 169 bytes.
    public var bytes: SecureBytes {
        var b = header(depth: depth, parentTag: parentTag, childIndex: childIndex, chainCode: chainCode) + ask.bytes + nsk.bytes + ovk + dk
        defer { SecureBytes.wipe(&b) }
        return SecureBytes(b)
    }

    /// The Bech32 string ("secret-extended-key-main1…"), in secure memory.
    public func encoded(_ network: ZcashNetwork) -> SecureBytes {
        bytes.withUnsafeBytes { raw in
            var five = (try? Bech32.convertBits(Array(raw), from: 8, to: 5, pad: true)) ?? []
            defer { SecureBytes.wipe(&five) }
            var text = Array(Bech32.encode(hrp: network.extendedSpendingKeyHRP, data: five, variant: .bech32).utf8)
            defer { SecureBytes.wipe(&text) }
            return SecureBytes(text)
        }
    }
}

func header(depth: UInt8, parentTag: [UInt8], childIndex: UInt32, chainCode: [UInt8]) -> [UInt8] {
    [depth] + parentTag + withUnsafeBytes(of: childIndex.littleEndian) { Array($0) } + chainCode
}

/// A ZIP-32 Sapling extended full viewing key: watch-only, and it derives non-hardened children.
public struct SaplingExtendedFullViewingKey: Sendable {
    public let depth: UInt8
    public let parentTag: [UInt8]
    public let childIndex: UInt32
    public let chainCode: [UInt8]
    public let key: SaplingFullViewingKey

    /// 169 bytes: the header, then ak ‖ nk ‖ ovk ‖ dk.
    public var bytes: [UInt8] { header(depth: depth, parentTag: parentTag, childIndex: childIndex, chainCode: chainCode) + key.bytes }

    public func encoded(_ network: ZcashNetwork) -> String {
        Bech32.encode(
            hrp: network.extendedFullViewingKeyHRP, data: (try? Bech32.convertBits(bytes, from: 8, to: 5, pad: true)) ?? [],
            variant: .bech32)
    }

    /// The non-hardened child (ZIP-32 CKDfvk); nil for a hardened index, which needs the spending key.
    public func child(_ index: UInt32) -> SaplingExtendedFullViewingKey? {
        guard index < 0x8000_0000 else { return nil }
        let i = Blake2.prfExpand(
            chainCode, [0x12] + key.ak.bytes + key.nk.bytes + key.ovk + key.dk + withUnsafeBytes(of: index.littleEndian) { Array($0) })
        let il = Array(i[0..<32])
        let child = SaplingFullViewingKey(
            ak: key.ak + SaplingGenerators.spendAuth.times(Fr(wide: Blake2.prfExpand(il, [0x13]))),
            nk: key.nk + SaplingGenerators.proofGeneration.times(Fr(wide: Blake2.prfExpand(il, [0x14]))),
            ovk: Array(Blake2.prfExpand(il, [0x15] + key.ovk)[0..<32]), dk: Array(Blake2.prfExpand(il, [0x16] + key.dk)[0..<32]))
        return SaplingExtendedFullViewingKey(
            depth: depth &+ 1, parentTag: Array(key.fingerprint[0..<4]), childIndex: index,
            chainCode: Array(i[32..<64]), key: child)
    }

    public var `internal`: SaplingExtendedFullViewingKey {
        SaplingExtendedFullViewingKey(depth: depth, parentTag: parentTag, childIndex: childIndex, chainCode: chainCode, key: key.internal)
    }

    /// Decodes "zxviews1…" (or the test network's form).
    public init(encoded text: String, network: ZcashNetwork) throws(ZcashKeyError) {
        guard let (hrp, data, variant) = try? Bech32.decode(text, maxLength: 1000), variant == .bech32,
            hrp == network.extendedFullViewingKeyHRP, let raw = try? Bech32.convertBits(data, from: 5, to: 8, pad: false), raw.count == 169,
            let key = SaplingFullViewingKey(bytes: Array(raw[41..<169]))
        else {
            throw .invalidEncoding("not a Sapling extended full viewing key for the \(network.rawValue) network")
        }
        self.init(
            depth: raw[0], parentTag: Array(raw[1..<5]), childIndex: raw[5..<9].reversed().reduce(0) { $0 << 8 | UInt32($1) },
            chainCode: Array(raw[9..<41]), key: key)
    }

    init(depth: UInt8, parentTag: [UInt8], childIndex: UInt32, chainCode: [UInt8], key: SaplingFullViewingKey) {
        self.depth = depth; self.parentTag = parentTag; self.childIndex = childIndex; self.chainCode = chainCode; self.key = key
    }
}

extension JubjubPoint {
    /// Whether [r_J]P is the identity (P is in the prime-order subgroup).
    var isInPrimeSubgroup: Bool { times(littleEndian: FrModulus.modulus.littleEndianBytes).isIdentity }
}

extension SaplingDiversifier {
    /// The diversifier index j with d = FF1-AES256(dk, j): FF1 decryption.
    public static func index(of d: [UInt8], dk: [UInt8]) -> DiversifierIndex {
        let j = FF1AES256(key: dk).decrypt(bits: PedersenHash.bits(d))
        var low: UInt64 = 0, high: UInt32 = 0
        for k in 0..<64 where j[k] == 1 { low |= 1 << UInt64(k) }
        for k in 0..<24 where j[64 + k] == 1 { high |= 1 << UInt32(k) }
        return DiversifierIndex(low: low, high: high)
    }
}
