import WalletCore
import WalletCrypto

/// crypto-hdkey / hdkey (BCR-2020-007): a BIP32 key with where it sits — the origin path
/// from a master of known fingerprint, the children a wallet derives, the coin — which is what
/// a watch-only wallet pairs with (Sparrow, Keystone-style wallets, MetaMask at m/44'/60'/0').
public struct HDKey: Equatable, Sendable {
    public var isMaster = false
    public var isPrivate = false
    /// 33 bytes: a compressed public key, or 0x00 ‖ a private key.
    public var keyData: [UInt8]
    public var chainCode: [UInt8]?
    public var useInfo: CoinInfo?
    public var origin: KeyPath?
    public var children: KeyPath?
    public var parentFingerprint: UInt32?
    public var name: String?
    public var note: String?

    public init(
        keyData: [UInt8], chainCode: [UInt8]?, origin: KeyPath? = nil, parentFingerprint: UInt32? = nil, useInfo: CoinInfo? = nil,
        children: KeyPath? = nil, name: String? = nil, note: String? = nil
    ) {
        (self.keyData, self.chainCode, self.origin, self.parentFingerprint) = (keyData, chainCode, origin, parentFingerprint)
        (self.useInfo, self.children, self.name, self.note) = (useInfo, children, name, note)
    }

    /// A public extended key (xpub/tpub text) placed by its origin.
    public init(extendedKey text: String, origin: KeyPath?) throws(URError) {
        guard let raw = try? Base58.decodeCheck(text), raw.count == 78 else {
            throw .unsupported("\(text.prefix(12))… is not an extended key")
        }
        let version = raw[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let testnet: Bool
        switch version {
        case 0x0488_B21E: testnet = false
        case 0x0435_87CF: testnet = true
        default: throw .unsupported("\(text.prefix(4)) keys are exported as xpub or tpub")
        }
        let parent = raw[5..<9].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        self.init(
            keyData: Array(raw[45..<78]), chainCode: Array(raw[13..<45]), origin: origin, parentFingerprint: raw[4] == 0 ? nil : parent,
            useInfo: testnet ? CoinInfo(network: 1) : nil)
    }

    /// The key as xpub (tpub on a test network) text, its depth and child number from the
    /// origin: what Bitcoin Core's descriptors and most wallets show.
    /// BCR-2020-007: a master key is a private key, whether or not is-private says so.
    public var holdsPrivateKey: Bool { isPrivate || isMaster }

    public var extendedKeyText: String? {
        guard let chainCode, chainCode.count == 32, keyData.count == 33 else { return nil }
        let testnet = useInfo?.network == 1
        let version: UInt32 =
            holdsPrivateKey ? (testnet ? 0x0435_8394 : 0x0488_ADE4) : (testnet ? 0x0435_87CF : 0x0488_B21E)
        let indexes = origin?.indexes ?? []
        let depth = isMaster ? 0 : (origin?.depth ?? indexes.count)
        let child = isMaster ? 0 : (indexes.last ?? 0)
        var raw = Bytewords.bigEndian(version) + [UInt8(clamping: depth)]
        raw += Bytewords.bigEndian(isMaster ? 0 : parentFingerprint ?? 0) + Bytewords.bigEndian(child) + chainCode + keyData
        return Base58.encodeCheck(raw)
    }

    func cbor(_ generation: RegistryGeneration) -> CBOR {
        var pairs: [(CBOR, CBOR)] = []
        if isMaster { pairs.append((.unsigned(1), .bool(true))) }
        if isPrivate { pairs.append((.unsigned(2), .bool(true))) }
        pairs.append((.unsigned(3), .bytes(keyData)))
        if let chainCode { pairs.append((.unsigned(4), .bytes(chainCode))) }
        if let useInfo { pairs.append((.unsigned(5), .tagged(generation.tag(RegistryGeneration.coinInfo), useInfo.cbor))) }
        if let origin { pairs.append((.unsigned(6), .tagged(generation.tag(RegistryGeneration.keypath), origin.cbor))) }
        if let children { pairs.append((.unsigned(7), .tagged(generation.tag(RegistryGeneration.keypath), children.cbor))) }
        if let parentFingerprint { pairs.append((.unsigned(8), .unsigned(UInt64(parentFingerprint)))) }
        if let name { pairs.append((.unsigned(9), .text(name))) }
        if let note { pairs.append((.unsigned(10), .text(note))) }
        return .map(pairs)
    }

    init(cbor: CBOR) throws(URError) {
        let f = try cbor.fields(Set(1...10), what: "an hdkey")
        guard case .bytes(let key)? = f[3], key.count == 33 else { throw .unsupported("an hdkey without 33 bytes of key data") }
        var chainCode: [UInt8]?
        if let c = f[4] {
            guard case .bytes(let code) = c, code.count == 32 else { throw .unsupported("an hdkey chain code that is not 32 bytes") }
            chainCode = code
        }
        self.init(keyData: key, chainCode: chainCode)
        if case .bool(let b)? = f[1] { isMaster = b }
        if case .bool(let b)? = f[2] { isPrivate = b }
        useInfo = try f[5].map { c throws(URError) in try CoinInfo(cbor: try c.untag(RegistryGeneration.coinInfo, what: "a coin info")) }
        origin = try f[6].map { c throws(URError) in try KeyPath(cbor: try c.untag(RegistryGeneration.keypath, what: "an origin")) }
        children = try f[7].map { c throws(URError) in try KeyPath(cbor: try c.untag(RegistryGeneration.keypath, what: "a children path")) }
        if let p = f[8] {
            guard let fp = p.uint32 else { throw .unsupported("a parent fingerprint out of range") }
            parentFingerprint = fp
        }
        if case .text(let s)? = f[9] { name = s }
        if case .text(let s)? = f[10] { note = s }
        guard holdsPrivateKey == (key[0] == 0) else { throw .unsupported("an hdkey whose key data does not match its is-private flag") }
    }

    static let names = (v1: "crypto-hdkey", v2: "hdkey")

    /// The UR of this key alone: `crypto-hdkey` (v1 tags inside) or `hdkey` (v2).
    public func ur(_ generation: RegistryGeneration = .v1) throws(URError) -> UR {
        try generation.standalone(cbor(generation), names: Self.names)
    }

    public init(ur: UR) throws(URError) {
        try self.init(cbor: try RegistryGeneration.item(of: ur, names: Self.names, base: RegistryGeneration.hdkey, what: "an hdkey"))
    }
}
