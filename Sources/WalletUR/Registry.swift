import WalletCore

/// The registry's two generations of tags (BCR-2020-006): the `crypto-` names use 3xx, their
/// renames (`hdkey`, `keypath`, …) 40000 + the same number. Which one a nested item carries
/// follows the UR type it sits in; a reader takes either inside the old names, as the wallets
/// in the field mix them.
public enum RegistryGeneration: Sendable {
    case v1, v2

    func tag(_ base: UInt64) -> UInt64 { self == .v1 ? base : 40000 + base }
    static let hdkey: UInt64 = 303, keypath: UInt64 = 304, coinInfo: UInt64 = 305, eckey: UInt64 = 306
    static let output: UInt64 = 308, psbt: UInt64 = 310, account: UInt64 = 311
}

extension CBOR {
    /// The item under a tag of `base` in either generation (or untagged when `untaggedOK`).
    func untag(_ base: UInt64, what: String, untaggedOK: Bool = false) throws(URError) -> CBOR {
        if case .tagged(let tag, let item) = self {
            guard tag == base || tag == 40000 + base else { throw .unsupported("\(what) under tag \(tag), not \(base)") }
            return item
        }
        guard untaggedOK else { throw .unsupported("\(what) without its tag \(base)") }
        return self
    }

    var uint32: UInt32? {
        if case .unsigned(let n) = self, n <= UInt64(UInt32.max) { return UInt32(n) }
        return nil
    }

    /// A map whose keys are all small unsigned integers from `known`: anything else is refused,
    /// since an unknown field may change what is signed or who is paid.
    func fields(_ known: Set<UInt64>, what: String) throws(URError) -> [UInt64: CBOR] {
        guard case .map(let pairs) = self else { throw .unsupported("\(what) is not a map") }
        var out: [UInt64: CBOR] = [:]
        for (key, value) in pairs {
            guard case .unsigned(let k) = key, known.contains(k) else {
                throw .unsupported("\(what) has a field this version does not read")
            }
            out[k] = value
        }
        return out
    }
}

/// crypto-keypath (BCR-2020-007): path components, the fingerprint of the key it starts from,
/// and the depth. Wildcards and ranges appear only in `children`.
public struct KeyPath: Equatable, Sendable {
    public enum Component: Equatable, Sendable {
        case index(UInt32, hardened: Bool)
        case wildcard(hardened: Bool)
        case range(UInt32, UInt32, hardened: Bool)
        /// BCR-2020-010's <0;1> pair (receive;change).
        case pair(UInt32, UInt32)
    }

    public var components: [Component]
    public var sourceFingerprint: UInt32?
    public var depth: Int?

    public init(components: [Component], sourceFingerprint: UInt32? = nil, depth: Int? = nil) {
        (self.components, self.sourceFingerprint, self.depth) = (components, sourceFingerprint, depth)
    }

    /// From BIP32 indexes (hardened above 2^31).
    public init(path: [UInt32], sourceFingerprint: UInt32? = nil, depth: Int? = nil) {
        self.init(
            components: path.map { .index($0 & 0x7FFF_FFFF, hardened: $0 >= 0x8000_0000) }, sourceFingerprint: sourceFingerprint,
            depth: depth)
    }

    /// "44'/0'/0'" (and "*", "0-9", "<0;1>").
    public var text: String {
        components.map {
            switch $0 {
            case .index(let i, let h): "\(i)" + (h ? "'" : "")
            case .wildcard(let h): "*" + (h ? "'" : "")
            case .range(let a, let b, let h): "\(a)-\(b)" + (h ? "'" : "")
            case .pair(let a, let b): "<\(a);\(b)>"
            }
        }.joined(separator: "/")
    }

    /// The BIP32 indexes, when every component is a plain index.
    public var indexes: [UInt32]? {
        var out: [UInt32] = []
        for c in components {
            guard case .index(let i, let h) = c else { return nil }
            out.append(h ? i | 0x8000_0000 : i)
        }
        return out
    }

    var cbor: CBOR {
        var items: [CBOR] = []
        for c in components {
            switch c {
            case .index(let i, let h): items += [.unsigned(UInt64(i)), .bool(h)]
            case .wildcard(let h): items += [.array([]), .bool(h)]
            case .range(let a, let b, let h): items += [.array([.unsigned(UInt64(a)), .unsigned(UInt64(b))]), .bool(h)]
            case .pair(let a, let b): items += [.array([.unsigned(UInt64(a)), .bool(false), .unsigned(UInt64(b)), .bool(false)])]
            }
        }
        var pairs: [(CBOR, CBOR)] = [(.unsigned(1), .array(items))]
        if let sourceFingerprint { pairs.append((.unsigned(2), .unsigned(UInt64(sourceFingerprint)))) }
        if let depth { pairs.append((.unsigned(3), .unsigned(UInt64(depth)))) }
        return .map(pairs)
    }

    init(cbor: CBOR) throws(URError) {
        let f = try cbor.fields([1, 2, 3], what: "a key path")
        guard case .array(let items)? = f[1] else { throw .unsupported("a key path without components") }
        var components: [Component] = []
        var i = 0
        while i < items.count {
            if case .array(let pair) = items[i], pair.count == 4, let a = pair[0].uint32, pair[1] == .bool(false), let b = pair[2].uint32,
                pair[3] == .bool(false)
            {
                components.append(.pair(a, b))
                i += 1
                continue
            }
            guard i + 1 < items.count, case .bool(let hardened) = items[i + 1] else {
                throw .unsupported("a key path component without its hardened flag")
            }
            switch items[i] {
            case .unsigned(let n) where n < 0x8000_0000: components.append(.index(UInt32(n), hardened: hardened))
            case .array(let r) where r.isEmpty: components.append(.wildcard(hardened: hardened))
            case .array(let r) where r.count == 2:
                guard let a = r[0].uint32, let b = r[1].uint32 else { throw .unsupported("a key path range out of bounds") }
                components.append(.range(a, b, hardened: hardened))
            default: throw .unsupported("a key path component this version does not read")
            }
            i += 2
        }
        var depth: Int?
        if let d = f[3] {
            guard case .unsigned(let n) = d, n <= 255 else { throw .unsupported("a key path depth out of range") }
            depth = Int(n)
        }
        if let fp = f[2] { guard fp.uint32 != nil else { throw .unsupported("a source fingerprint out of range") } }
        self.init(components: components, sourceFingerprint: f[2]?.uint32, depth: depth)
    }
}

/// crypto-coin-info: the coin's SLIP-44 type (0 bitcoin, 60 ether) and network (0 main, 1 test).
public struct CoinInfo: Equatable, Sendable {
    public var type: UInt32
    public var network: Int

    public init(type: UInt32 = 0, network: Int = 0) { (self.type, self.network) = (type, network) }

    var cbor: CBOR {
        var pairs: [(CBOR, CBOR)] = []
        if type != 0 { pairs.append((.unsigned(1), .unsigned(UInt64(type)))) }
        if network != 0 { pairs.append((.unsigned(2), .unsigned(UInt64(network)))) }
        return .map(pairs)
    }

    init(cbor: CBOR) throws(URError) {
        let f = try cbor.fields([1, 2], what: "a coin info")
        guard f[1].map({ $0.uint32 != nil }) ?? true, f[2].map({ $0.uint32 != nil }) ?? true else {
            throw .unsupported("a coin info out of range")
        }
        self.init(type: f[1]?.uint32 ?? 0, network: Int(f[2]?.uint32 ?? 0))
    }
}

extension RegistryGeneration {
    /// An item alone as a UR: under its `crypto-` name (v1) or its 2024 name (v2).
    func standalone(_ item: CBOR, names: (v1: String, v2: String)) throws(URError) -> UR {
        try UR(type: self == .v1 ? names.v1 : names.v2, cbor: item.encoded)
    }

    /// The item of a UR of either name, tagged (`base` in either generation) or not.
    static func item(of ur: UR, names: (v1: String, v2: String), base: UInt64, what: String) throws(URError) -> CBOR {
        guard ur.type == names.v1 || ur.type == names.v2 else { throw .unsupported("a ur:\(ur.type) is not \(what)") }
        return try CBOR(decoding: ur.cbor).untag(base, what: what, untaggedOK: true)
    }
}

extension KeyPath {
    static let names = (v1: "crypto-keypath", v2: "keypath")

    /// A path alone as a UR: crypto-keypath (keypath in the 2024 names).
    public func ur(_ generation: RegistryGeneration = .v1) throws(URError) -> UR { try generation.standalone(cbor, names: Self.names) }

    public init(ur: UR) throws(URError) {
        try self.init(cbor: try RegistryGeneration.item(of: ur, names: Self.names, base: RegistryGeneration.keypath, what: "a key path"))
    }
}

extension CoinInfo {
    static let names = (v1: "crypto-coin-info", v2: "coin-info")

    /// A coin alone as a UR: crypto-coin-info (coin-info in the 2024 names).
    public func ur(_ generation: RegistryGeneration = .v1) throws(URError) -> UR { try generation.standalone(cbor, names: Self.names) }

    public init(ur: UR) throws(URError) {
        try self.init(cbor: try RegistryGeneration.item(of: ur, names: Self.names, base: RegistryGeneration.coinInfo, what: "a coin info"))
    }
}
