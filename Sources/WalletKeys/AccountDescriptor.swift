import WalletCore

/// A watch-only account as an output descriptor gives it (BIP380-386): one script kind, one
/// extended public key with its origin when written, and the chains below it, e.g.
/// `wpkh([d34db33f/84h/0h/0h]xpub…/<0;1>/*)`. Only single-key account descriptors are
/// taken: `pkh`, `sh(wpkh)`, `wpkh`, `tr` with a key path ending in `/0/*`, `/1/*` or `/<0;1>/*`.
public struct AccountDescriptor: Sendable {
    public let script: ScriptKind
    /// The account's key: the xpub with every step written after it but the chain and `*`.
    public let key: ExtendedKey
    /// The master fingerprint and path of `key`, when the descriptor says them.
    public let origin: (fingerprint: [UInt8], path: DerivationPath)?
    /// The chains below `key` it covers: [0], [1] or [0, 1].
    public let chains: [UInt32]

    public init(script: ScriptKind, key: ExtendedKey, origin: (fingerprint: [UInt8], path: DerivationPath)?, chains: [UInt32]) {
        (self.script, self.key, self.origin, self.chains) = (script, key, origin, chains)
    }

    /// Parses one descriptor; a `#checksum` is checked when present.
    public init(parsing given: String) throws(DerivationError) {
        func refuse(_ why: String) -> DerivationError { .unsupported("descriptor \(Self.shown(given)): \(why)") }
        guard let text = Descriptor.strippingChecksum(given) else { throw refuse("its checksum is wrong (a character was mistyped)") }
        let wrappers: [(prefix: String, suffix: String, kind: ScriptKind)] = [
            ("sh(wpkh(", "))", .p2shP2wpkh), ("pkh(", ")", .p2pkh), ("wpkh(", ")", .p2wpkh), ("tr(", ")", .p2tr),
        ]
        guard let wrapper = wrappers.first(where: { text.hasPrefix($0.prefix) && text.hasSuffix($0.suffix) }),
            text.count > wrapper.prefix.count + wrapper.suffix.count
        else {
            throw refuse("only pkh(KEY), sh(wpkh(KEY)), wpkh(KEY) and tr(KEY) are watched")
        }
        var keyText = Substring(text.dropFirst(wrapper.prefix.count).dropLast(wrapper.suffix.count))
        guard !keyText.contains(","), !keyText.contains("(") else { throw refuse("one key is watched; multisig and script trees are not") }
        var origin: (fingerprint: [UInt8], path: DerivationPath)?
        do {
            if let found = try Descriptor.origin(keyText) { (origin, keyText) = ((found.fingerprint, found.path), found.rest) }
        } catch {
            switch error {
            case .noClose: throw refuse("its key origin has no ]")
            case .fingerprint: throw refuse("a key origin starts with the 4-byte master fingerprint in hex")
            case .path(let e): throw e
            }
        }
        var steps = keyText.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard steps.count >= 3, steps.last == "*" else {
            throw refuse("the key must end in /0/*, /1/* or /<0;1>/* (ranged, for a gap-limit scan)")
        }
        let chains: [UInt32] =
            switch steps[steps.count - 2] {
            case "0": [0]
            case "1": [1]
            case "<0;1>": [0, 1]
            default: throw refuse("the key must end in /0/*, /1/* or /<0;1>/* (receive, change, or both)")
            }
        let xpub = steps.removeFirst()
        var key = try ExtendedKey(parsing: xpub)
        guard !key.isPrivate else { throw refuse("a watch-only scan takes an extended public key, not a private one") }
        var extra = [UInt32]()
        for step in steps.dropLast(2) {
            let index = try DerivationPath.index(step)
            guard index < DerivationPath.hardened else { throw .hardenedFromPublicKey(path: "the step \(step) after the xpub") }
            key = try key.child(index)
            extra.append(index)
        }
        if let written = origin {
            let path = written.path.appending(extra)
            guard path.components.count == Int(key.depth) else {
                throw refuse("its origin and steps say depth \(path.components.count), the key is at depth \(key.depth)")
            }
            origin = (written.fingerprint, path)
        }
        if wrapper.kind == .p2tr, key.version.publicPrefix != "xpub", key.version.publicPrefix != "tpub" {
            throw refuse("tr() takes an xpub or tpub (BIP86 has no SLIP-132 prefix)")
        }
        self.init(script: wrapper.kind, key: key, origin: origin, chains: chains)
    }

    /// The descriptor's start, for errors: never the whole key.
    static func shown(_ text: String) -> String {
        text.count <= 24 ? "'\(text)'" : "'\(text.prefix(20))…'"
    }
}
