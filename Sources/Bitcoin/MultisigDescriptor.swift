import WalletCore
import WalletKeys
import WalletCrypto

/// A multisig wallet as its output descriptor says (BIP380-383): `wsh(sortedmulti(m,K…))`,
/// `wsh(multi(…))` or their `sh(wsh(…))` forms, each key `[fingerprint/path]xpub` followed by
/// `/<0;1>/*`, `/0/*` or `/1/*`. A signer told its wallet knows the wallet's own change: an
/// output the descriptor derives at a change index (chain 1) with exactly its keys and
/// threshold, checked by building the script again.
public struct MultisigDescriptor: Sendable {
    public struct Cosigner: Sendable {
        public let fingerprint: [UInt8]
        public let path: DerivationPath
        public let key: ExtendedKey
        public let chains: [UInt32]
    }

    public let text: String
    public let threshold: Int
    public let sorted: Bool
    /// sh(wsh(…)) rather than wsh(…).
    public let nested: Bool
    public let cosigners: [Cosigner]

    /// Parses one descriptor (its `#checksum` checked when present).
    public init(parsing given: String) throws(DerivationError) {
        func refuse(_ why: String) -> DerivationError {
            .unsupported("descriptor '\(given.prefix(24))…': \(why)")
        }
        guard let body = Descriptor.strippingChecksum(given) else { throw refuse("its checksum is wrong (a character was mistyped)") }
        var nested = false
        var inner = Substring(body)
        if inner.hasPrefix("sh(wsh("), inner.hasSuffix("))") {
            nested = true
            inner = inner.dropFirst(7).dropLast(2)
        } else if inner.hasPrefix("wsh("), inner.hasSuffix(")") {
            inner = inner.dropFirst(4).dropLast(1)
        } else {
            throw refuse("a multisig wallet is wsh(sortedmulti(…)), wsh(multi(…)) or sh(wsh(…)) of them")
        }
        let sorted: Bool
        if inner.hasPrefix("sortedmulti("), inner.hasSuffix(")") {
            (sorted, inner) = (true, inner.dropFirst(12).dropLast(1))
        } else if inner.hasPrefix("multi("), inner.hasSuffix(")") {
            (sorted, inner) = (false, inner.dropFirst(6).dropLast(1))
        } else {
            throw refuse("a multisig wallet is wsh(sortedmulti(…)), wsh(multi(…)) or sh(wsh(…)) of them")
        }
        let parts = inner.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, let m = Int(parts[0]), m >= 1, m <= parts.count - 1, parts.count - 1 <= 20 else {
            throw refuse("it needs a threshold from 1 to the number of keys (at most 20), then the keys")
        }
        var cosigners = [Cosigner]()
        for text in parts.dropFirst() {
            let origin: (fingerprint: [UInt8], path: DerivationPath, rest: Substring)?
            do { origin = try Descriptor.origin(Substring(text)) } catch {
                switch error {
                case .noClose: origin = nil
                case .fingerprint: throw refuse("a key origin starts with a 4-byte fingerprint in hex")
                case .path(let e): throw e
                }
            }
            guard let (fingerprint, path, after) = origin else {
                throw refuse("each key needs its origin, [fingerprint/path]xpub…, to be matched with a PSBT's derivations")
            }
            let rest = after.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard rest.count == 3, rest[2] == "*" else { throw refuse("each key ends in /<0;1>/*, /0/* or /1/*") }
            let chains: [UInt32] =
                switch rest[1] {
                case "<0;1>": [0, 1];
                case "0": [0];
                case "1": [1];
                default: []
                }
            guard !chains.isEmpty else { throw refuse("each key ends in /<0;1>/*, /0/* or /1/*") }
            let key = try ExtendedKey(parsing: rest[0])
            guard !key.isPrivate else { throw refuse("a wallet's keys are extended public keys") }
            guard Int(key.depth) == path.components.count else {
                throw refuse("a key's origin says depth \(path.components.count), the key is at depth \(key.depth)")
            }
            cosigners.append(Cosigner(fingerprint: fingerprint, path: path, key: key, chains: chains))
        }
        guard Set(cosigners.map { $0.key.publicKey.compressed }).count == cosigners.count else { throw refuse("a key appears twice") }
        (text, threshold, self.sorted, self.nested, self.cosigners) = (body, m, sorted, nested, cosigners)
    }

    /// The scriptPubKey at (chain, index), and its witness script.
    public func script(chain: UInt32, index: UInt32) throws -> (scriptPubKey: [UInt8], witnessScript: [UInt8]) {
        var keys = try cosigners.map { try $0.key.child(chain).child(index).publicKey.compressed }
        if sorted { keys.sort { $0.lexicographicallyPrecedes($1) } }
        let pushes: [UInt8] = keys.flatMap { key -> [UInt8] in [0x21] + key }
        let witness: [UInt8] = [0x50 + UInt8(threshold)] + pushes + [0x50 + UInt8(keys.count), 0xAE]
        let program: [UInt8] = [0x00, 0x20] + Hash.sha256(witness)
        return (nested ? ScriptTemplate.p2sh(program) : program, witness)
    }

    /// Where a derivation (fingerprint, full path) lies in this wallet: the cosigner whose
    /// origin it extends by a chain and an index, and those two steps.
    public func place(fingerprint: [UInt8], path: [UInt32]) -> (cosigner: Int, chain: UInt32, index: UInt32)? {
        for (i, c) in cosigners.enumerated()
        where c.fingerprint == fingerprint && path.count == c.path.components.count + 2
            && Array(path.prefix(c.path.components.count)) == c.path.components
        {
            let chain = path[path.count - 2], index = path[path.count - 1]
            guard c.chains.contains(chain), index < DerivationPath.hardened else { return nil }
            return (i, chain, index)
        }
        return nil
    }
}
