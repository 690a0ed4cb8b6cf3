import Foundation
import WalletCore
import WalletScan
import WalletRecords
import KeySources

/// scan-blocks' run over any chain: the Wallet Initializer (state, birthdays, locks), the
/// synchronizer, events to stdout, and --follow's polling.
public struct ScanRun {
    /// --birthday: the first height for every wallet.
    public var birthday: Int?
    public var stateDirectory: String?
    /// Forget what was scanned and start again from the birthday.
    public var rescan = false
    public var maxReorgDepth = 1_000
    /// Poll for new blocks every `interval` seconds until stopped.
    public var follow = false
    public var interval: Double = 30
    public var untilHeight: Int?
    public var maxBlocks: Int?
    /// Progress on stderr: auto, jsonl or none.
    public var progress = "auto"

    public init() {}

    /// Scans `wallets` over `source`; a failure is the pipeline's error record and exit status.
    /// What a pass could not read (mempool transactions, parts of blocks) is said on stderr,
    /// block parts once per run.
    public func synchronize<R: ScanWalletReader>(
        _ pipeline: RecordPipeline, reader: R, wallets given: [GivenWallet<R.Scanner>],
        recorders: [BlockRecorder<R.Scanner>] = [], source: (any BlockSource)?
    ) throws {
        typealias C = R.Scanner
        do {
            var initializer = WalletInitializer(birthday: birthday, stateDirectory: stateDirectory, source: source)
            initializer.chainWords = .init(keyRecordFields: reader.keyRecordFields, blockSources: reader.blockSources)
            initializer.wallets =
                given.map { WalletInitializer.Wallet(name: $0.name, stateName: $0.scanner.stateName, birthday: $0.birthday) }
                + recorders.map { WalletInitializer.Wallet(name: $0.name, stateName: $0.scanner.stateName, birthday: nil) }
            let resolved = try initializer.resolve()
            let locks = try resolved.lock()
            defer { locks.release() }

            let scanners = given.map { ($0.scanner, nil) } + recorders.map { ($0.scanner, Optional($0.record)) }
            let sync = try Synchronizer<C>(
                wallets: zip(resolved.wallets, scanners).map { resolved, scanner in
                    var wallet = Synchronizer<C>.Wallet(
                        name: resolved.name, scanner: scanner.0, statePath: resolved.statePath, birthday: resolved.birthday)
                    wallet.stored = scanner.1
                    return wallet
                },
                source: resolved.source)
            sync.maxReorgDepth = maxReorgDepth
            sync.rampsUp = true
            if rescan { try sync.resetToBirthday() }
            let books = Dictionary(uniqueKeysWithValues: given.map { ($0.name ?? "", AddressBook(scanner: $0.scanner)) })
            let shown = StandardOutputSink(pipeline: pipeline, progress: progress, balanceOnChange: follow) { event, wallet in
                EventRecords.record(event, chain: C.self, wallet: wallet, addresses: books[wallet ?? ""]!)
            }
            let sink: any EventSink = recorders.isEmpty ? shown : UnshownSink(shown, hiding: Set(recorders.map(\.name)))
            var toldUnread = false
            repeat {
                try sync.run(untilHeight: untilHeight, maxBlocks: maxBlocks, sink: sink)
                if sync.unreadBlockParts > 0, !toldUnread {
                    pipeline.warn(reader.unreadNotice(sync.unreadBlockParts))
                    toldUnread = true
                }
                if sync.mempoolUnread > 0 {
                    let n = sync.mempoolUnread
                    pipeline.warn(
                        "\(n) mempool transaction\(n == 1 ? "" : "s") did not parse and \(n == 1 ? "was" : "were") not read: a pending payment or spend among them is not shown"
                    )
                }
                if sync.mempoolUnseen > 0 {
                    let n = sync.mempoolUnseen
                    pipeline.warn(
                        "\(n) mempool transaction\(n == 1 ? "" : "s") came without what \(n == 1 ? "its" : "their") inputs spend: a silent payment in \(n == 1 ? "it" : "them") is not shown until mined (give \"spent\" in --mempool records)"
                    )
                }
                try pipeline.flush()
                if follow { Thread.sleep(forTimeInterval: interval) }
            } while follow
            shown.endProgress()
            try pipeline.flush()
        } catch let error as any WalletError {
            try pipeline.fail(error).exitIfFailed()
        }
    }
}

/// A sink that writes and shows nothing of some passes (recorders: a balance of no keys, or
/// the reorg they followed, means nothing to the wallets' reader).
final class UnshownSink: EventSink {
    let inner: StandardOutputSink
    let hidden: Set<String>

    init(_ inner: StandardOutputSink, hiding hidden: Set<String>) { (self.inner, self.hidden) = (inner, hidden) }

    func encode(_ event: ScanEvent, wallet: String?, id: Int64) -> [UInt8] {
        guard let wallet, hidden.contains(wallet) else { return inner.encode(event, wallet: wallet, id: id) }
        if case .reorg(let fork, _, _) = event {
            inner.pipeline.warn("\(wallet): the chain changed after block \(fork): its new branch is written from block \(fork + 1) on")
        }
        return []
    }
    func write(_ bytes: [UInt8]) throws { try inner.write(bytes) }
    func position() throws -> SinkPosition? { try inner.position() }
    func contents(at position: SinkPosition, count: Int) throws -> (bytes: [UInt8], end: Int64)? {
        try inner.contents(at: position, count: count)
    }

    func show(_ event: ScanEvent, wallet: String?) throws {
        if let wallet, hidden.contains(wallet) { return }
        try inner.show(event, wallet: wallet)
    }
}
