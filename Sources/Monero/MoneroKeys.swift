import WalletCore
import WalletKeys
import WalletCrypto

/// Monero address prefixes per network.
public struct MoneroNetwork: Sendable, Equatable {
    public let name: String
    public let standard: UInt64
    public let integrated: UInt64
    public let subaddress: UInt64

    public static let mainnet = MoneroNetwork(name: "mainnet", standard: 18, integrated: 19, subaddress: 42)
    public static let testnet = MoneroNetwork(name: "testnet", standard: 53, integrated: 54, subaddress: 63)
    public static let stagenet = MoneroNetwork(name: "stagenet", standard: 24, integrated: 25, subaddress: 36)
    public static let all = [mainnet, testnet, stagenet]
}

/// A Monero address read back: its network, kind, public keys and (integrated) payment id,
/// with the checksum checked.
public struct MoneroAddress: Sendable, Equatable {
    public enum Kind: String, Sendable { case standard, integrated, subaddress }
    public let network: MoneroNetwork
    public let kind: Kind
    public let spendPublic: [UInt8]
    public let viewPublic: [UInt8]
    public let paymentID: [UInt8]?

    public init(parsing text: String) throws(DerivationError) {
        guard text.utf8.count <= 128 else { throw .invalidMoneroKey("the address is too long") }
        let raw: [UInt8]
        do { raw = try MoneroBase58.decode(text) } catch { throw .invalidMoneroKey("the address is not Monero Base58: \(error.message)") }
        guard raw.count > 4 else { throw .invalidMoneroKey("the address is too short") }
        let body = Array(raw.dropLast(4))
        guard Array(Keccak256.hash(body).prefix(4)) == Array(raw.suffix(4)) else {
            throw .invalidMoneroKey("the address checksum does not match (a character is wrong)")
        }
        var prefix: UInt64 = 0, used = 0
        for (i, byte) in body.prefix(10).enumerated() {
            prefix |= UInt64(byte & 0x7F) << (7 * UInt64(i))
            if byte & 0x80 == 0 { used = i + 1; break }
        }
        guard used > 0 else { throw .invalidMoneroKey("the address has no valid prefix") }
        var found: (MoneroNetwork, Kind)?
        for network in MoneroNetwork.all {
            if prefix == network.standard { found = (network, .standard) }
            if prefix == network.integrated { found = (network, .integrated) }
            if prefix == network.subaddress { found = (network, .subaddress) }
        }
        guard let (network, kind) = found else { throw .invalidMoneroKey("the address prefix \(prefix) is not a Monero address kind") }
        let keys = Array(body[used...])
        guard keys.count == (kind == .integrated ? 72 : 64) else {
            throw .invalidMoneroKey("the \(kind.rawValue) address has the wrong length")
        }
        self.network = network
        self.kind = kind
        self.spendPublic = Array(keys[0..<32])
        self.viewPublic = Array(keys[32..<64])
        self.paymentID = kind == .integrated ? Array(keys[64..<72]) : nil
    }
}

/// A Monero wallet's keys: full (spend secret known) or view-only (view secret and public
/// spend key). Subaddresses and integrated addresses follow Monero 0.18's wallet.
public struct MoneroKeys: Sendable {
    /// nil for a view-only wallet.
    public let spendSecret: SecureBytes?
    public let viewSecret: SecureBytes
    public let spendPublic: [UInt8]
    public let viewPublic: [UInt8]

    /// From the 32-byte seed of a 25-word phrase: spend = sc_reduce32(seed),
    /// view = sc_reduce32(Keccak-256(spend)).
    public init(seed: SecureBytes) throws(DerivationError) {
        guard seed.count == 32 else { throw .invalidMoneroKey("a Monero seed is 32 bytes") }
        try self.init(spendSecret: Ed25519Scalar.reduce32(seed))
    }

    public init(spendSecret: SecureBytes) throws(DerivationError) {
        guard spendSecret.count == 32, Ed25519Scalar.isCanonical(spendSecret) else {
            throw .invalidMoneroKey("the private spend key is not a reduced scalar")
        }
        let view = spendSecret.withUnsafeBytes { Ed25519.hashToScalar(Array($0)) }
        do {
            self.spendSecret = spendSecret
            self.viewSecret = view
            self.spendPublic = try Ed25519.basePointMultiple(spendSecret)
            self.viewPublic = try Ed25519.basePointMultiple(view)
        } catch { throw .invalidMoneroKey("the private spend key is zero") }
    }

    /// View-only: the private view key and the public spend key.
    public init(viewSecret: SecureBytes, spendPublic: [UInt8]) throws(DerivationError) {
        guard viewSecret.count == 32, Ed25519Scalar.isCanonical(viewSecret) else {
            throw .invalidMoneroKey("the private view key is not a reduced scalar")
        }
        guard Ed25519.isValidPoint(spendPublic) else { throw .invalidMoneroKey("the public spend key is not a valid point") }
        self.spendSecret = nil
        self.viewSecret = viewSecret
        self.spendPublic = spendPublic
        do { self.viewPublic = try Ed25519.basePointMultiple(viewSecret) } catch {
            throw .invalidMoneroKey("the private view key is zero")
        }
    }

    /// View-only from the private view key and the wallet's primary (or integrated) address:
    /// the address must be for `network` (when given), not a subaddress, and its public view
    /// key must be this view key's; anything else would scan for the wrong wallet.
    public init(viewSecret: SecureBytes, address: MoneroAddress, network: MoneroNetwork?) throws(DerivationError) {
        if let network, address.network != network {
            throw .invalidMoneroKey("the address is a \(address.network.name) address, not \(network.name)")
        }
        guard address.kind != .subaddress else {
            throw .invalidMoneroKey(
                "the address is a subaddress; a view-only wallet needs its primary address (the one starting the wallet, major 0 minor 0)")
        }
        try self.init(viewSecret: viewSecret, spendPublic: address.spendPublic)
        guard viewPublic == address.viewPublic else {
            throw .invalidMoneroKey("the private view key does not belong to this address (its public view key differs)")
        }
    }

    public func primaryAddress(_ network: MoneroNetwork) -> String {
        Self.address(prefix: network.standard, spend: spendPublic, view: viewPublic)
    }

    /// The integrated address of the primary address with an 8-byte payment id.
    public func integratedAddress(_ network: MoneroNetwork, paymentID: [UInt8]) throws(DerivationError) -> String {
        guard paymentID.count == 8 else { throw .invalidMoneroKey("a payment id is 8 bytes") }
        return Self.address(prefix: network.integrated, spend: spendPublic, view: viewPublic, extra: paymentID)
    }

    /// Subaddress (major, minor): m = Hs("SubAddr\0" ‖ a ‖ major ‖ minor), D = B + m·G,
    /// C = a·D. (0, 0) is the primary address.
    public func subaddress(
        major: UInt32, minor: UInt32, _ network: MoneroNetwork
    ) throws(DerivationError) -> (address: String, spendPublic: [UInt8], viewPublic: [UInt8]) {
        if major == 0 && minor == 0 { return (primaryAddress(network), spendPublic, viewPublic) }
        let d = try subaddressSpendKey(major: major, minor: minor)
        do {
            let c = try Ed25519.multiply(viewSecret, d)
            return (Self.address(prefix: network.subaddress, spend: d, view: c), d, c)
        } catch {
            throw .invalidMoneroKey("subaddress (\(major),\(minor)) is not a valid point")
        }
    }

    /// m = Hs("SubAddr\0" ‖ a ‖ major ‖ minor), the scalar that makes subaddress (major, minor)
    /// from the primary keys (its spend secret is b + m).
    public func subaddressScalar(major: UInt32, minor: UInt32) -> SecureBytes {
        var data = Array("SubAddr".utf8) + [0]
        data += viewSecret.bytes
        for v in [major, minor] { data += (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
        defer { SecureBytes.wipe(&data) }
        return Ed25519.hashToScalar(data)
    }

    /// Only the spend key D of subaddress (major, minor): what a scanner's lookup table holds.
    /// It skips C and the address text, which a table does not need.
    public func subaddressSpendKey(major: UInt32, minor: UInt32) throws(DerivationError) -> [UInt8] {
        if major == 0 && minor == 0 { return spendPublic }
        do { return try Ed25519.add(spendPublic, try Ed25519.basePointMultiple(subaddressScalar(major: major, minor: minor))) } catch {
            throw .invalidMoneroKey("subaddress (\(major),\(minor)) is not a valid point")
        }
    }

    static func address(prefix: UInt64, spend: [UInt8], view: [UInt8], extra: [UInt8] = []) -> String {
        var data = varintBytes(prefix) + spend + view + extra
        data += Keccak256.hash(data).prefix(4)
        return MoneroBase58.encode(data)
    }
}

extension MoneroKeys: ChainKey {
    public var notSecp256k1: String { "Monero keys do not sign secp256k1 hashes" }
}
