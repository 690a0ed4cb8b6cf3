import ArgumentParser
import Bitcoin
import BitcoinScan
import WalletCore
import WalletKeyStore
import WalletScan

/// --chain bitcoin or litecoin with --tweaks: silent payment receivers scanned in tweak
/// records, with the scan key alone.
public struct TweakScanChain<C: BitcoinFamily>: ScanChain {
    public typealias ServerRequest = Never
    public let reader: TweakWalletReader<C>
    let path: String

    public static func claims(_ options: ScanOptions) -> Bool { options.bitcoin.tweaks != nil }

    public static func validate(_ options: ScanOptions) throws {
        let source = options.source, bitcoin = options.bitcoin
        if source.blocks != nil || source.node != nil || source.lightwalletd != nil || source.txs != nil || bitcoin.mempool != nil {
            throw ValidationError("--tweaks is the block source: give no --blocks, --node, --txs or --mempool beside it")
        }
        if bitcoin.tweaksOut != nil {
            throw ValidationError("--tweaks-out writes what --blocks or --node give; --tweaks reads such records")
        }
        if bitcoin.tweaks == "-" && !options.namesAWallet {
            throw ValidationError(
                "--tweaks - reads the records from stdin: give the wallet with --wallet, --wallets, --key-file or --key-fd")
        }
        try bitcoin.validate(C.self, network: options.network, node: nil)
    }

    public init(_ options: ScanOptions) throws {
        reader = TweakWalletReader(blocks: try BitcoinWalletReader<C>(options))
        path = options.bitcoin.tweaks!
    }

    public func fileSource(for wallets: [GivenWallet<SilentPaymentTweakScanner<C>>]) throws -> (any BlockSource)? {
        try TweakRecordSource(path: path)
    }

    public func serverRequest(address: String, for wallets: [GivenWallet<SilentPaymentTweakScanner<C>>]) throws -> Never {
        throw ValidationError("--tweaks is the block source")
    }
}

/// The wallets a tweak-record scan takes: those `BitcoinWalletReader` reads, as their silent
/// payment receivers (a seed's with --silent-payments); a wallet with none is refused.
public struct TweakWalletReader<C: BitcoinFamily>: ScanWalletReader {
    let blocks: BitcoinWalletReader<C>

    public var keyRecordFields: String {
        "a silent payment receiver's sp_scan_key and sp_spend_public_key, an sp() descriptor, or a BIP39 mnemonic or seed with --silent-payments"
    }
    public var blockSources: String { "--tweaks FILE (JSON Lines of tweak records)" }
    public var notThisChain: String { "is not a \(C.name) silent payment receiver: give its sp_scan_key and sp_spend_public_key" }

    public func wallet(entry: KeyStoreEntry, name: String) throws -> (scanner: SilentPaymentTweakScanner<C>, birthday: Int?) {
        let (scanner, birthday) = try blocks.wallet(entry: entry, name: name)
        return (try SilentPaymentTweakScanner(scanner), birthday)
    }

    public func wallet(record: JSONObject) throws -> SilentPaymentTweakScanner<C>? {
        try blocks.wallet(record: record).map { try SilentPaymentTweakScanner($0) }
    }
}

/// Its records are the receiver's over blocks, word for word.
extension SilentPaymentTweakScanner: ChainRecords {
    public static var chainName: String { BitcoinScanner<C>.chainName }
    public static var fieldNames: OutputFieldNames { BitcoinScanner<C>.fieldNames }
    public func address(account: UInt32, index: UInt32) -> String? { blockScanner.address(account: account, index: index) }
    public func addressPaid(_ output: ReceivedOutput) -> String? { blockScanner.addressPaid(output) }
    public static func memoFields(_ memo: [UInt8]) -> [(key: String, value: String)] { BitcoinScanner<C>.memoFields(memo) }
    public static func transactionID(_ id: [UInt8]) -> String { BitcoinScanner<C>.transactionID(id) }
    public func placeFields(account: UInt32, addressIndex: UInt32?) -> [(key: String, value: JSONValue)] {
        blockScanner.placeFields(account: account, addressIndex: addressIndex)
    }
    public static func outputFields(_ output: ReceivedOutput) -> [(key: String, value: JSONValue)] {
        BitcoinScanner<C>.outputFields(output)
    }
    public static func sumFields(total: UInt64, unlocked: UInt64, pending: UInt64) -> [(key: String, value: JSONValue)] {
        BitcoinScanner<C>.sumFields(total: total, unlocked: unlocked, pending: pending)
    }
    public static func reportedHeight(walletHeight: Int) -> Int { BitcoinScanner<C>.reportedHeight(walletHeight: walletHeight) }
}
