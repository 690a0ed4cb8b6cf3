// bitcoin-bench sp-tweak-records [n [rounds]]: tweak records (scan-blocks --tweaks-out, --tweaks)
// of n realistic eligible transactions in blocks of 250 (1-2 inputs of mixed kinds, P2WPKH, P2TR
// key path and P2PKH; two taproot outputs; one in a hundred pays the receiver), beside the
// reference measured in the same run: the same receiver scanning the same blocks with their
// spent outputs, as a node's own scan does (parse, tweak data, scan). Each round: the blocks'
// records written (`TweakRecords.lines`); the records read back through `TweakRecordSource`,
// parsed and scanned by one receiver; the records' JSON alone parsed (the floor of any reader);
// the blocks scanned. One JSON line per measurement, then the bytes written per block and per
// record; the round medians and their ratios in the last line.
#if canImport(Glibc)
    import Glibc
#endif
import BenchSupport
import Bitcoin
import BitcoinScan
import Foundation
import WalletCore
import WalletCrypto
import WalletScan

func tweakRecordBench(transactions count: Int, rounds: Int) throws {
    let secret = randomSecret
    let keys = try SilentPaymentKeys(scanPrivateKey: secret(), spendPublicKey: Secp256k1.publicKey(of: secret()))
    let address = try keys.address(testnet: true)
    let network = try BitcoinNetwork(BitcoinMainChain.self, network: "regtest")
    func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    func compact(_ n: Int) -> [UInt8] { n < 0xFD ? [UInt8(n)] : [0xFD, UInt8(n & 0xFF), UInt8(n >> 8)] }

    // The blocks, raw, with each input's spent script.
    let perBlock = 250
    var blocks = [BlockData](), parent = [UInt8](repeating: 0, count: 32), paying = 0
    for height in 0..<((count + perBlock - 1) / perBlock) {
        let coinbase =
            le(UInt32(2)) + [1] + [UInt8](repeating: 0, count: 32) + le(UInt32.max) + [5, 3] + le(UInt32(height)).prefix(3) + [0x51]
            + le(UInt32.max) + [1] + le(UInt64(50)) + [1, 0x51] + le(UInt32(0))
        var raw: [(stripped: [UInt8], full: [UInt8])] = [(coinbase, coinbase)], spent: [[UInt8]] = []
        for t in height * perBlock..<min(count, (height + 1) * perBlock) {
            var inputs = [SilentPaymentInput](), senderKeys = [SilentPaymentSender.InputKey]()
            var witnesses = [[UInt8]]()
            for i in 0..<(1 + t % 2) {
                let key = secret()
                let point = try Secp256k1.publicKey(of: key)
                let outpoint = Bitcoin.outpoint(Hash.sha256(Array("tweak bench \(t) \(i)".utf8)), UInt32(i))
                let signature = [UInt8](repeating: 0x30, count: 71)
                switch (t + i) % 3 {
                case 0:
                    inputs.append(
                        .init(outpoint: outpoint, scriptSig: [], witness: [], spentScript: ScriptTemplate.p2wpkh(point.compressed)))
                    witnesses.append([2] + compact(71) + signature + compact(33) + point.compressed)
                    senderKeys.append(.init(key: key, taproot: false))
                case 1:
                    inputs.append(.init(outpoint: outpoint, scriptSig: [], witness: [], spentScript: [0x51, 0x20] + point.xOnly))
                    witnesses.append([1] + compact(64) + [UInt8](repeating: 1, count: 64))
                    senderKeys.append(.init(key: key, taproot: true))
                default:
                    inputs.append(
                        .init(
                            outpoint: outpoint, scriptSig: Script.push(signature) + Script.push(point.compressed), witness: [],
                            spentScript: ScriptTemplate.p2pkh(Hash.hash160(point.compressed))))
                    witnesses.append([0])
                    senderKeys.append(.init(key: key, taproot: false))
                }
            }
            var outputs = [try Secp256k1.publicKey(of: secret()).xOnly, try Secp256k1.publicKey(of: secret()).xOnly]
            if t % 100 == 0 {
                outputs[1] = try SilentPaymentSender.outputs(inputs: senderKeys, outpoints: inputs.map(\.outpoint), recipients: [address])[
                    0]
                paying += 1
            }
            var body = compact(inputs.count)
            for input in inputs { body += input.outpoint + compact(input.scriptSig.count) + input.scriptSig + le(UInt32.max) }
            body += compact(outputs.count)
            for (i, key) in outputs.enumerated() { body += le(UInt64(10_000 + i)) + [34, 0x51, 0x20] + key }
            let stripped = le(UInt32(2)) + body + le(UInt32(0))
            let witnessed = witnesses.contains { $0 != [0] }
            raw.append((stripped, witnessed ? le(UInt32(2)) + [0, 1] + body + witnesses.flatMap { $0 } + le(UInt32(0)) : stripped))
            spent += inputs.map(\.spentScript)
        }
        let ids = raw.map { Bitcoin.sha256d($0.stripped) }
        let header =
            le(UInt32(4)) + parent + Bitcoin.merkleRoot(ids).root + le(UInt32(1_700_000_000 + height)) + le(UInt32(0x207F_FFFF))
            + le(UInt32(height))
        parent = Bitcoin.sha256d(header)
        blocks.append(
            BlockData(
                height: height, blob: header + compact(raw.count) + raw.flatMap(\.full), transactions: [], claimedID: parent, spent: spent))
    }
    let watch = try SilentPaymentWatch(keys: keys, labels: [0], testnet: true)
    let direct = BitcoinScanner<BitcoinMainChain>(silentPayments: watch, network: network)
    let reader = try SilentPaymentTweakScanner(direct)
    let parsed = try blocks.map { try BitcoinScanner<BitcoinMainChain>.parse($0).get() }
    var file = [UInt8]()
    for (block, data) in zip(parsed, blocks) { file += try TweakRecords.lines(block, height: data.height) }
    let path = NSTemporaryDirectory() + "satchel-tweak-bench-\(getpid()).jsonl"
    FileManager.default.createFile(atPath: path, contents: Data(file))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let lines = file.split(separator: 0x0A).map(Array.init)

    // Both ways find the same payments, and all of them.
    var foundDirect = 0, foundRecords = 0
    for block in parsed { foundDirect += try direct.scan(block.transactions).joined().count }
    let read = try TweakRecordSource(path: path).blocks(from: 0, count: blocks.count)
    for data in read {
        foundRecords += try reader.scan(try SilentPaymentTweakScanner<BitcoinMainChain>.parse(data).get().transactions).joined().count
    }
    guard foundDirect == paying, foundRecords == paying, read.count == blocks.count, lines.count == blocks.count + count else {
        throw ScanError.malformed(what: "the benchmark", reason: "found \(foundDirect) and \(foundRecords) of \(paying) payments")
    }

    var rounds_ = InterleavedRounds()
    rounds_.add("sp_tweak_records_write", iterations: 1, operations: count) { _ in
        var bytes = 0
        for (block, data) in zip(parsed, blocks) { bytes += try TweakRecords.lines(block, height: data.height).count }
        precondition(bytes == file.count)
    }
    rounds_.add("sp_tweak_records_read_and_scan", iterations: 1, operations: count) { _ in
        let source = try TweakRecordSource(path: path)
        var found = 0
        for data in try source.blocks(from: 0, count: blocks.count) {
            found += try reader.scan(try SilentPaymentTweakScanner<BitcoinMainChain>.parse(data).get().transactions).joined().count
        }
        precondition(found == paying)
    }
    rounds_.add("sp_tweak_records_read_only", iterations: 1, operations: count) { _ in
        let source = try TweakRecordSource(path: path)
        var transactions = 0
        for data in try source.blocks(from: 0, count: blocks.count) {
            transactions += try SilentPaymentTweakScanner<BitcoinMainChain>.parse(data).get().transactions.count
        }
        precondition(transactions == count)
    }
    rounds_.add("sp_tweak_records_json_floor", iterations: 1, operations: count) { _ in
        for line in lines { _ = try JSONParser.parseObject(line) }
    }
    rounds_.add("sp_blocks_parse_and_scan", iterations: 1, operations: count) { _ in
        var found = 0
        for data in blocks {
            found += try direct.scan(try BitcoinScanner<BitcoinMainChain>.parse(data).get().transactions).joined().count
        }
        precondition(found == paying)
    }
    try rounds_.run(rounds: rounds)
    let headerBytes = lines.filter { $0.starts(with: Array(#"{"type":"sp_block""#.utf8)) }.reduce(0) { $0 + $1.count + 1 }
    print(
        #"{"bench":"sp_tweak_records_size","transactions":\#(count),"blocks":\#(blocks.count),"bytes":\#(file.count),"bytes_per_block_record":\#(headerBytes / blocks.count),"bytes_per_tweak_record":\#((file.count - headerBytes) / count),"outputs_per_transaction":2}"#
    )
}
