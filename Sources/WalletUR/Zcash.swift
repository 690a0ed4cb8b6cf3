import WalletCore

/// Keystone's Zcash registry types (keystone-sdk-rust `libs/ur-registry/src/zcash/`), which
/// Zashi/Zodl and zcash-devtool read and write to pair with an offline signer and pass it PCZTs.
public enum ZcashUR {
    public static let pcztType = "zcash-pczt"
    public static let accountsType = "zcash-accounts"
    static let pcztTag: UInt64 = 49204, accountsTag: UInt64 = 49201, unifiedFullViewingKeyTag: UInt64 = 49203

    /// `zcash-pczt`: `{1: the PCZT's bytes}`.
    public static func pczt(_ bytes: [UInt8]) throws(URError) -> UR {
        try UR(type: pcztType, cbor: CBOR.map([(.unsigned(1), .bytes(bytes))]).encoded)
    }

    /// The PCZT a `zcash-pczt` carries (its map tagged 49204 or not).
    public static func pczt(from ur: UR) throws(URError) -> [UInt8] {
        guard ur.type == pcztType else { throw .unsupported("a ur:\(ur.type) is not a ur:\(pcztType)") }
        let fields = try CBOR(decoding: ur.cbor).untag(pcztTag, what: "a zcash-pczt", untaggedOK: true).fields([1], what: "a zcash-pczt")
        guard case .bytes(let bytes)? = fields[1] else { throw .unsupported("a zcash-pczt without its PCZT (key 1, bytes)") }
        return bytes
    }

    /// One account of `zcash-accounts`: its unified full viewing key, ZIP 32 account index and
    /// an optional name.
    public struct Account: Equatable, Sendable {
        public var ufvk: String
        public var index: UInt32
        public var name: String?

        public init(ufvk: String, index: UInt32, name: String? = nil) {
            (self.ufvk, self.index, self.name) = (ufvk, index, name)
        }
    }

    /// `zcash-accounts`: `{1: seed fingerprint, 2: [#6.49203 {1: ufvk, 2: index, ?3: name}]}`:
    /// what a wallet reads to pair with a signer. Key 3 (a device version) is read but not
    /// written, as Keystone's encoder does, for the wallets that expect two keys.
    public static func accounts(seedFingerprint: [UInt8], _ accounts: [Account]) throws(URError) -> UR {
        guard seedFingerprint.count == 32 else { throw .unsupported("a ZIP 32 seed fingerprint is 32 bytes") }
        let items: [CBOR] = accounts.map {
            var pairs: [(CBOR, CBOR)] = [(.unsigned(1), .text($0.ufvk)), (.unsigned(2), .unsigned(UInt64($0.index)))]
            if let name = $0.name { pairs.append((.unsigned(3), .text(name))) }
            return .tagged(unifiedFullViewingKeyTag, .map(pairs))
        }
        return try UR(type: accountsType, cbor: CBOR.map([(.unsigned(1), .bytes(seedFingerprint)), (.unsigned(2), .array(items))]).encoded)
    }

    /// The seed fingerprint, accounts and device version of a `zcash-accounts`; other keys are
    /// skipped, as Keystone's reader skips them (pairing data, nothing signed).
    public static func accounts(from ur: UR) throws(URError) -> (seedFingerprint: [UInt8], accounts: [Account], deviceVersion: String?) {
        guard ur.type == accountsType else { throw .unsupported("a ur:\(ur.type) is not a ur:\(accountsType)") }
        guard case .map(let pairs) = try CBOR(decoding: ur.cbor).untag(accountsTag, what: "zcash-accounts", untaggedOK: true) else {
            throw .unsupported("zcash-accounts is not a map")
        }
        var fields = [UInt64: CBOR]()
        for case (.unsigned(let key), let value) in pairs { fields[key] = value }
        guard case .bytes(let fingerprint)? = fields[1] else { throw .unsupported("zcash-accounts without its seed fingerprint (key 1)") }
        guard case .array(let items)? = fields[2] else { throw .unsupported("zcash-accounts without its accounts (key 2)") }
        var accounts = [Account]()
        for item in items {
            let account = try item.untag(unifiedFullViewingKeyTag, what: "a zcash-accounts account").fields(
                [1, 2, 3], what: "a zcash-accounts account")
            guard case .text(let ufvk)? = account[1], let index = account[2]?.uint32 else {
                throw .unsupported("a zcash-accounts account without its UFVK (1) and index (2)")
            }
            var name: String?
            if let value = account[3] {
                guard case .text(let text) = value else { throw .unsupported("a zcash-accounts account name that is not text") }
                name = text
            }
            accounts.append(Account(ufvk: ufvk, index: index, name: name))
        }
        var version: String?
        if let value = fields[3] {
            guard case .text(let text) = value else { throw .unsupported("a zcash-accounts device version that is not text") }
            version = text
        }
        return (fingerprint, accounts, version)
    }
}
