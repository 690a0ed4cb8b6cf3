import ArgumentParser
import WalletCard
import WalletCLI
import WalletCore
import WalletKeys
import WalletRecords

/// --card and what it needs: the pairing, the reader, the PIN.
public struct CardKeyOptions: ParsableArguments {
    @Flag(help: "The key is on a Keycard (needs --pairing; the PIN comes from --credentials-file/-fd or a prompt).")
    public var card = false

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
        return try pairing.open(readers, keyStore).0
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
        guard let pub = try keycard.exportKey(path: path, kind: .publicKey).publicKey, let key = try? Secp256k1.PublicKey(parsing: pub) else {
            throw CardError.malformedResponse("EXPORT KEY: no public key")
        }
        return key
    }

    /// A stand-in for the master node that says "BIP32, from a seed, depth 0" to code choosing
    /// coins and scripts. Its chain code is unknown (zeros): derive only through `node(at:)`.
    public func masterPlaceholder() throws -> ExtendedKey {
        try ExtendedKey(publicKey: masterPublicKey().compressed, chainCode: [UInt8](repeating: 0, count: 32), depth: 0, childNumber: 0,
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
            guard let pub = key.publicKey, let chain = key.chainCode else { throw CardError.malformedResponse("EXPORT KEY: no extended public key") }
            let parent = try parentFingerprint(of: prefix)
            base = try ExtendedKey(publicKey: pub, chainCode: chain, depth: UInt8(prefix.count), childNumber: prefix.last ?? 0, parentFingerprint: parent)
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
        guard Array(bits[entropyBits...]) == expected else { throw CardError.malformedResponse("GENERATE MNEMONIC: the phrase fails its BIP39 checksum") }
        return try BIP39().mnemonic(fromEntropy: SecureBytes(entropy), language: language)
    }
}

extension CardKeys: KeyDevice {
    /// EXPORT KEY of the private key, which the card allows inside EIP-1581 only.
    public func privateKey(at path: [UInt32]) throws -> SecureBytes? {
        try keycard.exportKey(path: path, kind: .privateKey).privateKey
    }
}

extension ChainOptions {
    /// The run's key inputs: a reader for key records (with the BIP39 passphrase the options
    /// gave) and, with --wallet or --card, the key that replaces them (the card's master node,
    /// and the card itself for the nodes below it). With --wallet, `walletRecord` is the
    /// record the run starts from: the entry's birthdays.
    public func keyInputs(_ passphrase: PassphraseOptions, _ wallet: WalletOptions,
                          _ cardOptions: CardKeyOptions) throws -> (RecordKeys, KeySource?, CardKeys?, walletRecord: JSONObject) {
        let shared = try passphrase.read()
        if let card = try cardOptions.keys(wallet.keyStore) {
            return (recordKeys(sharedPassphrase: shared), .bip32(try card.masterPlaceholder(), origin: DerivationPath(), fromSeed: true), card, JSONObject())
        }
        let (records, source, start) = try keyInputs(sharedPassphrase: shared, wallet)
        return (records, source, nil, start)
    }
}

/// What a derive run reads before any record.
public struct DeriveKeys {
    /// The reader of key records (with the run's BIP39 passphrase).
    public let records: RecordKeys
    /// The key-store entry's key, or the card's stand-in master: it replaces the records' keys.
    public let source: KeySource?
    public let card: CardKeys?
}

extension ChainOptions {
    /// A record's work in a derive run.
    public typealias RecordBody = (JSONObject, _ emit: (JSONObject) throws(CLIError) -> Void) throws -> Void

    /// A derive subcommand's run. The key inputs (with `card`, the card too), and what
    /// `prepare` makes of them, are read before any record; a failure there is the run's error.
    /// Then each record of `inputs` goes through the body `prepare` returns — or, when the key
    /// is there already (--wallet, --card), one record does: the entry's (its birthdays) with
    /// `fromEntry`, else an empty one.
    public func runDerive(_ passphrase: PassphraseOptions, _ wallet: WalletOptions, card: CardKeyOptions? = nil, inputs: [String],
                          fromEntry: Bool = false, _ prepare: (DeriveKeys) throws -> RecordBody) throws {
        let pipeline = RecordPipeline(tool: "derive")
        pipeline.phraseLines = true
        let keys: DeriveKeys, start: JSONObject, body: RecordBody
        do {
            if let card {
                let (records, source, device, entry) = try keyInputs(passphrase, wallet, card)
                (keys, start) = (DeriveKeys(records: records, source: source, card: device), entry)
            } else {
                let (records, source, entry) = try keyInputs(passphrase, wallet)
                (keys, start) = (DeriveKeys(records: records, source: source, card: nil), entry)
            }
            body = try prepare(keys)
        } catch let error as any WalletError {
            return try pipeline.fail(error).exitIfFailed()
        }
        try (keys.source != nil ? pipeline.runOnce(fromEntry ? start : JSONObject(), body) : pipeline.run(inputs: inputs, body)).exitIfFailed()
    }
}
