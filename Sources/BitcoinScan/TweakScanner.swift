import Bitcoin
import WalletCore
import WalletCrypto
import WalletKeys
import WalletScan

/// A silent payment receiver scanning tweak records (`TweakRecords`) instead of blocks: the
/// scan key alone, no spent outputs. It finds what `BitcoinScanner` finds in the same blocks
/// with the same receiver, in the same words (its records are the receiver's scanner's), but
/// the records hold no inputs: spends of its outputs are not seen, and its balance says so
/// (`spendsKnown` false). Its state is its own, apart from a scan of the blocks themselves.
public struct SilentPaymentTweakScanner<C: BitcoinFamily>: ChainScanner {
    public typealias Block = TweakBlock

    /// The same receiver's scanner over blocks: its keys, and the words of its records.
    public let blockScanner: BitcoinScanner<C>
    let watch: SilentPaymentWatch

    /// Throws when `blockScanner` scans no silent payment address.
    public init(_ blockScanner: BitcoinScanner<C>) throws(DerivationError) {
        guard let watch = blockScanner.silentPayments else {
            throw .unsupported(
                "tweak records hold silent payments alone: give a silent payment receiver (sp_scan_key and sp_spend_public_key, an sp() descriptor, or a seed with --silent-payments)"
            )
        }
        (self.blockScanner, self.watch) = (blockScanner, watch)
    }

    private var identity: [UInt8] { Array("tweak-records".utf8) + watch.identity }
    public var stateID: String { Hex.encode(Hash.sha256(identity).prefix(16)) }
    public var stateName: String {
        let network = blockScanner.network.coin.network
        return "\(C.name)-\(network)-tweaks-" + Hex.encode(Hash.sha256(identity + Array(network.utf8)).prefix(12))
    }
    /// The records carry no inputs.
    public var spendsKnown: Bool { false }

    public static func parse(_ data: BlockData) -> Result<TweakBlock, ScanError> { TweakBlock.parse(data) }
    /// Tweak records have no mempool.
    public static func parseTransaction(_ blob: [UInt8]) -> TweakTransaction? { nil }

    public static func isUnlocked(_ output: ReceivedOutput, walletHeight: Int, now: UInt64) -> Bool {
        BitcoinScanner<C>.isUnlocked(output, walletHeight: walletHeight, now: now)
    }

    public mutating func prepare(cached: [AddressEntry]) throws {}
    public mutating func takeNewAddresses() -> [AddressEntry] { [] }
    public mutating func noteStored(_ output: ReceivedOutput) throws -> Bool { false }
    public func asChange(_ output: ReceivedOutput) -> ReceivedOutput { blockScanner.asChange(output) }

    /// b_scan·T for every record at once, then as `BitcoinScanner` scans a block.
    public func scan(_ transactions: [TweakTransaction]) throws(ScanError) -> [[ReceivedOutput]] {
        let secrets = try? watch.receiver.sharedSecrets(tweakPoints: transactions.map(\.tweak))
        return watch.received(in: transactions.map { ($0.id, $0.outputs) }, secrets: secrets)
    }
}
