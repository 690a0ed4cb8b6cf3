import WalletCore
import WalletKeyStore
import WalletKeys
import Zcash
import WalletRecords
import WalletCrypto

extension ZcashKeyMaterial {
    /// The network a viewing key is for, from its prefix.
    public static func network(of text: String) -> ZcashNetwork {
        ["uviewtest", "uivktest", "zxviewtestsapling"].contains { text.hasPrefix($0) } ? .test : .main
    }
}

/// A Zcash account's keys, as far as a record gives them. From a phrase or seed: everything,
/// spending keys included. From a unified full viewing key (or a zxviews key): the Sapling
/// and Orchard viewing keys it has (at least one), change included, and the transparent
/// account's public key. From a unified incoming viewing key: receive addresses only.
public struct ZcashAccountKeys: Sendable {
    public let network: ZcashNetwork
    /// ZIP 32's fingerprint of the seed the keys came from (nil from a viewing key): what a
    /// wallet pairs with a signer by, and a PCZT names the seed by.
    public let seedFingerprint: [UInt8]?
    /// The account number, when the keys came from a seed (a viewing key does not say).
    public let account: UInt32?
    public let spending: SaplingExtendedSpendingKey?
    public let extendedViewing: SaplingExtendedFullViewingKey?
    public let fullViewing: SaplingFullViewingKey?
    /// nil for an Orchard-only unified viewing key.
    public let incoming: SaplingIncomingViewingKey?
    /// m/44'/coin'/account' (private from a seed, public from a UFVK).
    public let transparentAccount: ExtendedKey?
    /// m/44'/coin'/account'/0, the receive chain (all a UIVK carries).
    public let transparentReceive: ExtendedKey?
    /// The Orchard keys: from a seed, or a UFVK's (full) or UIVK's (incoming) Orchard item;
    /// nil when the viewing key has none (a Sapling-era key).
    public let orchardFullViewing: OrchardFullViewingKey?
    public let orchardIncoming: OrchardIncomingViewingKey?

    /// Record fields that carry Zcash keys.
    public static let keyFields = ["ufvk", "uivk", "extended_full_viewing_key"]

    /// Whether the record holds a Zcash viewing key (so the run is a Zcash one).
    public static func hasViewingKey(_ record: JSONObject) -> Bool { keyFields.contains { record[$0] != nil } }

    /// The ZIP-32 path of the account, m/32'/coin'/account'.
    public static func path(_ network: ZcashNetwork, account: UInt32) -> String { "m/32'/\(network.coinType)'/\(account)'" }

    /// The transparent P2PKH address of a public key on `network`.
    public static func transparentAddress(_ key: Secp256k1.PublicKey, _ network: ZcashNetwork) -> String {
        Base58.encodeCheck((network == .main ? [0x1C, 0xB8] : [0x1D, 0x25]) + Hash.hash160(key.compressed))
    }

    /// A seed both ZIP-32 (32 to 252 bytes) and BIP32 for the transparent keys (16 to 64) take:
    /// 32 to 64 bytes (a BIP39 seed is 64). The key store checks it before it stores a seed.
    public static func checkSeed(_ seed: SecureBytes) throws {
        guard (32...64).contains(seed.count) else {
            throw DerivationError.unsupported("a Zcash seed is 32 to 64 bytes (a BIP39 seed is 64), this one is \(seed.count)")
        }
    }

    /// The record field that picks ZIP 2005's rivk rule for an account from a seed: `true`
    /// for a quantum-secure (`use_qsk`) account; absent or `false` for every other wallet.
    public static let useQskField = "use_qsk"

    /// The rivk rule a record asks for (`use_qsk`), the standard one when it says nothing. A
    /// viewing key already holds its rivk, whichever rule made it: `use_qsk: true` beside one
    /// is refused rather than ignored.
    public static func rivkRule(_ record: JSONObject) throws -> OrchardRivkRule {
        let rule = OrchardRivkRule(useQsk: try record.optionalBool(useQskField) ?? false)
        if rule == .quantumSecure, hasViewingKey(record) { throw useQskWithViewingKey }
        return rule
    }

    public static let useQskWithViewingKey = DerivationError.unsupported(
        "use_qsk chooses how a seed gives the Orchard keys; a viewing key already holds them, whichever rule made it (drop use_qsk or --use-qsk)"
    )

    /// The Orchard keys follow `orchardRivk` (ZIP 2005's `use_qsk`); Sapling and transparent
    /// keys have no such choice.
    public init(seed: SecureBytes, network: ZcashNetwork, account: UInt32, orchardRivk: OrchardRivkRule = .standard) throws {
        try Self.checkSeed(seed)
        let bytes = seed.bytes
        seedFingerprint = zip32SeedFingerprint(bytes)
        spending = SaplingExtendedSpendingKey.account(seed: bytes, network: network, account: account)
        extendedViewing = spending!.extendedFullViewingKey
        fullViewing = extendedViewing!.key
        incoming = fullViewing!.incomingViewingKey
        let t = try ExtendedKey.master(seed: seed).derive([0x8000_002C, 0x8000_0000 | network.coinType, 0x8000_0000 | account])
        transparentAccount = t
        transparentReceive = try t.derive([0])
        let orchard = try OrchardExtendedSpendingKey.account(seed: bytes, coinType: network.coinType, account: account).fullViewingKey(
            rivkRule: orchardRivk)
        orchardFullViewing = orchard
        orchardIncoming = orchard.incomingViewingKey(change: false)
        self.network = network
        self.account = account
    }

    /// From a record's "ufvk", "uivk" or "extended_full_viewing_key".
    public init(viewingKeyOf record: JSONObject, network: ZcashNetwork) throws {
        self.network = network
        account = nil
        spending = nil
        seedFingerprint = nil
        if let text = try record.optionalString("ufvk") {
            let items = try UnifiedEncoding.decode(text, kind: .fullViewingKey, network: network)
            let fvk = try items.first(where: { $0.typecode == UnifiedEncoding.Typecode.sapling }).map { item throws in
                guard let fvk = SaplingFullViewingKey(bytes: item.value) else {
                    throw ZcashKeyError.invalidEncoding(
                        "the UFVK's Sapling item is not a valid full viewing key (ak and nk must be points of the prime-order subgroup, ak not the identity, and their ivk nonzero)"
                    )
                }
                return fvk
            }
            extendedViewing = nil
            fullViewing = fvk
            incoming = fvk?.incomingViewingKey
            transparentAccount = try items.first { $0.typecode == UnifiedEncoding.Typecode.p2pkh }.map {
                try Self.publicNode($0.value, depth: 3)
            }
            transparentReceive = try transparentAccount?.derive([0])
            orchardFullViewing = try items.first { $0.typecode == UnifiedEncoding.Typecode.orchard }.map {
                try OrchardFullViewingKey(bytes: $0.value)
            }
            orchardIncoming = orchardFullViewing?.incomingViewingKey(change: false)
            guard fvk != nil || orchardFullViewing != nil else { throw ZcashKeyError.missingShieldedItem("the unified full viewing key") }
        } else if let text = try record.optionalString("uivk") {
            let items = try UnifiedEncoding.decode(text, kind: .incomingViewingKey, network: network)
            let ivk = try items.first(where: { $0.typecode == UnifiedEncoding.Typecode.sapling }).map { item throws in
                guard let ivk = SaplingIncomingViewingKey(bytes: item.value) else {
                    let zero = item.value.count == 64 && item.value[32...].allSatisfy { $0 == 0 }
                    throw ZcashKeyError.invalidEncoding(
                        zero
                            ? "the UIVK's Sapling ivk is zero: its every address would be the identity point, readable by anyone and spendable by no one"
                            : "the UIVK's Sapling item is not a valid incoming viewing key (its ivk must be a scalar below the group order)"
                    )
                }
                return ivk
            }
            extendedViewing = nil
            fullViewing = nil
            incoming = ivk
            transparentAccount = nil
            transparentReceive = try items.first { $0.typecode == UnifiedEncoding.Typecode.p2pkh }.map {
                try Self.publicNode($0.value, depth: 4)
            }
            orchardFullViewing = nil
            orchardIncoming = try items.first { $0.typecode == UnifiedEncoding.Typecode.orchard }.map { item throws in
                guard let key = OrchardIncomingViewingKey(bytes: item.value) else {
                    throw ZcashKeyError.invalidEncoding(
                        "the UIVK's Orchard item is not an incoming viewing key (dk and a nonzero ivk below p)")
                }
                return key
            }
            guard ivk != nil || orchardIncoming != nil else { throw ZcashKeyError.missingShieldedItem("the unified incoming viewing key") }
        } else {
            let xfvk = try SaplingExtendedFullViewingKey(
                encoded: record.string("extended_full_viewing_key", expected: "a zxviews key"), network: network)
            extendedViewing = xfvk
            fullViewing = xfvk.key
            incoming = xfvk.key.incomingViewingKey
            transparentAccount = nil
            transparentReceive = nil
            orchardFullViewing = nil
            orchardIncoming = nil
        }
    }

    /// From a key-store entry's material; a viewing key keeps its own network.
    public init(material: ZcashKeyMaterial, network: ZcashNetwork, account: UInt32, orchardRivk: OrchardRivkRule = .standard) throws {
        switch material {
        case .seed(let seed): try self.init(seed: seed, network: network, account: account, orchardRivk: orchardRivk)
        case .viewingKey(let field, let text):
            try self.init(viewingKeyOf: JSONObject([field: .string(text)]), network: ZcashKeyMaterial.network(of: text))
        }
    }

    /// A transparent item of a unified viewing key: chain code ‖ compressed public key.
    private static func publicNode(_ item: [UInt8], depth: UInt8) throws -> ExtendedKey {
        guard item.count == 65, let key = try? Secp256k1.PublicKey(parsing: Array(item[32..<65])) else {
            throw ZcashKeyError.invalidEncoding("the transparent item is not a chain code and public key")
        }
        return ExtendedKey(
            depth: depth, parentFingerprint: [0, 0, 0, 0], childNumber: 0, chainCode: Array(item[0..<32]),
            privateKey: nil, publicKey: key, version: .xpub)
    }

    /// The unified full viewing key (Sapling, and P2PKH when the transparent account is known).
    public var unifiedFullViewingKey: String? {
        guard fullViewing != nil || orchardFullViewing != nil else { return nil }
        var items = [(typecode: UInt64, value: [UInt8])]()
        if let s = fullViewing { items.append((UnifiedEncoding.Typecode.sapling, s.bytes)) }
        if let t = transparentAccount { items.append((UnifiedEncoding.Typecode.p2pkh, t.chainCode + t.publicKey.compressed)) }
        if let o = orchardFullViewing { items.append((UnifiedEncoding.Typecode.orchard, o.bytes)) }
        return UnifiedEncoding.encode(items, kind: .fullViewingKey, network: network)
    }

    public var unifiedIncomingViewingKey: String {
        var items = [(typecode: UInt64, value: [UInt8])]()
        if let s = incoming { items.append((UnifiedEncoding.Typecode.sapling, s.bytes)) }
        if let t = transparentReceive { items.append((UnifiedEncoding.Typecode.p2pkh, t.chainCode + t.publicKey.compressed)) }
        if let o = orchardIncoming { items.append((UnifiedEncoding.Typecode.orchard, o.bytes)) }
        return UnifiedEncoding.encode(items, kind: .incomingViewingKey, network: network)
    }

    /// The receive address at the first valid Sapling diversifier index at or after `start`:
    /// its zs1 form, and the unified address with, at the same index, an Orchard receiver
    /// when the Orchard key is known and a transparent one when the receive chain is known
    /// and the index is below 2^31 (ZIP-316; the index rule of zcash-test-vectors and
    /// librustzcash, so the Orchard receiver is not always Orchard's index 0). Without a
    /// Sapling key (an Orchard-only viewing key) the index is `start` itself and there is no zs1.
    public func address(
        from start: DiversifierIndex
    ) throws -> (index: DiversifierIndex, sapling: String?, unified: String, transparent: String?) {
        let sapling = try incoming.map { try $0.address(from: start) }
        let j = sapling?.index ?? start
        var items = [(typecode: UInt64, value: [UInt8])]()
        if let address = sapling?.address { items.append((UnifiedEncoding.Typecode.sapling, address.bytes)) }
        if let o = orchardIncoming { items.append((UnifiedEncoding.Typecode.orchard, o.address(at: j).bytes)) }
        var transparent: String?
        if let t = transparentReceive, j.high == 0, j.low < 0x8000_0000 {
            let key = try t.derive([UInt32(j.low)])
            items.append((UnifiedEncoding.Typecode.p2pkh, Hash.hash160(key.publicKey.compressed)))
            transparent = Self.transparentAddress(key.publicKey, network)
        }
        return (j, sapling?.address.encoded(network), UnifiedEncoding.encode(items, kind: .address, network: network), transparent)
    }

    /// The Orchard address at index j (every index is valid), as a unified address with the
    /// Orchard receiver alone (Orchard has no encoding of its own); `change`: the internal
    /// key's, which needs the full viewing key.
    public func orchardAddress(at j: DiversifierIndex, change: Bool) throws -> (receiver: [UInt8], unified: String) {
        let key: OrchardIncomingViewingKey?
        if change {
            guard let fvk = orchardFullViewing else {
                throw DerivationError.unsupported("an incoming viewing key has no change addresses; give a full viewing key or the seed")
            }
            key = fvk.incomingViewingKey(change: true)
        } else {
            key = orchardIncoming
        }
        guard let key else { throw ZcashKeyError.missingOrchardItem }
        let receiver = key.address(at: j).bytes
        return (receiver, UnifiedEncoding.orchardAddress(receiver, network: network))
    }

    /// The internal (change) address: the first valid index of the internal key. Needs a full
    /// viewing key.
    public func changeAddress() throws -> (index: DiversifierIndex, sapling: String) {
        guard incoming != nil else { throw ZcashKeyError.missingSaplingItem("the viewing key") }
        guard let fullViewing else {
            throw DerivationError.unsupported("an incoming viewing key has no change addresses; give a full viewing key or the seed")
        }
        let (j, address) = fullViewing.internal.incomingViewingKey.defaultAddress()
        return (j, address.encoded(network))
    }
}
