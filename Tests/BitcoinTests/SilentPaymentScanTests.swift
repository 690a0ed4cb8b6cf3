import Bitcoin
import Foundation
import SatchelTestSupport
import WalletCore
import WalletKeys
import XCTest

@testable import BitcoinScan
@testable import WalletScan
import WalletCrypto

/// Silent payments through the engine: BIP352's receiving cases made into real transactions
/// (their inputs' scriptSigs and witnesses, their outputs as P2TR scripts), one block each, the
/// blocks' spent scripts beside them; every case's receiver a wallet of one pass.
final class SilentPaymentScanTests: XCTestCase {
    var dir = ""
    let network = try! BitcoinNetwork(BitcoinMainChain.self, network: "regtest")

    override func setUpWithError() throws {
        dir = try temporaryDirectory("spscan")
    }

    struct Case {
        let comment: String
        let keys: SilentPaymentKeys
        let labels: [UInt32]
        let inputs: [SilentPaymentInput]
        /// The serialized witness stack of each input (empty: none).
        let witnesses: [[UInt8]]
        let outputs: [[UInt8]]
        let expected: Int
    }

    private func cases() throws -> [Case] {
        let vectors = try TestPaths.json(TestPaths.vector("bip352/send_and_receive_test_vectors.json")) as! [[String: Any]]
        var out: [Case] = []
        for vector in vectors {
            for receiving in vector["receiving"] as! [[String: Any]] {
                let given = receiving["given"] as! [String: Any], expected = receiving["expected"] as! [String: Any]
                guard expected["n_outputs"] == nil else { continue }  // K_max: VectorTests' alone
                let material = given["key_material"] as! [String: String]
                let spend = SecureBytes(try Hex.decode(material["spend_priv_key"]!))
                let keys = try SilentPaymentKeys(
                    scanPrivateKey: SecureBytes(try Hex.decode(material["scan_priv_key"]!)), spendPublicKey: Secp256k1.publicKey(of: spend))
                let vin = given["vin"] as! [[String: Any]]
                let inputs = try vin.map { v -> SilentPaymentInput in
                    let txid = Array(try Hex.decode(v["txid"] as! String).reversed())
                    let prevout = (v["prevout"] as! [String: Any])["scriptPubKey"] as! [String: Any]
                    return SilentPaymentInput(
                        outpoint: Bitcoin.outpoint(txid, UInt32(v["vout"] as! Int)), scriptSig: try Hex.decode(v["scriptSig"] as! String),
                        witness: [], spentScript: try Hex.decode(prevout["hex"] as! String))
                }
                out.append(
                    Case(
                        comment: vector["comment"] as! String, keys: keys, labels: (given["labels"] as! [Int]).map(UInt32.init),
                        inputs: inputs, witnesses: try vin.map { try Hex.decode($0["txinwitness"] as! String) },
                        outputs: try (given["outputs"] as! [String]).map { try Hex.decode($0) },
                        expected: (expected["outputs"] as! [Any]).count))
            }
        }
        return out
    }

    private func compact(_ n: Int) -> [UInt8] { n < 0xFD ? [UInt8(n)] : [0xFD, UInt8(n & 0xFF), UInt8(n >> 8)] }
    private func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }

    /// The case as a transaction: version 2, its inputs, its outputs as P2TR, witnesses as given;
    /// output i of case n pays 1,000,000 n + 10,000 + i (cases with the same inputs and outputs
    /// are still other transactions).
    private func transaction(_ c: Case, number n: Int) -> (stripped: [UInt8], full: [UInt8]) {
        var body = compact(c.inputs.count)
        for input in c.inputs { body += input.outpoint + compact(input.scriptSig.count) + input.scriptSig + le(UInt32.max) }
        body += compact(c.outputs.count)
        for (i, key) in c.outputs.enumerated() { body += le(UInt64(1_000_000 * n + 10_000 + i)) + [34, 0x51, 0x20] + key }
        let stripped = le(UInt32(2)) + body + le(UInt32(0))
        guard c.witnesses.contains(where: { !$0.isEmpty }) else { return (stripped, stripped) }
        let witness = c.witnesses.flatMap { $0.isEmpty ? [0] : $0 }
        return (stripped, le(UInt32(2)) + [0, 1] + body + witness + le(UInt32(0)))
    }

    /// Block h holds case h − 1 after a coinbase; `spent`: with the spent scripts or without.
    private func blocks(_ cases: [Case], spent: Bool = true) -> (data: [BlockData], txids: [[UInt8]]) {
        var parent = [UInt8](repeating: 0, count: 32)
        var data: [BlockData] = [], txids: [[UInt8]] = []
        for height in 0...cases.count {
            let coinbase =
                le(UInt32(2)) + [1] + [UInt8](repeating: 0, count: 32) + le(UInt32.max) + [5, 3] + le(UInt32(height)).prefix(3) + [0x51]
                + le(UInt32.max) + [1] + le(UInt64(50)) + [1, 0x51] + le(UInt32(0))
            var raw: [(stripped: [UInt8], full: [UInt8])] = [(coinbase, coinbase)]
            if height > 0 { raw.append(transaction(cases[height - 1], number: height - 1)) }
            let ids = raw.map { Bitcoin.sha256d($0.stripped) }
            let header =
                le(UInt32(4)) + parent + Bitcoin.merkleRoot(ids).root + le(UInt32(1_700_000_000 + height)) + le(UInt32(0x207F_FFFF))
                + le(UInt32(height))
            parent = Bitcoin.sha256d(header)
            let scripts = height > 0 ? cases[height - 1].inputs.map(\.spentScript) : []
            data.append(
                BlockData(
                    height: height, blob: header + compact(raw.count) + raw.flatMap(\.full), transactions: [], claimedID: parent,
                    spent: spent ? scripts : nil))
            if height > 0 { txids.append(ids[1]) }
        }
        return (data, txids)
    }

    /// One pass of every case's receiver (wallet "case\(i)") over `source`, its states under `prefix`.
    private func run(
        _ all: [Case], source: MemorySource, prefix: String = ""
    ) throws -> (sync: Synchronizer<BitcoinScanner<BitcoinMainChain>>, sink: Sink) {
        let wallets = try all.enumerated().map { i, c in
            Synchronizer<BitcoinScanner<BitcoinMainChain>>.Wallet(
                name: "case\(i)",
                scanner: BitcoinScanner<BitcoinMainChain>(
                    silentPayments: try SilentPaymentWatch(keys: c.keys, labels: c.labels, testnet: true), network: network),
                statePath: "\(dir)/\(prefix)case\(i).db", birthday: 0)
        }
        let sync = try Synchronizer(wallets: wallets, source: source)
        let sink = Sink()
        try sync.run(sink: sink)
        return (sync, sink)
    }

    /// What the library's receiver of `c` finds in every case's transaction (txid, output,
    /// tweak), from the inputs as the vectors give them.
    private func expected(_ c: Case, among all: [Case]) throws -> Set<[String]> {
        var want = Set<[String]>()
        let receiver = try SilentPaymentReceiver(keys: c.keys, labels: c.labels)
        for (j, other) in all.enumerated() {
            var inputs = other.inputs
            for k in inputs.indices { inputs[k].witness = try stack(other.witnesses[k]) }
            guard let tweak = SilentPaymentTweak(inputs: inputs) else { continue }
            let id = Bitcoin.display(Bitcoin.sha256d(transaction(other, number: j).stripped))
            for hit in try receiver.scan(tweak, outputs: other.outputs) { want.insert([id, String(hit.output), Hex.encode(hit.tweak)]) }
        }
        return want
    }

    /// Every case's receiver finds, in one pass over all the blocks, what the library's receiver
    /// finds in each case's inputs as the vectors give them (which the vector test holds to
    /// BIP352's expected outputs): the block's scriptSigs and witnesses were read right.
    func testEveryReceiverInOnePass() throws {
        let all = try cases()
        XCTAssertEqual(all.count, 28)
        let (data, txids) = blocks(all)
        let (_, sink) = try run(all, source: MemorySource(data))
        var total = 0
        for (i, c) in all.enumerated() {
            let want = try expected(c, among: all)
            // The block's txids are the transactions' own.
            XCTAssertEqual(Set(want.map { $0[0] }).subtracting(txids.map(Bitcoin.display)), [])
            let got = Set(
                sink.events.filter { $0.wallet == "case\(i)" }.compactMap { e -> [String]? in
                    guard case .received(let o, _) = e.event else { return nil }
                    XCTAssertEqual(o.amount, UInt64(1_000_000 * (o.height! - 1) + 10_000 + o.index))
                    return [Bitcoin.display(o.txID), String(o.index), Hex.encode(o.memo ?? [])]
                })
            XCTAssertEqual(got, want, c.comment)
            XCTAssertGreaterThanOrEqual(want.count, c.expected, c.comment)
            total += got.count
        }
        XCTAssertGreaterThanOrEqual(total, 32)
    }

    /// The cases as mempool transactions, read from a --mempool file whose records carry
    /// "spent": each receiver's payments are pending, as the library's receiver finds them.
    /// Without "spent" nothing is found, and the run counts the transactions it could not see.
    func testMempoolTransactionsWithWhatTheySpend() throws {
        let all = try cases()
        let (data, _) = blocks([])
        for withSpent in [true, false] {
            let file = "\(dir)/mempool-\(withSpent).jsonl"
            var lines = [String]()
            for (n, c) in all.enumerated() {
                var record: [String: Any] = [
                    "txid": Bitcoin.display(Bitcoin.sha256d(transaction(c, number: n).stripped)),
                    "hex": Hex.encode(transaction(c, number: n).full),
                ]
                if withSpent { record["spent"] = c.inputs.map { Hex.encode($0.spentScript) } }
                lines.append(String(decoding: try JSONSerialization.data(withJSONObject: record), as: UTF8.self))
            }
            try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let pool = try BitcoinRecords.mempool(file)
            XCTAssertEqual(pool.map { $0.spent == nil }, Array(repeating: !withSpent, count: all.count))
            let (sync, sink) = try run(all, source: MemorySource(data, poolTransactions: pool), prefix: "\(withSpent)-")
            var total = 0
            for (i, c) in all.enumerated() {
                let want = withSpent ? try expected(c, among: all) : []
                let got = Set(
                    sink.events.filter { $0.wallet == "case\(i)" }.compactMap { e -> [String]? in
                        guard case .pending(let o) = e.event else { return nil }
                        return [Bitcoin.display(o.txID), String(o.index), Hex.encode(o.memo ?? [])]
                    })
                XCTAssertEqual(got, want, "\(c.comment) (spent given: \(withSpent))")
                total += got.count
            }
            // Every case pays to taproot outputs: without "spent" each is one the scan could not see.
            XCTAssertEqual(sync.mempoolUnseen, withSpent ? 0 : all.count)
            if withSpent { XCTAssertGreaterThanOrEqual(total, 32) } else { XCTAssertEqual(total, 0) }
        }
    }

    /// Writes the tweak records of `data` as --tweaks-out does: a keyless pass whose stored
    /// blocks are appended to `file` before each batch commits.
    private func writeTweakRecords(_ data: [BlockData], to file: String, state: String) throws {
        if !FileManager.default.fileExists(atPath: file) { FileManager.default.createFile(atPath: file, contents: nil) }
        var writer = Synchronizer<BitcoinScanner<BitcoinMainChain>>.Wallet(
            name: "writer", scanner: BitcoinScanner(keyless: "tweak-records", network: network), statePath: state, birthday: 0)
        writer.stored = { stored in
            let handle = try XCTUnwrap(FileHandle(forWritingAtPath: file))
            defer { try? handle.close() }
            try handle.seekToEnd()
            for (height, block) in stored { try handle.write(contentsOf: Data(try TweakRecords.lines(block, height: height))) }
        }
        try Synchronizer(wallets: [writer], source: MemorySource(data)).run(sink: Sink())
    }

    /// Every case's receiver scanning tweak records of `file`, with its scan key alone.
    private func runOnTweakRecords(_ all: [Case], file: String, prefix: String = "tw-") throws -> Sink {
        let wallets = try all.enumerated().map { i, c in
            Synchronizer<SilentPaymentTweakScanner<BitcoinMainChain>>.Wallet(
                name: "case\(i)",
                scanner: try SilentPaymentTweakScanner(
                    BitcoinScanner<BitcoinMainChain>(
                        silentPayments: try SilentPaymentWatch(keys: c.keys, labels: c.labels, testnet: true), network: network)),
                statePath: "\(dir)/\(prefix)case\(i).db", birthday: 0)
        }
        let sink = Sink()
        try Synchronizer(wallets: wallets, source: TweakRecordSource(path: file)).run(sink: sink)
        return sink
    }

    private func receivedEvents(_ sink: Sink) -> [String] {
        sink.events.compactMap { e in
            guard case .received = e.event else { return nil }
            return "\(e.wallet ?? "") \(e.event)"
        }
    }

    /// Tweak records of the cases' blocks (the vectors' traps among them: inputs that do not
    /// count, keys summing to infinity, no taproot output), written by a keyless pass, then
    /// scanned by every receiver with its scan key alone: the outputs, tweaks, labels and
    /// confirmations of a direct scan of the blocks, event for event. A block is one sp_block
    /// record and one sp_tweak record per transaction with tweak data, no other.
    func testTweakRecordsFindWhatTheBlocksDo() throws {
        let all = try cases()
        let (data, _) = blocks(all)
        let direct = receivedEvents(try run(all, source: MemorySource(data)).sink)
        XCTAssertGreaterThanOrEqual(direct.count, 32)
        let file = "\(dir)/tweaks.jsonl"
        try writeTweakRecords(data, to: file, state: "\(dir)/writer.db")
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let eligible = try all.filter { c in
            var inputs = c.inputs
            for k in inputs.indices { inputs[k].witness = try stack(c.witnesses[k]) }
            return SilentPaymentTweak(inputs: inputs) != nil
        }
        XCTAssertLessThan(eligible.count, all.count)  // traps among them
        XCTAssertEqual(lines.filter { $0["type"] as? String == "sp_block" }.map { $0["height"] as? Int }, (0...all.count).map { $0 })
        XCTAssertEqual(lines.filter { $0["type"] as? String == "sp_tweak" }.count, eligible.count)
        XCTAssertEqual(lines.count, all.count + 1 + eligible.count)
        XCTAssertEqual(receivedEvents(try runOnTweakRecords(all, file: file)), direct)
        // Compressed with zstd, as a server would keep them: the same.
        let zstd = Process()
        zstd.executableURL = URL(fileURLWithPath: "/usr/bin/zstd")
        zstd.arguments = ["-q", "-f", file, "-o", file + ".zst"]
        try zstd.run()
        zstd.waitUntilExit()
        XCTAssertEqual(zstd.terminationStatus, 0)
        XCTAssertEqual(receivedEvents(try runOnTweakRecords(all, file: file + ".zst", prefix: "zst-")), direct)
        // A second writer run finds the state current and writes nothing again.
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int
        try writeTweakRecords(data, to: file, state: "\(dir)/writer.db")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int, size)
    }

    /// A reorg in the records (the branch after block 3 replaced, as a writer that followed the
    /// node's reorg writes it): receivers roll back and read the new branch.
    func testTweakRecordsFollowAReorgByHash() throws {
        let all = try cases()
        let (data, _) = blocks(all)
        let (other, _) = blocks(all.prefix(3) + all.dropFirst(3).reversed())
        XCTAssertEqual(other[3].claimedID, data[3].claimedID)
        XCTAssertNotEqual(other[4].claimedID, data[4].claimedID)
        let file = "\(dir)/reorg.jsonl"
        try writeTweakRecords(Array(data.prefix(10)), to: file, state: "\(dir)/w1.db")
        let first = try runOnTweakRecords(all, file: file, prefix: "r-")
        XCTAssertFalse(first.events.contains { if case .reorg = $0.event { true } else { false } })
        // The new branch from block 4, appended.
        try writeTweakRecords(Array(other.prefix(12)), to: "\(dir)/branch.jsonl", state: "\(dir)/w2.db")
        let branch = try String(contentsOfFile: "\(dir)/branch.jsonl", encoding: .utf8)
        let fromFour = branch.split(separator: "\n", omittingEmptySubsequences: true).drop {
            !($0.hasPrefix(#"{"type":"sp_block","v":1,"height":4,"#))
        }
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: file))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((fromFour.joined(separator: "\n") + "\n").utf8))
        try handle.close()
        let second = try runOnTweakRecords(all, file: file, prefix: "r-")
        XCTAssertTrue(second.events.contains { if case .reorg(forkHeight: 3, _, _) = $0.event { true } else { false } })
        // What the receivers hold is the new branch's: as a direct scan of it.
        let direct = try run(all, source: MemorySource(Array(other.prefix(12))), prefix: "d-").sync
        let tweaks = try runOnTweakRecords(all, file: file, prefix: "r-")
        let balances = { (sink: Sink) in
            sink.events.compactMap { e -> String? in
                guard case .balance(let b) = e.event else { return nil }
                return "\(e.wallet ?? "") \(b.total)"
            }
        }
        let directSink = Sink()
        try direct.run(sink: directSink)
        XCTAssertEqual(balances(tweaks), balances(directSink))
    }

    /// Records that do not hold together are refused, naming the block and what is wrong.
    func testMalformedTweakRecordsAreRefused() throws {
        let all = try cases()
        let (data, _) = blocks(Array(all.prefix(4)))
        let file = "\(dir)/good.jsonl"
        try writeTweakRecords(data, to: file, state: "\(dir)/w.db")
        let good = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
        let tweakLine = try XCTUnwrap(good.firstIndex { $0.contains(#""type":"sp_tweak""#) })
        func refused(_ lines: [String]) throws -> String {
            let path = "\(dir)/bad-\(UUID().uuidString).jsonl"
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            do {
                _ = try runOnTweakRecords([all[0]], file: path, prefix: "bad-\(UUID().uuidString)-")
                return "accepted"
            } catch let error as ScanError { return error.message } catch { return "\(error)" }
        }
        let header = good[tweakLine - 1]
        XCTAssertTrue(
            try refused(Array(good.prefix(tweakLine))).hasSuffix(
                "it ends inside block \(heightOf(header)), after 0 of its 1 tweak records: cut short? (a writer appends whole blocks)"))
        let h = heightOf(header), place = "tweak record 1 of block \(h)"
        for (from, to, message) in [
            (
                #""v":1"#, #""v":2"#,
                "\(place): an sp_tweak record of another version than 1: written by a newer Satchel? Read it with that version"
            ),
            (#""tweak":"0"#, #""tweak":"5"#, "\(place) is malformed: \"tweak\" is not a point of the curve (33 bytes, compressed)"),
            (
                #""height":\#(h)"#, #""height":0"#,
                "\(place) is malformed: its \"height\" and \"block\" are not those of the sp_block record before it"
            ),
        ] {
            var lines = good
            lines[tweakLine] = lines[tweakLine].replacingOccurrences(of: from, with: to)
            XCTAssertNotEqual(lines, good)
            XCTAssertEqual(try refused(lines), message)
        }
        var unknown = good
        unknown[0] = #"{"type":"received","v":1}"#
        XCTAssertTrue(try refused(unknown).hasSuffix(#"line 1 is malformed: expected a tweak record of type "sp_block", found "received""#))
    }

    private func heightOf(_ header: String) -> Int {
        (try? JSONSerialization.jsonObject(with: Data(header.utf8)) as? [String: Any])?["height"] as? Int ?? -1
    }

    /// A silent payment wallet never reads a block without its spent outputs as "nothing here".
    func testABlockWithoutSpentOutputsIsAnError() throws {
        let all = try cases()
        let (data, _) = blocks(Array(all.prefix(2)), spent: false)
        let scanner = BitcoinScanner<BitcoinMainChain>(
            silentPayments: try SilentPaymentWatch(keys: all[0].keys, labels: [], testnet: true), network: network)
        let sync = try Synchronizer(
            wallets: [.init(name: nil, scanner: scanner, statePath: "\(dir)/s.db", birthday: 0)], source: MemorySource(data))
        XCTAssertThrowsError(try sync.run(sink: Sink())) { error in
            guard case .unsupported(let reason)? = error as? ScanError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.hasPrefix("silent payments need what each input spends"), reason)
        }
        // A count that does not match the inputs is refused at the parse.
        let (good, _) = blocks(Array(all.prefix(1)))
        let short = BlockData(height: 1, blob: good[1].blob, transactions: [], claimedID: good[1].claimedID, spent: [])
        guard case .failure(.malformed(_, let reason)) = BitcoinScanner<BitcoinMainChain>.parse(short) else { return XCTFail() }
        XCTAssertEqual(reason, "0 spent outputs given for its 2 inputs (the coinbase's aside)")
    }

    private func stack(_ bytes: [UInt8]) throws -> [[UInt8]] {
        guard !bytes.isEmpty else { return [] }
        var reader = ByteReader(bytes, what: "witness")
        let count = try reader.compactSize(maximum: bytes.count)
        return try (0..<count).map { _ in try reader.take(try reader.compactSize(maximum: bytes.count)) }
    }
}
