import ArgumentParser
import WalletCard
import WalletCore
import WalletKeys
import WalletRecords
import WalletCrypto

/// --card and what it needs: the pairing, the reader, the PIN.
public struct CardKeyOptions: ParsableArguments {
    static let cardHelp = ArgumentHelp(
        "The key is on a Keycard (needs --pairing; the PIN comes from --credentials-file/-fd or a prompt).")
    @Flag(help: cardHelp) public var card = false

    @OptionGroup public var pairing: PairingOptions
    @OptionGroup public var readers: ReaderOptions
    @OptionGroup public var credentials: CredentialOptions

    public init() {}

    public func validate() throws {
        if !card && pairing.pairing != nil { throw ValidationError("--pairing goes with --card") }
    }

    /// The card with its secure channel open (no PIN), or nil without --card.
    public func channel(_ keyStore: KeyStoreOptions) throws -> Keycard? {
        guard card else { return nil }
        guard pairing.pairing != nil else { throw ValidationError("--card needs --pairing NAME (see card-info pair)") }
        return try pairing.open(readers, keyStore).keycard
    }

    /// The unlocked card, or nil without --card.
    public func keys(_ keyStore: KeyStoreOptions) throws -> CardKeys? {
        guard card else { return nil }
        guard pairing.pairing != nil else { throw ValidationError("--card needs --pairing NAME (see card-info pair)") }
        return CardKeys(try pairing.unlocked(readers, keyStore, credentials))
    }
}

/// Public keys from the card: the extended public key at the last hardened step of a path comes
/// from the card (EXPORT KEY), once per distinct prefix; the rest is derived here, as any
/// watch-only wallet does. Private keys stay on the card.
///
/// Never an extended export at m: applet 3.x does not copy the master chain code there and
/// answers a stale buffer (zeros after power-up, else the last derived key's chain code).
public final class CardKeys {
    public let keycard: Keycard
    private var exported = [[UInt32]: ExtendedKey]()

    public init(_ keycard: Keycard) { self.keycard = keycard }

    /// The master public key (EXPORT KEY, public only, at m: the card answers that correctly).
    public func masterPublicKey() throws -> Secp256k1.PublicKey { try exportedPublicKey(at: []) }

    /// EXPORT KEY of the public key alone at a path.
    private func exportedPublicKey(at path: [UInt32]) throws -> Secp256k1.PublicKey {
        guard let pub = try keycard.exportKey(path: path, kind: .publicKey).publicKey, let key = try? Secp256k1.PublicKey(parsing: pub)
        else {
            throw CardError.malformedResponse("EXPORT KEY: no public key")
        }
        return key
    }

    /// A stand-in for the master node that says "BIP32, from a seed, depth 0" to code choosing
    /// coins and scripts. Its chain code is unknown (zeros): derive only through `node(at:)`.
    public func masterPlaceholder() throws -> ExtendedKey {
        try ExtendedKey(
            publicKey: masterPublicKey().compressed, chainCode: [UInt8](repeating: 0, count: 32), depth: 0, childNumber: 0,
            parentFingerprint: [0, 0, 0, 0])
    }

    /// The public key at a path: at m and after a hardened last step exported alone (nothing is
    /// derived below it, and the card refuses extended keys inside EIP-1581); otherwise from the
    /// node, falling back to the key alone where the card refuses the extended export.
    public func publicKey(at path: [UInt32]) throws -> Secp256k1.PublicKey {
        if path.isEmpty { return try masterPublicKey() }
        if path.last! < DerivationPath.hardened {
            do { return try node(at: path).publicKey } catch CardError.conditionsNotSatisfied {}
        }
        return try exportedPublicKey(at: path)
    }

    /// The public node at an absolute path below m (m itself has no trustworthy chain code:
    /// use `masterPublicKey()`).
    public func node(at path: [UInt32]) throws -> ExtendedKey {
        guard !path.isEmpty else { throw CardError.masterChainCodeUnavailable }
        // Exported at the last hardened step, through which only the card can derive; with no
        // hardened step, at the first step (one export serves m/0/0, m/0/1, …).
        let cut = max((path.lastIndex { $0 >= DerivationPath.hardened }).map { $0 + 1 } ?? 0, 1)
        let prefix = Array(path[..<cut])
        let base: ExtendedKey
        if let known = exported[prefix] {
            base = known
        } else {
            let key = try keycard.exportKey(path: prefix, kind: .extendedPublicKey)
            guard let pub = key.publicKey, let chain = key.chainCode else {
                throw CardError.malformedResponse("EXPORT KEY: no extended public key")
            }
            let parent = try parentFingerprint(of: prefix)
            base = try ExtendedKey(
                publicKey: pub, chainCode: chain, depth: UInt8(prefix.count), childNumber: prefix.last ?? 0, parentFingerprint: parent)
            exported[prefix] = base
        }
        return try base.derive(Array(path[cut...]))
    }

    private func parentFingerprint(of path: [UInt32]) throws -> [UInt8] {
        Array(Hash.hash160(try exportedPublicKey(at: Array(path.dropLast())).compressed).prefix(4))
    }
}

extension Keycard {
    /// A BIP39 phrase from the card's TRNG (GENERATE MNEMONIC): the word indexes give back the
    /// entropy, whose checksum is checked before the phrase is written in `language`.
    public func generateMnemonic(words: Int, language: String) throws -> Mnemonic {
        let indexes = try generateMnemonicIndexes(words: words)
        var bits = indexes.flatMap { index in (0..<11).map { UInt8((index >> (10 - $0)) & 1) } }
        defer { SecureBytes.wipe(&bits) }
        let checksumBits = words / 3
        let entropyBits = bits.count - checksumBits
        var entropy = stride(from: 0, to: entropyBits, by: 8).map { start in bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | $1 } }
        defer { SecureBytes.wipe(&entropy) }
        let digest = Hash.sha256(entropy)
        let expected = (0..<checksumBits).map { (digest[0] >> (7 - $0)) & 1 }
        guard Array(bits[entropyBits...]) == expected else {
            throw CardError.malformedResponse("GENERATE MNEMONIC: the phrase fails its BIP39 checksum")
        }
        return try BIP39().mnemonic(fromEntropy: SecureBytes(entropy), language: language)
    }
}

/// A key-taking tool's key source with --card among the choices: `KeySourceOptions` and the
/// card's options, at most one source given. Their options are declared here again, not
/// nested, to keep the groups one level deep (see `KeySourceOptions`); `source` and `card`
/// give them back as the two groups.
public struct CardKeySourceOptions: ParsableArguments {
    @OptionGroup public var keyRecord: KeyOptions
    @Option(help: KeySourceOptions.walletHelp) public var wallet: String?
    @OptionGroup public var keyStore: KeyStoreOptions
    @Flag(name: .customLong("card"), help: CardKeyOptions.cardHelp) public var useCard = false
    @OptionGroup public var pairing: PairingOptions
    @OptionGroup public var readers: ReaderOptions
    @OptionGroup public var credentials: CredentialOptions

    public init() {}

    public func validate() throws {
        try KeySourceOptions.checkOne(
            keyFile: keyRecord.keyFile != nil, keyFd: keyRecord.keyFd != nil, wallets: wallet == nil ? 0 : 1, card: useCard)
        try card.validate()
    }

    /// The key source without the card.
    public var source: KeySourceOptions {
        var options = KeySourceOptions()
        (options.keyRecord, options.wallet, options.keyStore) = (keyRecord, wallet, keyStore)
        return options
    }

    /// The card's options.
    public var card: CardKeyOptions {
        var options = CardKeyOptions()
        (options.card, options.pairing, options.readers, options.credentials) = (useCard, pairing, readers, credentials)
        return options
    }

    /// The unlocked card, or nil without --card.
    public func keys() throws -> CardKeys? { try card.keys(keyStore) }
}
