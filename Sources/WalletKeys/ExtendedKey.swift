import WalletCore
import WalletCrypto

/// Version bytes of serialized extended keys (BIP32 and SLIP-132).
public struct ExtendedKeyVersion: Sendable, Equatable {
    public let publicPrefix: String
    public let privatePrefix: String
    public let publicVersion: UInt32
    public let privateVersion: UInt32
    public let testnet: Bool

    public static let all: [ExtendedKeyVersion] = [
        .init(publicPrefix: "xpub", privatePrefix: "xprv", publicVersion: 0x0488_B21E, privateVersion: 0x0488_ADE4, testnet: false),
        .init(publicPrefix: "ypub", privatePrefix: "yprv", publicVersion: 0x049D_7CB2, privateVersion: 0x049D_7878, testnet: false),
        .init(publicPrefix: "zpub", privatePrefix: "zprv", publicVersion: 0x04B2_4746, privateVersion: 0x04B2_430C, testnet: false),
        .init(publicPrefix: "Ypub", privatePrefix: "Yprv", publicVersion: 0x0295_B43F, privateVersion: 0x0295_B005, testnet: false),
        .init(publicPrefix: "Zpub", privatePrefix: "Zprv", publicVersion: 0x02AA_7ED3, privateVersion: 0x02AA_7A99, testnet: false),
        .init(publicPrefix: "tpub", privatePrefix: "tprv", publicVersion: 0x0435_87CF, privateVersion: 0x0435_8394, testnet: true),
        .init(publicPrefix: "upub", privatePrefix: "uprv", publicVersion: 0x044A_5262, privateVersion: 0x044A_4E28, testnet: true),
        .init(publicPrefix: "vpub", privatePrefix: "vprv", publicVersion: 0x045F_1CF6, privateVersion: 0x045F_18BC, testnet: true),
        .init(publicPrefix: "Upub", privatePrefix: "Uprv", publicVersion: 0x0242_89EF, privateVersion: 0x0242_85B5, testnet: true),
        .init(publicPrefix: "Vpub", privatePrefix: "Vprv", publicVersion: 0x0257_5483, privateVersion: 0x0257_5048, testnet: true),
    ]

    /// Every version's four-letter prefixes (xpub, xprv, zpub, tprv, …): the record fields a key
    /// goes under, and how a lone pasted key is known.
    public static let prefixes = Set(all.flatMap { [$0.publicPrefix, $0.privatePrefix] })

    public static func named(_ prefix: String) -> ExtendedKeyVersion? {
        all.first { $0.publicPrefix == prefix || $0.privatePrefix == prefix }
    }

    public static let xpub = named("xpub")!
    public static let tpub = named("tpub")!

    /// The SLIP-132 kind for a script on mainnet or testnet (xpub/tpub for P2PKH and P2TR).
    public static func slip132(for script: ScriptKind, testnet: Bool) -> ExtendedKeyVersion {
        switch (script, testnet) {
        case (.p2shP2wpkh, false): named("ypub")!
        case (.p2shP2wpkh, true): named("upub")!
        case (.p2wpkh, false): named("zpub")!
        case (.p2wpkh, true): named("vpub")!
        case (_, false): xpub
        case (_, true): tpub
        }
    }

    /// The script a SLIP-132 prefix says (ypub/upub P2SH-P2WPKH, zpub/vpub P2WPKH); nil for
    /// xpub/tpub, which serve P2PKH and P2TR alike.
    public var impliedScript: ScriptKind? {
        switch publicPrefix {
        case "ypub", "upub": .p2shP2wpkh
        case "zpub", "vpub": .p2wpkh
        default: nil
        }
    }
}

/// A BIP32 extended key: a private or public key with its chain code and place in the tree.
public struct ExtendedKey: Sendable {
    public let depth: UInt8
    public let parentFingerprint: [UInt8]
    public let childNumber: UInt32
    public let chainCode: [UInt8]
    /// nil for a public (watch-only) key.
    public let privateKey: SecureBytes?
    public let publicKey: Secp256k1.PublicKey
    /// The version it was read with, if it was read from text.
    public let version: ExtendedKeyVersion

    public var isPrivate: Bool { privateKey != nil }

    /// The first 4 bytes of HASH160 of the public key: this key's fingerprint.
    public var fingerprint: [UInt8] { Array(Hash.hash160(publicKey.compressed).prefix(4)) }

    public init(
        depth: UInt8, parentFingerprint: [UInt8], childNumber: UInt32, chainCode: [UInt8],
        privateKey: SecureBytes?, publicKey: Secp256k1.PublicKey, version: ExtendedKeyVersion
    ) {
        self.depth = depth
        self.parentFingerprint = parentFingerprint
        self.childNumber = childNumber
        self.chainCode = chainCode
        self.privateKey = privateKey
        self.publicKey = publicKey
        self.version = version
    }

    /// The master key of a seed: HMAC-SHA512("Bitcoin seed", seed); an invalid IL is an error,
    /// never reduced.
    public static func master(seed: SecureBytes, version: ExtendedKeyVersion = .xpub) throws(DerivationError) -> ExtendedKey {
        guard (16...64).contains(seed.count) else { throw .invalidSeedLength(seed.count) }
        let i = Array("Bitcoin seed".utf8).withUnsafeBytes { key in seed.withUnsafeBytes { Hash.hmacSHA512(key: key, data: $0) } }
        let key = SecureBytes(i.bytes.prefix(32))
        guard Secp256k1.isValidPrivateKey(key), let pub = try? Secp256k1.publicKey(of: key) else { throw .invalidMasterKey }
        return ExtendedKey(
            depth: 0, parentFingerprint: [0, 0, 0, 0], childNumber: 0, chainCode: Array(i.bytes.suffix(32)),
            privateKey: key, publicKey: pub, version: version)
    }

    /// A master key from its parts, as a card holds one after LOAD KEY.
    public init(masterPrivateKey key: SecureBytes, chainCode: [UInt8], version: ExtendedKeyVersion = .xpub) throws(DerivationError) {
        guard chainCode.count == 32, Secp256k1.isValidPrivateKey(key), let pub = try? Secp256k1.publicKey(of: key) else {
            throw .invalidMasterKey
        }
        self.init(
            depth: 0, parentFingerprint: [0, 0, 0, 0], childNumber: 0, chainCode: chainCode, privateKey: key, publicKey: pub,
            version: version)
    }

    /// A public node from its parts, as a card exports one (EXPORT KEY, extended public).
    public init(
        publicKey: [UInt8], chainCode: [UInt8], depth: UInt8, childNumber: UInt32, parentFingerprint: [UInt8],
        version: ExtendedKeyVersion = .xpub
    ) throws(DerivationError) {
        guard chainCode.count == 32, parentFingerprint.count == 4, let key = try? Secp256k1.PublicKey(parsing: publicKey) else {
            throw .invalidMasterKey
        }
        self.init(
            depth: depth, parentFingerprint: parentFingerprint, childNumber: childNumber, chainCode: chainCode,
            privateKey: nil, publicKey: key, version: version)
    }

    /// The child at `index` (≥ 2^31 is hardened). `pathForErrors` names the child in errors.
    public func child(_ index: UInt32, pathForErrors: @autoclosure () -> String = "") throws(DerivationError) -> ExtendedKey {
        let hardened = index >= DerivationPath.hardened
        var data = [UInt8]()
        data.reserveCapacity(37)
        if hardened {
            guard let privateKey else { throw .hardenedFromPublicKey(path: pathForErrors()) }
            data.append(0)
            data += privateKey.bytes
        } else {
            data += publicKey.compressed
        }
        data += [
            UInt8(index >> 24), UInt8(truncatingIfNeeded: index >> 16), UInt8(truncatingIfNeeded: index >> 8),
            UInt8(truncatingIfNeeded: index),
        ]
        defer { SecureBytes.wipe(&data) }
        let i = chainCode.withUnsafeBytes { key in data.withUnsafeBytes { Hash.hmacSHA512(key: key, data: $0) } }
        var il = Array(i.bytes.prefix(32))
        defer { SecureBytes.wipe(&il) }
        let childChain = Array(i.bytes.suffix(32))
        do {
            if let privateKey {
                let key = try Secp256k1.add(tweak: il, to: privateKey)
                return ExtendedKey(
                    depth: depth &+ 1, parentFingerprint: fingerprint, childNumber: index, chainCode: childChain,
                    privateKey: key, publicKey: try Secp256k1.publicKey(of: key), version: version)
            }
            return ExtendedKey(
                depth: depth &+ 1, parentFingerprint: fingerprint, childNumber: index, chainCode: childChain,
                privateKey: nil, publicKey: try publicKey.adding(tweak: il), version: version)
        } catch {
            throw .invalidChild(path: pathForErrors())
        }
    }

    /// Follows `steps` from this key; `base` is this key's own path, for error messages.
    public func derive(_ steps: [UInt32], base: DerivationPath = DerivationPath()) throws(DerivationError) -> ExtendedKey {
        var key = self
        var path = base
        for step in steps {
            path = path.appending(step)
            key = try key.child(step, pathForErrors: path.description)
        }
        return key
    }

    /// The watch-only form of this key.
    public var neutered: ExtendedKey {
        ExtendedKey(
            depth: depth, parentFingerprint: parentFingerprint, childNumber: childNumber, chainCode: chainCode,
            privateKey: nil, publicKey: publicKey, version: version)
    }

    /// Base58Check text with the given version (default: the one it was read with).
    public func serialized(version: ExtendedKeyVersion? = nil, asPrivate: Bool? = nil) -> String {
        let v = version ?? self.version
        let priv = asPrivate ?? isPrivate
        precondition(!priv || isPrivate, "a public key cannot be written as a private one")
        let number = priv ? v.privateVersion : v.publicVersion
        var raw = [
            UInt8(number >> 24), UInt8(truncatingIfNeeded: number >> 16), UInt8(truncatingIfNeeded: number >> 8),
            UInt8(truncatingIfNeeded: number),
        ]
        raw.append(depth)
        raw += parentFingerprint
        raw += [
            UInt8(childNumber >> 24), UInt8(truncatingIfNeeded: childNumber >> 16), UInt8(truncatingIfNeeded: childNumber >> 8),
            UInt8(truncatingIfNeeded: childNumber),
        ]
        raw += chainCode
        if priv, let privateKey { raw.append(0); raw += privateKey.bytes } else { raw += publicKey.compressed }
        defer { SecureBytes.wipe(&raw) }
        return Base58.encodeCheck(raw)
    }

    /// Reads an extended key with every check of BIP32 test vector 5.
    public init(parsing text: String) throws(DerivationError) {
        var raw: [UInt8]
        do { raw = try Base58.decodeCheck(text) } catch {
            throw .invalidExtendedKey(error == .badChecksum ? "checksum mismatch" : "not Base58Check")
        }
        defer { SecureBytes.wipe(&raw) }
        guard raw.count == 78 else { throw .invalidExtendedKey("payload is \(raw.count) bytes, not 78") }
        let number = raw[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let version = ExtendedKeyVersion.all.first(where: { $0.publicVersion == number || $0.privateVersion == number }) else {
            throw .unknownVersion(Hex.encode(raw[0..<4]))
        }
        let isPrivate = number == version.privateVersion
        let depth = raw[4]
        let parent = Array(raw[5..<9])
        let child = raw[9..<13].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if depth == 0 {
            guard parent == [0, 0, 0, 0] else { throw .invalidExtendedKey("depth 0 with a non-zero parent fingerprint") }
            guard child == 0 else { throw .invalidExtendedKey("depth 0 with a non-zero child number") }
        }
        let keyData = Array(raw[45..<78])
        if isPrivate {
            guard keyData[0] == 0 else { throw .invalidExtendedKey("private key data must start with 0x00") }
            let key = SecureBytes(keyData.dropFirst())
            guard Secp256k1.isValidPrivateKey(key), let pub = try? Secp256k1.publicKey(of: key) else {
                throw .invalidExtendedKey("private key not in 1..n-1")
            }
            self.init(
                depth: depth, parentFingerprint: parent, childNumber: child, chainCode: Array(raw[13..<45]),
                privateKey: key, publicKey: pub, version: version)
        } else {
            guard keyData[0] == 2 || keyData[0] == 3 else { throw .invalidExtendedKey("public key must start with 0x02 or 0x03") }
            guard let pub = try? Secp256k1.PublicKey(parsing: keyData) else { throw .invalidExtendedKey("public key is not on the curve") }
            self.init(
                depth: depth, parentFingerprint: parent, childNumber: child, chainCode: Array(raw[13..<45]),
                privateKey: nil, publicKey: pub, version: version)
        }
    }
}
