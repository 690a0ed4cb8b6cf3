import ArgumentParser
import WalletCLI
import WalletCardCLI
import Monero
import WalletCore
import WalletKeys
import WalletQR
#if canImport(Glibc)
import Glibc
#endif

@main
struct DeriveCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "derive",
        abstract: "Keys and receive addresses from a seed, a phrase, an extended key, Monero keys or Zcash viewing keys.",
        discussion: """
        Reads JSON Lines: {"mnemonic":"..."}, {"seed":"<hex>"}, {"xpub":"..."} or {"xprv":"..."}
        (any SLIP-132 kind), Monero {"spend_key":"..."} / {"view_key":"...","public_spend_key":"..."},
        or Zcash {"ufvk":"uview1..."} / {"uivk":"uivk1..."} / {"extended_full_viewing_key":"zxviews1..."}.
        Writes one record per address (or per account with `derive account`). Secret input
        fields are never passed through; private keys are written only with --private.
        See derive(1).

        Examples, one per kind of input:
          derive --purpose 84 --count 3 < w.jsonl                    (a BIP39 phrase)
          mnemonic generate --store w --confirm && derive --wallet w --count 3
                                                                     (a new wallet, kept first)
          mnemonic to-seed < w.jsonl | derive --coin eth --count 5   (a seed)
          derive account --purpose 84 < w.jsonl | derive --purpose 84 --count 20
                                                                     (an account xpub/zpub)
          echo '{"zpub":"zpub6r…"}' | derive --change both --count 5 (a bare extended key)
          derive --account 1 --count 3 < xmr.jsonl                   (a Monero seed)
          derive account --view-only < xmr.jsonl | derive --count 5  (Monero view-only keys)
          derive --coin zec --pool sapling --count 3 < w.jsonl       (Zcash zs1 and u1 addresses)
          derive --coin zec --pool orchard --count 3 < w.jsonl       (Orchard-only u1 addresses)
          derive account --coin zec --pool sapling < w.jsonl | derive --count 5
                                                                     (from a Zcash UFVK)
        """,
        version: SatchelVersion.string,
        subcommands: [Addresses.self, Account.self, Discover.self],
        defaultSubcommand: Addresses.self
    )
}

/// Coin, network, script and path choices shared by both subcommands.
struct ChainOptions: ParsableArguments {
    @Option(help: "Coin: btc, ltc, doge, bch, zec, eth, xmr (default btc; xmr when the input is a Monero seed or keys).")
    var coin: String?

    @Option(help: "Network: main, test, signet, regtest (btc); mainnet, testnet, stagenet (xmr). Default: main.")
    var network: String?

    @Option(help: "BIP43 purpose: 44 (P2PKH), 49 (P2SH-P2WPKH), 84 (P2WPKH) or 86 (P2TR).")
    var purpose: UInt32?

    @Option(help: "Script kind instead of a purpose: p2pkh, p2sh-p2wpkh, p2wpkh, p2tr.")
    var script: String?

    @Option(help: "SLIP-44 coin type to use in preset paths instead of the coin's own (e.g. another EVM chain).")
    var coinType: UInt32?

    @Option(help: "Account number (Monero: the major subaddress index).")
    var account: UInt32 = 0

    @Option(help: ArgumentHelp("Which extended key's place in the tree an imported xpub/xprv has, e.g. m/84h/0h/0h (default: the record's account_path, else unknown).", valueName: "path"))
    var accountPath: String?

    @Flag(help: "Also write private keys (hex, and WIF for Bitcoin-like coins; Monero: spend and view keys; Zcash Sapling: the extended spending key).")
    var `private` = false

    @Option(help: ArgumentHelp("Zcash value pool: transparent (t1 addresses, the default), sapling (ZIP-32 keys, zs1 and unified addresses with Orchard, Sapling and transparent receivers) or orchard (unified addresses with the Orchard receiver alone).", valueName: "pool"))
    var pool: String?

    func validate() throws {
        if let pool {
            guard ["transparent", "sapling", "orchard"].contains(pool) else { throw ValidationError("--pool must be transparent, sapling or orchard") }
            guard coin == "zec" else { throw ValidationError("--pool is for --coin zec") }
            if pool != "transparent" {
                guard purpose == nil, script == nil, coinType == nil, accountPath == nil else {
                    throw ValidationError("--pool \(pool) takes no --purpose, --script, --coin-type or --account-path (ZIP-32 uses m/32'/133'/account')")
                }
                guard ["main", "test", "mainnet", "testnet"].contains(network ?? "main") else { throw ValidationError("Zcash networks are main and test") }
                return
            }
        }
        if let coin, coin != "xmr", !CoinNetwork.coins.contains(coin) {
            throw ValidationError("unknown coin '\(coin)'; known: \(CoinNetwork.coins.joined(separator: ", ")), xmr")
        }
        if let purpose, ScriptKind.forPurpose(purpose) == nil { throw ValidationError("--purpose must be 44, 49, 84 or 86") }
        if let script, ScriptKind(rawValue: script) == nil || script == "ethereum" {
            throw ValidationError("--script must be p2pkh, p2sh-p2wpkh, p2wpkh or p2tr")
        }
        if purpose != nil && script != nil { throw ValidationError("give --purpose or --script, not both") }
        if let accountPath {
            do { _ = try DerivationPath(parsing: accountPath) } catch { throw ValidationError(error.message) }
        }
        guard account < DerivationPath.hardened else { throw ValidationError("--account must be below 2^31") }
        if let coinType, coinType >= DerivationPath.hardened { throw ValidationError("--coin-type must be below 2^31") }
        if let network, coin == nil || coin == "xmr" {
            let known = Set(CoinNetwork.all.map(\.network)).union(MoneroNetwork.all.map(\.name))
            guard known.contains(network) else { throw ValidationError("unknown network '\(network)'") }
        }
        if coin == "xmr" || coin == nil { return }
        let network = self.network ?? "main"
        guard let chain = CoinNetwork.find(coin: coin!, network: network) else {
            throw ValidationError(Self.noNetwork(coin: coin!, network: network))
        }
        if let kind = requestedScript, !chain.scripts.contains(kind) {
            throw ValidationError("\(coin!) has no \(kind.rawValue) addresses; it has \(chain.scripts.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// "btc has no network 'testnet': use --network test (networks: main, test, signet, regtest)".
    static func noNetwork(coin: String, network: String) -> String {
        let known = CoinNetwork.all.filter { $0.coin == coin }.map(\.network)
        let hint = ["testnet": "test", "mainnet": "main"][network].flatMap { known.contains($0) ? ": use --network \($0)" : nil } ?? ""
        return "\(coin) has no network '\(network)'\(hint) (\(coin) networks: \(known.joined(separator: ", ")))"
    }

    var requestedScript: ScriptKind? {
        if let script { return ScriptKind(rawValue: script) }
        return purpose.flatMap(ScriptKind.forPurpose)
    }

    /// The run's key inputs: a reader for key records (with the BIP39 passphrase the options
    /// gave) and, with --wallet or --card, the key that replaces them (the card's master node,
    /// and the card itself for the nodes below it).
    /// With --wallet, `walletRecord` is the record the run starts from: the entry's birthdays.
    func keyInputs(_ passphrase: PassphraseOptions, _ wallet: WalletOptions,
                   _ cardOptions: CardKeyOptions? = nil) throws -> (RecordKeys, KeySource?, CardKeys?, walletRecord: JSONObject) {
        let shared = try passphrase.read()
        let records = RecordKeys(coin: coin, accountPath: accountPath, sharedPassphrase: shared, moneroNetwork: try? moneroNetwork())
        if let card = try cardOptions?.keys(wallet.keyStore) {
            return (records, .bip32(try card.masterPlaceholder(), origin: DerivationPath(), fromSeed: true), card, JSONObject())
        }
        guard let loaded = try wallet.load(bip39Passphrase: shared) else { return (records, nil, nil, JSONObject()) }
        var start = JSONObject()
        if !loaded.birthdays.isEmpty { start["birthdays"] = .object(KeyStoreRecords.birthdayObject(loaded.birthdays)) }
        return (records, loaded.source, nil, start)
    }

    func moneroNetwork() throws -> MoneroNetwork {
        switch network ?? "mainnet" {
        case "main", "mainnet": return .mainnet
        case "test", "testnet": return .testnet
        case "stagenet": return .stagenet
        case let other: throw DerivationError.unsupported("Monero has no network '\(other)'; use mainnet, testnet or stagenet")
        }
    }
}

/// The chosen coin network and script for a BIP32 source.
struct Plan {
    let chain: CoinNetwork
    let script: ScriptKind
    let coinType: UInt32

    /// `fromSeed`: the key is a master key made here from a seed, phrase or card, whose version
    /// bytes say nothing of a network; only an imported extended key is held to its network.
    /// `claims`: what the record says of its extended key (coin, network, script), which
    /// options may repeat but not contradict.
    init(options: ChainOptions, key: ExtendedKey, fromSeed: Bool, claims: KeyRecordClaims = KeyRecordClaims()) throws {
        if options.coin == "xmr" { throw DerivationError.unsupported("a BIP32 key gives no Monero keys; give a Monero seed or keys for --coin xmr") }
        let coin = try KeyRecordClaims.resolve("coin", record: claims.coin, option: options.coin, written: { "--coin \($0)" }, shown: { $0 }) ?? "btc"
        let givenNetwork = try KeyRecordClaims.resolve("network", record: claims.network, option: options.network, written: { "--network \($0)" }, shown: { $0 })
        var network = givenNetwork ?? "main"
        if givenNetwork == nil, key.version.testnet, coin == "btc" { network = "test" }
        let requested = try KeyRecordClaims.resolve("script", record: claims.script, option: options.requestedScript,
                                                    written: { options.purpose != nil ? "--purpose \($0.purpose)" : "--script \($0.rawValue)" },
                                                    shown: \.rawValue)
        guard let chain = CoinNetwork.find(coin: coin, network: network) else { throw DerivationError.unsupported(ChainOptions.noNetwork(coin: coin, network: network)) }
        if !fromSeed, key.version.testnet != chain.testnet, !(coin == "eth") {
            throw DerivationError.unsupported("the extended key is for \(key.version.testnet ? "a test" : "the main") network, not \(coin) \(network)")
        }
        let implied: ScriptKind? = switch key.version.publicPrefix {
        case "ypub", "upub": .p2shP2wpkh
        case "zpub", "vpub": .p2wpkh
        default: nil
        }
        if let requested, let implied, requested != implied {
            throw DerivationError.unsupported("a \(key.version.publicPrefix) key is for \(implied.rawValue), not \(requested.rawValue)")
        }
        let chosen: ScriptKind
        if chain.scripts == [.ethereum] {
            chosen = .ethereum
        } else if let kind = requested ?? implied {
            chosen = kind
        } else if key.depth == 0 {
            chosen = chain.defaultScript
        } else {
            throw DerivationError.unsupported("an \(key.version.publicPrefix) key does not say which addresses it makes: give --purpose 44, 49, 84 or 86")
        }
        guard chain.scripts.contains(chosen) else { throw DerivationError.unsupported("\(coin) has no \(chosen.rawValue) addresses") }
        self.chain = chain
        self.script = chosen
        self.coinType = options.coinType ?? chain.slip44
    }

    /// m/purpose'/coin'/account'
    func accountPath(_ account: UInt32) -> DerivationPath {
        DerivationPath([script.purpose + DerivationPath.hardened, coinType + DerivationPath.hardened, account + DerivationPath.hardened])
    }
}

extension DeriveCommand {
    struct Addresses: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Receive (and change) addresses with their public keys.",
            discussion: """
            Presets: m/purpose'/coin'/account'/change/index for --count indexes from --index.
            From an account xpub: change/index below it. --path takes any BIP32 path, with a
            range in its last step (m/84h/0h/0h/0/0-19); from an extended key the path is
            relative to that key (m is the key itself).
            """)

        @OptionGroup var chainOptions: ChainOptions

        @Option(help: "Chain: 0 receive, 1 change, or both.")
        var change: String = "0"

        @Option(help: "First address index (Monero: first minor index).")
        var index: UInt32 = 0

        @Option(help: "How many addresses per chain.")
        var count: UInt32 = 1

        @Option(help: ArgumentHelp("A BIP32 path instead of the presets; ' or h marks hardened; the last step may be a range a-b.", valueName: "path"))
        var path: String?

        @Option(help: ArgumentHelp("Monero: also write the integrated address of the primary address with this 8-byte payment id (hex).", valueName: "hex"))
        var paymentId: String?

        @Flag(help: "Show each address as a QR code on the terminal (/dev/tty), beside the records on stdout.")
        var qr = false

        @Option(help: ArgumentHelp("Write each address as a QR code image ADDRESS.png or .svg into this directory, and name it in \"qr_file\".", valueName: "dir"))
        var qrDir: String?

        @Option(help: "Image format for --qr-dir: png or svg.")
        var qrFormat: String = "png"

        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup var walletOptions: WalletOptions
        @OptionGroup var cardOptions: CardKeyOptions
        @OptionGroup var input: InputFiles

        func validate() throws {
            if cardOptions.card && walletOptions.wallet != nil { throw ValidationError("give --wallet or --card, not both") }
            guard ["png", "svg"].contains(qrFormat) else { throw ValidationError("--qr-format must be png or svg") }
            guard ["0", "1", "both"].contains(change) else { throw ValidationError("--change must be 0, 1 or both") }
            guard count >= 1, UInt64(index) + UInt64(count) <= UInt64(DerivationPath.hardened) else {
                throw ValidationError("--index and --count must stay within 0..2^31-1, with --count at least 1")
            }
            if let path {
                do { _ = try DerivationPath.parseRange(path) } catch { throw ValidationError(error.message) }
            }
            if let paymentId, (try? Hex.decode(paymentId))?.count != 8 { throw ValidationError("--payment-id is 8 bytes of hex (16 digits)") }
        }

        var chains: [UInt32] { change == "both" ? [0, 1] : [UInt32(change)!] }

        func run() throws {
            let pipeline = RecordPipeline(tool: "derive")
            pipeline.phraseLines = true
            let keys: RecordKeys, walletSource: KeySource?, card: CardKeys?
            do {
                (keys, walletSource, card, _) = try chainOptions.keyInputs(passphrase, walletOptions, cardOptions)
            } catch let error as any WalletError {
                return try pipeline.fail(error).exitIfFailed()
            }
            var terminal: OutputStream?
            if qr {
                let fd = open("/dev/tty", O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else { return try pipeline.fail(CLIError.usage("--qr needs a terminal (/dev/tty); use --qr-dir for image files")).exitIfFailed() }
                terminal = OutputStream(fd: fd)
            }
            if let qrDir, !QRSink.makeDirectory(qrDir) {
                return try pipeline.fail(CLIError.cannotOpen(path: qrDir, reason: "cannot create the directory: \(String(cString: strerror(errno)))")).exitIfFailed()
            }
            let show = QRSink(terminal: terminal, directory: qrDir, format: qrFormat)
            let body = { (record: JSONObject, emit: (JSONObject) throws(CLIError) -> Void) throws in
                let emit = { (out: JSONObject) throws(CLIError) -> Void in try emit(try show.attach(out)) }
                if card == nil, case .zcash(let material)? = walletSource { return try saplingAddresses(record, keys, material: material, emit: emit) }
                if walletSource == nil, card == nil, chainOptions.isSapling(record) { return try saplingAddresses(record, keys, emit: emit) }
                if let pool = chainOptions.shieldedPool { throw DerivationError.unsupported("--pool \(pool) needs a BIP39 phrase, a seed or a Zcash viewing key in the record, or a zec key-store entry (not a card)") }
                var base = record
                let source = try walletSource ?? keys.source(record, out: &base)
                // An address record carries its own path and keys, not the account record it
                // came from (its xpubs, descriptors, fingerprints, …): those fields go.
                base = AccountFields.removed(from: SecretFields.removed(from: base))
                switch source {
                case .monero(let wallet):
                    try moneroAddresses(wallet, base: base, record: record, emit: emit)
                case .bip32(let key, let origin, let fromSeed):
                    try bip32Addresses(key, origin: origin, fromSeed: fromSeed, claims: KeyRecordClaims(record: record), card: card, base: base, emit: emit)
                case .single:
                    throw DerivationError.unsupported("a lone private key has no addresses to derive; give a seed or an extended key")
                case .zcash:
                    throw DerivationError.unsupported("Zcash keys from a card are not supported")
                }
            }
            // With --wallet or --card the key is there: no input records are read.
            try (walletSource != nil ? pipeline.runOnce(JSONObject(), body) : pipeline.run(inputs: input.files, body)).exitIfFailed()
        }

        /// With `card`, each chain's parent node comes from the card (exported at its last
        /// hardened step); the addresses below it are derived here.
        private func bip32Addresses(_ key: ExtendedKey, origin: DerivationPath?, fromSeed: Bool, claims: KeyRecordClaims,
                                    card: CardKeys?, base: JSONObject, emit: (JSONObject) throws(CLIError) -> Void) throws {
            let plan = try Plan(options: chainOptions, key: key, fromSeed: fromSeed, claims: claims)
            // Groups of (parent node, its path relative to `key`, the last steps to derive).
            var groups: [(relative: [UInt32], last: [UInt32])] = []
            if let path {
                let all = try DerivationPath.parseRange(path)
                groups = [(Array(all[0].components.dropLast()), all.compactMap(\.components.last))]
                if all[0].components.isEmpty { groups = [([], [])] }
            } else {
                let indexes = Array(index..<(index + count))
                let prefix = fromSeed ? plan.accountPath(chainOptions.account).components : []
                groups = chains.map { (prefix + [$0], indexes) }
            }
            for group in groups {
                // From a card each address's node comes from CardKeys, which knows where the
                // card may export; `key` is only a stand-in for the card's master.
                let parent = card == nil ? try key.derive(group.relative, base: origin ?? DerivationPath()) : key
                let steps: [UInt32?] = group.last.isEmpty ? [nil] : group.last.map { $0 }
                for step in steps {
                    let relative = group.relative + (step.map { [$0] } ?? [])
                    let shownPath = origin.map { $0.appending(relative).description }
                        ?? relative.map(DerivationPath.format).joined(separator: "/")
                    // The address needs the public key only (and the node's private key with --private).
                    let node: ExtendedKey?
                    let publicKey: Secp256k1.PublicKey
                    if let card {
                        node = nil
                        publicKey = try card.publicKey(at: relative)
                    } else if let step {
                        let result = Result { () throws(DerivationError) -> ExtendedKey in try parent.child(step, pathForErrors: shownPath) }
                        if case .failure(.invalidChild) = result, path == nil {
                            // In a preset range BIP32 says: skip to the next index. Say so in-stream.
                            try emit(JSONObject(["type": .string("skipped"), "path": .string(shownPath), "reason": .string("invalid child key (BIP32)")]))
                            continue
                        }
                        node = try result.get()
                        publicKey = node!.publicKey
                    } else {
                        node = parent
                        publicKey = parent.publicKey
                    }
                    var out = base
                    out["type"] = .string("address")
                    out["coin"] = .string(plan.chain.coin)
                    out["network"] = .string(plan.chain.network)
                    out["path"] = .string(shownPath)
                    out["script"] = .string(plan.script.rawValue)
                    let (address, outputKey) = try plan.chain.address(for: publicKey, script: plan.script)
                    out["address"] = .string(address)
                    if plan.chain.cashAddrPrefix != nil { out["legacy_address"] = .string(plan.chain.legacyAddress(for: publicKey)) }
                    out["public_key"] = .string(Hex.encode(publicKey.compressed))
                    if let outputKey { out["output_key"] = .string(Hex.encode(outputKey)) }
                    if chainOptions.private {
                        // From a card: EXPORT KEY, which the card allows inside EIP-1581 only.
                        let secret = try card.map { try $0.keycard.exportKey(path: relative, kind: .privateKey).privateKey } ?? node?.privateKey
                        guard let secret else {
                            throw DerivationError.unsupported("--private needs a private key, and the input is watch-only")
                        }
                        out["private_key"] = .string(secret.hex)
                        if plan.script != .ethereum { out["wif"] = .string(plan.chain.wif(secret)) }
                    }
                    try emit(out)
                }
            }
        }

        private func moneroAddresses(_ wallet: MoneroKeys, base: JSONObject, record: JSONObject,
                                     emit: (JSONObject) throws(CLIError) -> Void) throws {
            if let coin = chainOptions.coin, coin != "xmr" {
                throw DerivationError.unsupported("the input is a Monero seed or keys; use --coin xmr")
            }
            guard path == nil else { throw DerivationError.unsupported("Monero has no BIP32 paths; use --account (major) and --index/--count (minor)") }
            let network = try chainOptions.moneroNetwork()
            let paymentID = try paymentId ?? base.optionalString("payment_id")
            for minor in index..<(index + count) {
                let sub = try wallet.subaddress(major: chainOptions.account, minor: minor, network)
                var out = base
                out["type"] = .string("address")
                out["coin"] = .string("xmr")
                out["network"] = .string(network.name)
                out["major"] = .number(String(chainOptions.account))
                out["minor"] = .number(String(minor))
                out["address"] = .string(sub.address)
                out["public_spend_key"] = .string(Hex.encode(sub.spendPublic))
                out["public_view_key"] = .string(Hex.encode(sub.viewPublic))
                if let paymentID, chainOptions.account == 0, minor == 0 {
                    out["payment_id"] = .string(paymentID)
                    out["integrated_address"] = .string(try wallet.integratedAddress(network, paymentID: try Hex.decode(paymentID)))
                }
                try emit(out)
            }
        }
    }

    struct Account: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The account's extended public key, fingerprints and output descriptors (Monero: primary address and keys).",
            discussion: """
            Writes one record per input: path, xpub (and its SLIP-132 form), master and parent
            fingerprints, depth, and Bitcoin Core descriptors for the receive and change chains.
            --private adds the xprv; for Monero --view-only adds the private view key alone.
            """)

        @OptionGroup var chainOptions: ChainOptions

        @Flag(help: "Monero: add the private view key (for a view-only wallet), not the spend key.")
        var viewOnly = false

        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup var walletOptions: WalletOptions
        @OptionGroup var input: InputFiles

        func run() throws {
            let pipeline = RecordPipeline(tool: "derive")
            pipeline.phraseLines = true
            let keys: RecordKeys, walletSource: KeySource?, walletRecord: JSONObject
            do { (keys, walletSource, _, walletRecord) = try chainOptions.keyInputs(passphrase, walletOptions) } catch let error as any WalletError {
                return try pipeline.fail(error).exitIfFailed()
            }
            let body = { (record: JSONObject, emit: (JSONObject) throws(CLIError) -> Void) throws in
                if case .zcash(let material)? = walletSource { return try emit(try saplingAccount(record, keys, material: material)) }
                if walletSource == nil, chainOptions.isSapling(record) { return try emit(try saplingAccount(record, keys)) }
                if let pool = chainOptions.shieldedPool { throw DerivationError.unsupported("--pool \(pool) needs a BIP39 phrase, a seed or a Zcash viewing key in the record, or a zec key-store entry") }
                var out = record
                let source = try walletSource ?? keys.source(record, out: &out)
                out = SecretFields.removed(from: out)
                out["type"] = .string("account")
                switch source {
                case .monero(let wallet):
                    if let coin = chainOptions.coin, coin != "xmr" { throw DerivationError.unsupported("the input is a Monero seed or keys; use --coin xmr") }
                    let network = try chainOptions.moneroNetwork()
                    out["coin"] = .string("xmr")
                    out["network"] = .string(network.name)
                    out["primary_address"] = .string(wallet.primaryAddress(network))
                    out["public_spend_key"] = .string(Hex.encode(wallet.spendPublic))
                    out["public_view_key"] = .string(Hex.encode(wallet.viewPublic))
                    if viewOnly || chainOptions.private { out["private_view_key"] = .string(wallet.viewSecret.hex) }
                    if chainOptions.private, let spend = wallet.spendSecret { out["private_spend_key"] = .string(spend.hex) }
                case .bip32(let key, let origin, let fromSeed):
                    let plan = try Plan(options: chainOptions, key: key, fromSeed: fromSeed, claims: KeyRecordClaims(record: record))
                    let path = fromSeed ? plan.accountPath(chainOptions.account) : (origin ?? DerivationPath())
                    let account = fromSeed ? try key.derive(path.components) : key
                    let standard: ExtendedKeyVersion = plan.chain.testnet ? .tpub : .xpub
                    let xpub = account.neutered.serialized(version: standard)
                    out["coin"] = .string(plan.chain.coin)
                    out["network"] = .string(plan.chain.network)
                    out["script"] = .string(plan.script.rawValue)
                    if fromSeed || origin != nil { out["path"] = .string(path.description) }
                    out["xpub"] = .string(xpub)
                    let slip = ExtendedKeyVersion.slip132(for: plan.script, testnet: plan.chain.testnet)
                    if slip != standard { out[slip.publicPrefix] = .string(account.neutered.serialized(version: slip)) }
                    if fromSeed { out["master_fingerprint"] = .string(Hex.encode(key.fingerprint)) }
                    out["fingerprint"] = .string(Hex.encode(account.fingerprint))
                    out["parent_fingerprint"] = .string(Hex.encode(account.parentFingerprint))
                    out["depth"] = .number(String(account.depth))
                    out["child_number"] = .string(DerivationPath.format(account.childNumber))
                    if fromSeed, let receive = Descriptor.account(script: plan.script, masterFingerprint: key.fingerprint, accountPath: path, accountXpub: xpub, change: 0),
                       let change = Descriptor.account(script: plan.script, masterFingerprint: key.fingerprint, accountPath: path, accountXpub: xpub, change: 1) {
                        out["descriptor"] = .string(receive)
                        out["change_descriptor"] = .string(change)
                    }
                    if chainOptions.private {
                        guard account.isPrivate else { throw DerivationError.unsupported("--private needs a private key, and the input is watch-only") }
                        out["xprv"] = .string(account.serialized(version: standard))
                    }
                case .single:
                    throw DerivationError.unsupported("a lone private key has no account; give a seed or an extended key")
                case .zcash:
                    throw DerivationError.unsupported("unreachable: Zcash entries take the Sapling branch")
                }
                try emit(out)
            }
            try (walletSource != nil ? pipeline.runOnce(walletRecord, body) : pipeline.run(inputs: input.files, body)).exitIfFailed()
        }
    }
}

extension DeriveCommand {
    struct Discover: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "BIP44 account discovery against a list of used addresses (no web API).",
            discussion: """
            Scans accounts 0, 1, … of --purpose/--coin: in each, the receive and change chains
            until --gap consecutive addresses are unused. Discovery stops at the first account
            with no used address, as BIP44 says. Used addresses come from --used FILE: one
            address per line, or JSON records with an "address" field (derive's or scan-blocks'
            output). Writes one record per used account (path, xpub, used counts, the next
            unused receive and change indexes) and a final "discovery" record.
            """)

        @OptionGroup var chainOptions: ChainOptions

        @Option(help: ArgumentHelp("Addresses known to have history: plain lines or JSON records with \"address\".", valueName: "file"))
        var used: String

        @Option(help: "Consecutive unused addresses that end a chain (BIP44: 20).")
        var gap: UInt32 = 20

        @Option(help: "Accounts to look at, at most.")
        var maxAccounts: UInt32 = 100

        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup var walletOptions: WalletOptions
        @OptionGroup var cardOptions: CardKeyOptions
        @OptionGroup var input: InputFiles

        func validate() throws {
            if cardOptions.card && walletOptions.wallet != nil { throw ValidationError("give --wallet or --card, not both") }
            guard (1...Self.maxGap).contains(gap) else { throw ValidationError("--gap must be 1 to \(Self.maxGap)") }
            guard (1...DerivationPath.hardened).contains(maxAccounts) else { throw ValidationError("--max-accounts must be 1 to 2^31") }
        }

        func run() throws {
            let pipeline = RecordPipeline(tool: "derive")
            pipeline.phraseLines = true
            let keys: RecordKeys, walletSource: KeySource?, card: CardKeys?, history: Set<String>
            do {
                (keys, walletSource, card, _) = try chainOptions.keyInputs(passphrase, walletOptions, cardOptions)
                history = try Self.readUsed(used)
            } catch let error as any WalletError {
                return try pipeline.fail(error).exitIfFailed()
            }
            let body = { (record: JSONObject, emit: (JSONObject) throws(CLIError) -> Void) throws in
                var base = record
                let source = try walletSource ?? keys.source(record, out: &base)
                base = SecretFields.removed(from: base)
                guard case .bip32(let key, _, let fromSeed) = source, fromSeed else {
                    throw DerivationError.unsupported("discovery walks accounts from the master key: give a phrase, a seed, --wallet or --card")
                }
                let plan = try Plan(options: chainOptions, key: key, fromSeed: true)
                let standard: ExtendedKeyVersion = plan.chain.testnet ? .tpub : .xpub
                var account: UInt32 = 0
                while account < maxAccounts {
                    let path = plan.accountPath(account)
                    let node = try card?.node(at: path.components) ?? key.derive(path.components)
                    // (used count, next unused index) per chain.
                    let chains = try [UInt32(0), 1].map { chain throws -> (Int, UInt32) in
                        let parent = try node.derive([chain])
                        var next: UInt32 = 0, count = 0, index: UInt32 = 0
                        while index < next + gap {
                            if let child = try? parent.child(index),
                               history.contains(Self.normalized(try plan.chain.address(for: child.publicKey, script: plan.script).address)) {
                                count += 1
                                next = index + 1
                            }
                            index += 1
                        }
                        return (count, next)
                    }
                    if chains[0].0 == 0 && chains[1].0 == 0 { break }
                    var out = base
                    out["type"] = .string("account")
                    out["coin"] = .string(plan.chain.coin)
                    out["script"] = .string(plan.script.rawValue)
                    out["account"] = .number(String(account))
                    out["path"] = .string(path.description)
                    out["xpub"] = .string(node.neutered.serialized(version: standard))
                    out["used_receive"] = .number(String(chains[0].0))
                    out["next_receive_index"] = .number(String(chains[0].1))
                    out["used_change"] = .number(String(chains[1].0))
                    out["next_change_index"] = .number(String(chains[1].1))
                    try emit(out)
                    account += 1
                }
                var summary = base
                summary["type"] = .string("discovery")
                summary["accounts_used"] = .number(String(account))
                summary["next_account"] = .number(String(account))
                summary["gap"] = .number(String(gap))
                try emit(summary)
            }
            try (walletSource != nil ? pipeline.runOnce(JSONObject(), body) : pipeline.run(inputs: input.files, body)).exitIfFailed()
        }

        /// Hex (EIP-55) and bech32 addresses are case-insensitive (bech32 comes all upper case
        /// from QR codes); base58 is not, and compares exactly.
        static func normalized(_ address: String) -> String {
            address.hasPrefix("0x") || address.hasPrefix("0X") || address == address.uppercased() ? address.lowercased() : address
        }

        /// A chain is walked to its last used index plus the gap: a larger gap is a typo, and
        /// would have derivation run for days.
        static let maxGap: UInt32 = 1_000_000

        static func readUsed(_ path: String) throws -> Set<String> {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw CLIError.cannotOpen(path: path, reason: "cannot read it") }
            var out = Set<String>()
            for line in text.split(whereSeparator: \.isNewline) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { continue }
                if trimmed.hasPrefix("{") {
                    if let address = try JSONParser.parseRecord(Array(trimmed.utf8))["address"]?.stringValue { out.insert(normalized(address)) }
                } else {
                    out.insert(normalized(trimmed))
                }
            }
            return out
        }
    }
}

/// The fields `derive account` writes about an account, dropped from address records made
/// from it; a user's own fields (an id, a label) pass through.
enum AccountFields {
    static let names: Set<String> = Set(ExtendedKeyVersion.all.flatMap { [$0.publicPrefix, $0.privatePrefix] }).union([
        "extended_key", "descriptor", "change_descriptor", "master_fingerprint", "fingerprint", "parent_fingerprint",
        "depth", "child_number", "account_path", "primary_address", "public_spend_key", "public_view_key", "birthdays",
        "used_receive", "next_receive_index", "used_change", "next_change_index", "account",
        "ufvk", "uivk", "extended_full_viewing_key", "incoming_viewing_key", "default_diversifier_index", "default_address", "unified_address", "transparent_address",
    ])

    static func removed(from record: JSONObject) -> JSONObject {
        var out = record
        for key in record.keys where names.contains(key) { out[key] = nil }
        return out
    }
}

/// Where --qr and --qr-dir put an address's QR code.
struct QRSink {
    /// mkdir -p: the directory and its missing parents (QR images of addresses are not secret).
    static func makeDirectory(_ path: String) -> Bool {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST { return false }
        }
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    let terminal: OutputStream?
    let directory: String?
    let format: String

    /// Draws or writes the QR code of the record's address; adds "qr_file" for an image.
    func attach(_ record: JSONObject) throws(CLIError) -> JSONObject {
        guard terminal != nil || directory != nil, let address = record["address"]?.stringValue else { return record }
        let code: QRCode
        do { code = try QRCode(text: address) } catch { return record }
        var out = record
        if let terminal {
            try terminal.write(code.terminalText() + address + "\n\n")
        }
        if let directory {
            let path = directory + "/" + address.replacingOccurrences(of: ":", with: "_") + "." + format
            let bytes = format == "svg" ? Array(code.svg().utf8) : code.png()
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw .writeFailed(reason: "cannot create \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            try OutputStream(fd: fd).write(bytes)
            out["qr_file"] = .string(path)
        }
        return out
    }
}
