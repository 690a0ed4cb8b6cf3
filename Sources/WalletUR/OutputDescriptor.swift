import WalletCore

/// A key inside an output descriptor: a plain EC key (crypto-eckey) or an HD key.
public enum OutputKey: Equatable, Sendable {
    case ec([UInt8], isPrivate: Bool)
    case hd(HDKey)

    /// As a descriptor writes it: hex, or [fingerprint/origin]xpub/children.
    public var text: String {
        switch self {
        case .ec(let data, _): return Hex.encode(data)
        case .hd(let key):
            var out = ""
            if let origin = key.origin, origin.sourceFingerprint != nil || !origin.components.isEmpty {
                out += "[" + Hex.encode(Bytewords.bigEndian(origin.sourceFingerprint ?? 0))
                if !origin.components.isEmpty { out += "/" + origin.text }
                out += "]"
            }
            out += key.extendedKeyText ?? Hex.encode(key.keyData)
            if let children = key.children, !children.components.isEmpty { out += "/" + children.text }
            return out
        }
    }

    func cbor(_ generation: RegistryGeneration) -> CBOR {
        switch self {
        case .ec(let data, let isPrivate):
            var pairs: [(CBOR, CBOR)] = []
            if isPrivate { pairs.append((.unsigned(2), .bool(true))) }
            pairs.append((.unsigned(3), .bytes(data)))
            return .tagged(generation.tag(RegistryGeneration.eckey), .map(pairs))
        case .hd(let key): return .tagged(generation.tag(RegistryGeneration.hdkey), key.cbor(generation))
        }
    }

    init(cbor: CBOR) throws(URError) {
        guard case .tagged(let tag, let item) = cbor else { throw .unsupported("a descriptor key without its tag") }
        switch tag {
        case RegistryGeneration.hdkey, 40000 + RegistryGeneration.hdkey: self = .hd(try HDKey(cbor: item))
        case RegistryGeneration.eckey, 40000 + RegistryGeneration.eckey:
            let f = try item.fields([1, 2, 3], what: "an EC key")
            guard f[1] == nil || f[1] == .unsigned(0) else { throw .unsupported("an EC key on a curve other than secp256k1") }
            guard case .bytes(let data)? = f[3], data.count == 33 || data.count == 32 || data.count == 65 else {
                throw .unsupported("an EC key without its key data")
            }
            self = .ec(data, isPrivate: f[2] == .bool(true))
        default: throw .unsupported("a descriptor key under tag \(tag)")
        }
    }
}

/// crypto-output (BCR-2020-010): a script expression over keys, its tags those of the
/// descriptor's functions. Inside it, tag 401 is wsh() — whatever Keystone's registry calls
/// 401 at the top level of its own types.
public indirect enum OutputDescriptor: Equatable, Sendable {
    case sh(OutputDescriptor)
    case wsh(OutputDescriptor)
    case pk(OutputKey)
    case pkh(OutputKey)
    case wpkh(OutputKey)
    case combo(OutputKey)
    case multi(Int, [OutputKey], sorted: Bool)
    case tr(OutputKey)
    case cosigner(OutputKey)

    static let tags: [String: UInt64] = [
        "sh": 400, "wsh": 401, "pk": 402, "pkh": 403, "wpkh": 404, "combo": 405, "multi": 406, "sortedmulti": 407, "tr": 409,
        "cosigner": 410,
    ]

    /// Bitcoin Core's descriptor text (without checksum).
    public var text: String {
        switch self {
        case .sh(let d): "sh(\(d.text))"
        case .wsh(let d): "wsh(\(d.text))"
        case .pk(let k): "pk(\(k.text))"
        case .pkh(let k): "pkh(\(k.text))"
        case .wpkh(let k): "wpkh(\(k.text))"
        case .combo(let k): "combo(\(k.text))"
        case .multi(let m, let keys, let sorted):
            (sorted ? "sortedmulti(" : "multi(") + "\(m)," + keys.map(\.text).joined(separator: ",") + ")"
        case .tr(let k): "tr(\(k.text))"
        case .cosigner(let k): "cosigner(\(k.text))"
        }
    }

    /// Tagged with its outermost function's tag.
    func cbor(_ generation: RegistryGeneration) -> CBOR {
        switch self {
        case .sh(let d): .tagged(400, d.cbor(generation))
        case .wsh(let d): .tagged(401, d.cbor(generation))
        case .pk(let k): .tagged(402, k.cbor(generation))
        case .pkh(let k): .tagged(403, k.cbor(generation))
        case .wpkh(let k): .tagged(404, k.cbor(generation))
        case .combo(let k): .tagged(405, k.cbor(generation))
        case .multi(let m, let keys, let sorted):
            .tagged(
                sorted ? 407 : 406, .map([(.unsigned(1), .unsigned(UInt64(m))), (.unsigned(2), .array(keys.map { $0.cbor(generation) }))]))
        case .tr(let k): .tagged(409, k.cbor(generation))
        case .cosigner(let k): .tagged(410, k.cbor(generation))
        }
    }

    init(cbor: CBOR, depth: Int = 0) throws(URError) {
        guard depth < 4 else { throw .unsupported("a descriptor nested deeper than sh(wsh(…))") }
        guard case .tagged(let tag, let item) = cbor else { throw .unsupported("a script expression without its tag") }
        switch tag {
        case 400: self = .sh(try OutputDescriptor(cbor: item, depth: depth + 1))
        case 401: self = .wsh(try OutputDescriptor(cbor: item, depth: depth + 1))
        case 402: self = .pk(try OutputKey(cbor: item))
        case 403: self = .pkh(try OutputKey(cbor: item))
        case 404: self = .wpkh(try OutputKey(cbor: item))
        case 405: self = .combo(try OutputKey(cbor: item))
        case 406, 407:
            let f = try item.fields([1, 2], what: "a multi()")
            guard case .unsigned(let m)? = f[1], case .array(let keys)? = f[2], m >= 1, m <= UInt64(keys.count), keys.count <= 20 else {
                throw .unsupported("a multi() whose threshold and keys do not fit")
            }
            var parsed: [OutputKey] = []
            for k in keys { parsed.append(try OutputKey(cbor: k)) }
            self = .multi(Int(m), parsed, sorted: tag == 407)
        case 409: self = .tr(try OutputKey(cbor: item))
        case 410: self = .cosigner(try OutputKey(cbor: item))
        default: throw .unsupported("a script expression under tag \(tag)")
        }
    }

    public func ur(_ generation: RegistryGeneration = .v1) throws(URError) -> UR {
        try UR(type: "crypto-output", cbor: cbor(generation).encoded)
    }

    /// A crypto-output UR (its top-level item is the script expression, tagged).
    public init(ur: UR) throws(URError) {
        guard ur.type == "crypto-output" else { throw .unsupported("a ur:\(ur.type) is not a crypto-output") }
        var item = try CBOR(decoding: ur.cbor)
        if case .tagged(let t, let inner) = item, t == RegistryGeneration.output || t == 40000 + RegistryGeneration.output { item = inner }
        try self.init(cbor: item)
    }
}

/// output-descriptor (BCR-2023-010): the descriptor's text with @n for its keys, and the keys.
/// A new format, not a rename of crypto-output; read here and turned into descriptor text.
public struct TextOutputDescriptor: Equatable, Sendable {
    public var source: String
    public var keys: [OutputKey]
    public var name: String?

    init(cbor: CBOR) throws(URError) {
        let f = try cbor.fields([1, 2, 3], what: "an output-descriptor")
        guard case .text(let source)? = f[1] else { throw .unsupported("an output-descriptor without its text") }
        var keys: [OutputKey] = []
        if case .array(let items)? = f[2] { for k in items { keys.append(try OutputKey(cbor: k)) } }
        self.source = source
        self.keys = keys
        if case .text(let n)? = f[3] { name = n }
    }

    public init(ur: UR) throws(URError) {
        guard ur.type == "output-descriptor" else { throw .unsupported("a ur:\(ur.type) is not an output-descriptor") }
        try self.init(cbor: try CBOR(decoding: ur.cbor).untag(RegistryGeneration.output, what: "an output-descriptor", untaggedOK: true))
    }

    /// The text with each @n replaced by its key (highest n first, so @1 does not eat @10).
    public var text: String {
        var out = source
        for (i, key) in keys.enumerated().reversed() { out = out.replacing("@\(i)", with: key.text) }
        return out
    }
}

/// crypto-account (BCR-2020-015): a master fingerprint and the account's outputs, one per
/// script type; account-descriptor (BCR-2023-019) is its successor over output-descriptor.
public struct Account: Equatable, Sendable {
    public var masterFingerprint: UInt32
    /// Descriptor texts, in order.
    public var descriptors: [String]
    var outputs: [OutputDescriptor]

    public init(masterFingerprint: UInt32, outputs: [OutputDescriptor]) {
        (self.masterFingerprint, self.outputs) = (masterFingerprint, outputs)
        descriptors = outputs.map(\.text)
    }

    public func ur() throws(URError) -> UR {
        let items = outputs.map { CBOR.tagged(RegistryGeneration.output, $0.cbor(.v1)) }
        return try UR(
            type: "crypto-account",
            cbor: CBOR.map([(.unsigned(1), .unsigned(UInt64(masterFingerprint))), (.unsigned(2), .array(items))]).encoded)
    }

    public init(ur: UR) throws(URError) {
        let item = try CBOR(decoding: ur.cbor)
        let f = try item.fields([1, 2], what: "an account")
        guard let fp = f[1]?.uint32, case .array(let items)? = f[2] else {
            throw .unsupported("an account without fingerprint and outputs")
        }
        masterFingerprint = fp
        switch ur.type {
        case "crypto-account":
            outputs = []
            for o in items {
                outputs.append(try OutputDescriptor(cbor: try o.untag(RegistryGeneration.output, what: "an account's output")))
            }
            descriptors = outputs.map(\.text)
        case "account-descriptor":
            outputs = []
            descriptors = []
            for o in items {
                descriptors.append(try TextOutputDescriptor(cbor: try o.untag(RegistryGeneration.output, what: "an account's output")).text)
            }
        default: throw .unsupported("a ur:\(ur.type) is not an account")
        }
    }
}
