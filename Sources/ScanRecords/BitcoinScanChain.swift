import ArgumentParser
import Bitcoin
import BitcoinScan
import Foundation
import WalletCore
import WalletKeys
import WalletKeyStore
import WalletScan
import WalletRecords
import KeySources

/// Bitcoin-family wallets: BIP39 entries and records (accounts discovered), extended public
/// keys (xpub/ypub/zpub and the test forms, one account), and output descriptors.
public struct BitcoinWalletReader<C: BitcoinFamily>: ScanWalletReader {
    public let network: BitcoinNetwork
    /// --coin-type: the SLIP-44 coin type a seed's accounts are derived under.
    public let coinType: UInt32?
    public let discovery: AccountDiscovery
    /// --silent-payments: a seed's BIP352 receiver is scanned too; labels 0 (change) to this
    /// one for every silent payment receiver (--sp-labels).
    public let silentPayments: Bool
    public let silentPaymentLabels: UInt32

    public init(
        network: BitcoinNetwork, coinType: UInt32?, discovery: AccountDiscovery, silentPayments: Bool = false,
        silentPaymentLabels: UInt32 = 0
    ) {
        (self.network, self.coinType, self.discovery) = (network, coinType, discovery)
        (self.silentPayments, self.silentPaymentLabels) = (silentPayments, silentPaymentLabels)
    }

    /// As scan-blocks' options ask: the network, --coin-type, --gap-limit, --silent-payments, --sp-labels.
    init(_ options: ScanOptions) throws {
        let bitcoin = options.bitcoin
        self.init(
            network: try BitcoinNetwork(C.self, network: options.network), coinType: bitcoin.coinType,
            discovery: AccountDiscovery(gap: bitcoin.gapLimit), silentPayments: bitcoin.silentPayments,
            silentPaymentLabels: bitcoin.spLabels)
    }

    private func silentPaymentWatch(_ keys: SilentPaymentKeys) throws -> SilentPaymentWatch {
        guard C.silentPaymentsOnMain || network.coin.testnet else {
            throw DerivationError.unsupported("silent payments (BIP352) are Bitcoin's; on Litecoin only its test networks, for tests")
        }
        return try SilentPaymentWatch(keys: keys, labels: Array(0...silentPaymentLabels), testnet: network.coin.testnet)
    }

    public var keyRecordFields: String {
        "a BIP39 mnemonic or seed, an account's extended public key (xpub, ypub, zpub, …), \"descriptors\", or a silent payment receiver's sp_scan_key and sp_spend_public_key"
    }
    public var blockSources: String { "--blocks FILE (JSON Lines of raw blocks)" }
    public var notThisChain: String { "is not a \(C.name) wallet: give a BIP39 phrase or seed, an extended public key or descriptors" }

    public func wallet(entry: KeyStoreEntry, name: String) throws -> (scanner: BitcoinScanner<C>, birthday: Int?) {
        guard case .bip32(let key, let origin, let fromSeed) = try KeyStoreRecords.keySource(entry, bip39Passphrase: nil) else {
            throw DerivationError.unsupported("entry '\(name)' \(notThisChain)")
        }
        return (try scanner(key, origin: origin, fromSeed: fromSeed, purpose: nil), entry.metadata.birthdays[C.coin])
    }

    public func wallet(record: JSONObject) throws -> BitcoinScanner<C>? {
        if let (keys, descriptor) = try SilentPaymentDescriptor.receiver(
            descriptorField: record["descriptor"]?.stringValue, scanKeyHex: try record.optionalString(SilentPaymentKeys.scanKeyField),
            spendPublicKeyHex: try record.optionalString(SilentPaymentKeys.spendPublicKeyField))
        {
            if let descriptor, descriptor.testnet != network.coin.testnet {
                throw DerivationError.unsupported(
                    "the sp() descriptor is for \(descriptor.testnet ? "a test" : "the main") network, not \(C.name) \(network.coin.network)"
                )
            }
            return BitcoinScanner(silentPayments: try silentPaymentWatch(keys), network: network)
        }
        if record["descriptors"] != nil || record["descriptor"] != nil {
            let texts: [String]
            if case .array(let items)? = record["descriptors"] {
                texts = try items.map { item in
                    guard case .string(let text) = item else {
                        throw RecordError.wrongType(field: "descriptors", expected: "a list of strings", got: item.typeName)
                    }
                    return text
                }
            } else {
                texts = [try record.string(record["descriptor"] != nil ? "descriptor" : "descriptors", expected: "a descriptor")]
            }
            let accounts = try texts.map { text in
                // Never quoted by AccountDescriptor's errors: it holds the scan private key.
                guard !SilentPaymentDescriptor.isClaimed(text) else {
                    throw DerivationError.unsupported("an sp() descriptor is a wallet of its own: give it alone, as \"descriptor\"")
                }
                return try checked(WatchAccount(try AccountDescriptor(parsing: text)))
            }
            return try BitcoinScanner(accounts: accounts, network: network, discovery: discovery)
        }
        var scratch = record
        guard
            case .bip32(let key, let origin, let fromSeed) = try RecordKeys(coin: C.coin, accountPath: nil, sharedPassphrase: nil).source(
                record, out: &scratch)
        else {
            return nil
        }
        let purpose = try record.optionalInt("purpose", in: 0...Int(Int32.max)).map(UInt32.init)
        return try scanner(key, origin: origin, fromSeed: fromSeed, purpose: purpose)
    }

    /// A seed's master key (discovery), or one account's key.
    func scanner(_ key: ExtendedKey, origin: DerivationPath?, fromSeed: Bool, purpose: UInt32?) throws -> BitcoinScanner<C> {
        if fromSeed {
            let sp =
                try silentPayments
                ? silentPaymentWatch(SilentPaymentKeys(root: key, coinType: network.coin.testnet ? 1 : 0, account: 0)) : nil
            return BitcoinScanner(master: key, network: network, coinType: coinType, discovery: discovery, silentPayments: sp)
        }
        let implied = key.version.impliedScript
        let asked = try purpose.map { number throws(DerivationError) -> ScriptKind in
            guard let kind = ScriptKind.forPurpose(number) else { throw .unsupported("purpose \(number) is not 44, 49, 84 or 86") }
            return kind
        }
        if let asked, let implied, asked != implied {
            throw DerivationError.unsupported(
                "a \(key.version.publicPrefix) key is for \(implied.rawValue) (purpose \(implied.purpose)), not purpose \(asked.purpose)")
        }
        guard let script = implied ?? asked else {
            throw DerivationError.unsupported(
                "an \(key.version.publicPrefix) key does not say which addresses it makes: give \"purpose\" (44 or 86) beside it, or a descriptor (pkh(…) or tr(…))"
            )
        }
        guard key.depth > 0 else {
            throw DerivationError.unsupported("a master key is not an account key: give the seed, or the account's extended public key")
        }
        let number = (origin?.components.last ?? key.childNumber) & ~DerivationPath.hardened
        return try BitcoinScanner(
            accounts: [try checked(WatchAccount(script: script, number: number, path: origin, key: key))],
            network: network, discovery: discovery)
    }

    /// An account key of the right network, for a script kind the chain has.
    func checked(_ account: WatchAccount) throws -> WatchAccount {
        guard account.key.version.testnet == network.coin.testnet else {
            throw DerivationError.unsupported(
                "the extended key is for \(account.key.version.testnet ? "a test" : "the main") network, not \(C.name) \(network.coin.network)"
            )
        }
        guard network.coin.scripts.contains(account.script) else {
            throw DerivationError.unsupported("\(C.name) has no \(account.script.rawValue) addresses")
        }
        return account
    }
}

/// scan-blocks' options for --chain bitcoin and litecoin.
public struct BitcoinScanOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "--chain bitcoin|litecoin: unused addresses watched past the last used one on each chain (BIP44: 20).", valueName: "n"))
    public var gapLimit: UInt32 = 20

    @Option(
        help: ArgumentHelp(
            "--chain bitcoin|litecoin: the SLIP-44 coin type a seed's accounts use (default 0 Bitcoin, 2 Litecoin, 1 on test networks).",
            valueName: "n"))
    public var coinType: UInt32?

    @Option(
        help: ArgumentHelp(
            "--chain bitcoin|litecoin with --blocks: mempool transactions, JSON Lines of txid and hex (and spent, as blocks; plain or zstd).",
            valueName: "file"))
    public var mempool: String?

    @Option(
        help: ArgumentHelp(
            "--chain bitcoin|litecoin with --node: the node's RPC cookie (default ~/.bitcoin/.cookie, ~/.litecoin/.cookie, in the network's directory).",
            valueName: "file"))
    public var rpcCookie: String?

    @Option(
        help: ArgumentHelp(
            "--chain bitcoin|litecoin with --node: a file (mode 0600) holding user:password for the node's RPC.", valueName: "file"))
    public var rpcCredentials: String?

    @Flag(
        help:
            "--chain bitcoin|litecoin: also scan a seed's BIP352 silent payment address (m/352'/coin'/0'); needs what each input spends (blk and rev files, the node, or records with \"spent\")."
    )
    public var silentPayments = false

    @Option(
        help: ArgumentHelp(
            "With silent payments: look for labels 1 to n as well as change (0). (default: 0)", valueName: "n"))
    public var spLabels: UInt32 = 0

    @Option(
        help: ArgumentHelp(
            "--chain bitcoin|litecoin: scan silent payment receivers in tweak records (JSON Lines, plain or zstd; - is stdin) instead of blocks.",
            valueName: "file"))
    public var tweaks: String?

    @Option(
        help: ArgumentHelp(
            "--chain bitcoin|litecoin with --blocks or --node: append the tweak records of every block scanned to this file (- is stdout, with no wallet); needs --birthday.",
            valueName: "file"))
    public var tweaksOut: String?

    public init() {}

    /// Refuses these options on a chain that is not Bitcoin's family.
    public func refuseGiven() throws {
        if mempool != nil || coinType != nil || gapLimit != 20 || rpcCookie != nil || rpcCredentials != nil || silentPayments
            || spLabels != 0 || tweaks != nil || tweaksOut != nil
        {
            throw ValidationError(
                "--gap-limit, --coin-type, --mempool, --rpc-cookie, --rpc-credentials, --silent-payments, --sp-labels, --tweaks and --tweaks-out go with --chain bitcoin or litecoin"
            )
        }
    }

    func validate<C: BitcoinFamily>(_ chain: C.Type, network: String, node: String?) throws {
        if node != nil && mempool != nil { throw ValidationError("--mempool goes with --blocks: with --node the node's mempool is read") }
        if node == nil && (rpcCookie != nil || rpcCredentials != nil) {
            throw ValidationError("--rpc-cookie and --rpc-credentials go with --node")
        }
        if rpcCookie != nil && rpcCredentials != nil { throw ValidationError("give --rpc-cookie or --rpc-credentials, not both") }
        guard spLabels <= SilentPayment.maxLabel else {
            throw ValidationError(
                "--sp-labels: at most \(SilentPayment.maxLabel) labels are looked for (the highest label derive --label hands out)")
        }
        guard (1...AccountDiscovery.maxGap).contains(gapLimit) else {
            throw ValidationError("--gap-limit must be 1 to \(AccountDiscovery.maxGap)")
        }
        if let coinType, coinType >= DerivationPath.hardened { throw ValidationError("--coin-type must be below 2^31") }
        do throws(DerivationError) {
            _ = try BitcoinNetwork(C.self, network: network)
        } catch {
            throw ValidationError("--network: " + error.message)
        }
    }

    /// --blocks as a source: JSON Lines of raw blocks (with --mempool FILE), or the node's
    /// block files (a blocks directory, or one blk*.dat file), told apart by the first byte.
    public func fileSource(blocks: String?, network: BitcoinNetwork, spentOutputs: Bool = false) throws -> (any BlockSource)? {
        guard let blocks else { return nil }
        var isDirectory: ObjCBool = false
        let exists = blocks != "-" && FileManager.default.fileExists(atPath: blocks, isDirectory: &isDirectory)
        let binary = try exists && !isDirectory.boolValue && ByteStream.firstByte(of: blocks).map { $0 != UInt8(ascii: "{") } == true
        if isDirectory.boolValue || binary {
            if mempool != nil { throw CLIError.usage("--mempool goes with --blocks of JSON Lines; \(blocks) is block files") }
            return try BitcoinBlockFileSource(
                path: blocks, magic: network.magic, proofOfWork: network.proofOfWork, spentOutputs: spentOutputs,
                dialect: network.dialect)
        }
        return try BitcoinRecordSource(path: blocks, mempoolPath: mempool)
    }

    /// How the node's RPC login is read, each time it is needed ("user:password"): from
    /// --rpc-credentials (its owner's alone), --rpc-cookie, or the node's own cookie in its
    /// default data directory. A cookie is read again when the node refuses the last one: the
    /// node writes a new one when it restarts.
    public func credentials(network: BitcoinNetwork) -> @Sendable () throws -> String {
        if let rpcCredentials { return { try Self.login(rpcCredentials, isCookie: false) } }
        if let rpcCookie { return { try Self.login(rpcCookie, isCookie: true) } }
        let file = (ProcessInfo.processInfo.environment["HOME"] ?? "") + "/" + network.nodeDirectory + "/.cookie"
        return {
            guard FileManager.default.fileExists(atPath: file) else {
                throw CLIError.usage(
                    "no RPC login for the node: there is no cookie at \(file); give the node's cookie with --rpc-cookie FILE (in its data directory), or a file of user:password with --rpc-credentials FILE"
                )
            }
            return try Self.login(file, isCookie: true)
        }
    }

    private static func login(_ file: String, isCookie: Bool) throws -> String {
        let secret = try isCookie ? SecretInput.read(groupReadableFile: file) : SecretInput.read(.file(file))
        let text = String(decoding: secret.bytes, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, !text.contains("\n") else {
            throw CLIError.usage("\(file) does not hold one line user:password (as a node's .cookie does)")
        }
        return text
    }
}

/// --chain bitcoin or litecoin: raw blocks from JSON Lines, the node's block files, or its RPC.
public struct BitcoinScanChain<C: BitcoinFamily>: ScanChain {
    public let reader: BitcoinWalletReader<C>
    let options: ScanOptions

    /// What the node's RPC source is made from.
    public struct ServerRequest: Sendable {
        public let address: String
        public let network: BitcoinNetwork
        public let timeout: Double
        /// The node's RPC login ("user:password"), read each time it is needed.
        public let credentials: @Sendable () throws -> String
        /// Whether each block must come with what its inputs spend (silent payments).
        public let spentOutputs: Bool
    }

    public static func claims(_ options: ScanOptions) -> Bool { options.bitcoin.tweaks == nil }

    public static func validate(_ options: ScanOptions) throws {
        let source = options.source
        try options.bitcoin.validate(C.self, network: options.network, node: source.node)
        if options.bitcoin.tweaksOut != nil {
            guard source.blocks != nil || source.node != nil else { throw ValidationError("--tweaks-out goes with --blocks or --node") }
            guard options.hasBirthday else {
                throw ValidationError("--tweaks-out needs --birthday: the first block to write tweak records of (0: all)")
            }
            if options.rescan {
                throw ValidationError(
                    "--rescan with --tweaks-out would append the chain again after what its readers have read: write a new file instead (its state is its own)"
                )
            }
            if options.bitcoin.tweaksOut == "-" && options.namesAWallet {
                throw ValidationError("--tweaks-out - writes the tweak records to stdout: give no wallet (or another file)")
            }
        }
        if source.lightwalletd != nil { throw ValidationError("--lightwalletd is Zcash's; a \(name) node's RPC address goes to --node") }
        if source.txs != nil {
            throw ValidationError("--txs is Monero's and Zcash's; \(name) mempool transactions come with --mempool FILE")
        }
    }

    public init(_ options: ScanOptions) throws {
        reader = try BitcoinWalletReader<C>(options)
        self.options = options
    }

    /// Whether each block must come with what its inputs spend: a wallet scans for silent
    /// payments, or tweak records are written.
    func spentOutputs(_ wallets: [GivenWallet<BitcoinScanner<C>>]) -> Bool {
        options.bitcoin.tweaksOut != nil || wallets.contains { $0.scanner.silentPayments != nil }
    }

    /// --tweaks-out: a keyless pass, its state named by the file, that appends each stored
    /// block's tweak records to it (or to stdout), durably, before its batch commits.
    public func recorders() throws -> [BlockRecorder<BitcoinScanner<C>>] {
        guard let path = options.bitcoin.tweaksOut else { return [] }
        let output = try TweakRecordFile(path)
        return [
            BlockRecorder(
                name: "tweak records", scanner: BitcoinScanner(keyless: "tweak-records " + output.identity, network: reader.network)
            ) {
                stored in
                // input_hash·A of every eligible transaction: on every core, as the parse.
                let parts = ParallelMap.map(stored.map { ($0.height, $0.block) }) { height, block in
                    Result { () throws(ScanError) in try TweakRecords.lines(block, height: height) }
                }
                var bytes = [UInt8]()
                for part in parts { bytes += try part.get() }
                try output.append(bytes)
            }
        ]
    }

    public func fileSource(for wallets: [GivenWallet<BitcoinScanner<C>>]) throws -> (any BlockSource)? {
        try options.bitcoin.fileSource(blocks: options.source.blocks, network: reader.network, spentOutputs: spentOutputs(wallets))
    }

    public func serverRequest(address: String, for wallets: [GivenWallet<BitcoinScanner<C>>]) throws -> ServerRequest {
        ServerRequest(
            address: address, network: reader.network, timeout: options.source.timeout,
            credentials: options.bitcoin.credentials(network: reader.network), spentOutputs: spentOutputs(wallets))
    }
}

/// Its record words are the scanner's own members.
extension BitcoinScanner: ChainRecords {}

/// Where --tweaks-out appends: a file (created 0644: nothing in it is secret), or stdout.
final class TweakRecordFile {
    let stream: WalletRecords.OutputStream
    /// What names its state: the file's device and inode, or "-".
    let identity: String

    init(_ path: String) throws {
        if path == "-" {
            (stream, identity) = (WalletRecords.OutputStream.standardOutput, "-")
            return
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CLIError.writeFailed(reason: "cannot open \(path) to append tweak records: \(String(cString: strerror(errno)))")
        }
        stream = WalletRecords.OutputStream(fd: fd)
        guard let place = stream.filePosition() else {
            close(fd)
            throw CLIError.usage("--tweaks-out \(path) is not a regular file: give a file, or - for stdout")
        }
        identity = "\(place.device):\(place.inode)"
    }

    deinit { if identity != "-" { close(stream.fd) } }

    /// Whole blocks in one write, synced.
    func append(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        try stream.write(bytes)
        try stream.sync()
    }
}
