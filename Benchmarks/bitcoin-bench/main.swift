// bitcoin-bench: a full mainnet block (702861: 1.38 MB, 2,500 transactions) parsed, checked
// (txids, wtxids, merkle root, witness commitment) and matched against 1,000 watched scripts,
// beside the reference measured in the same run: SHA256d over each of its transactions (OpenSSL's
// low-level SHA-256, which picks SHA-NI, AVX2 or plain code at run time), the hashing no scanner
// can skip. Beside it: the same hashing with the parser's own code (CSHA256: eight AVX-512VL
// lanes, two SHA-NI streams or OpenSSL, as SATCHEL_SHA or the CPU chooses), and with
// libsodium's plain C. One JSON
// line per measurement; bench/bitcoin_scan.py adds the block-file throughput and prints ratios.
#if canImport(Glibc)
    import Glibc
#endif
import BenchSupport
import Bitcoin
import BitcoinScan
import COpenSSL
import CSHA256
import Foundation
import WalletCore
import WalletScan
import WalletCrypto

let arguments = CommandLine.arguments
// `bitcoin-bench psbt [inputs]`: PSBT signing against libsecp256k1's loop (PSBTBench.swift).
// `bitcoin-bench silent-payments [n [rounds]]`: BIP352 scanning against libsecp256k1 (SilentPaymentBench.swift).
// `bitcoin-bench --oracle N`: the secp256k1 kernel against libsecp256k1 (Secp256k1Oracle.swift).
if arguments.count == 3 && arguments[1] == "--oracle", let cases = Int(arguments[2]) {
    exit(try secp256k1Oracle(cases: cases) ? 0 : 1)
}
if arguments.count >= 2 && arguments[1] == "silent-payments" {
    try silentPaymentBench(
        transactions: arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000, rounds: arguments.count > 3 ? Int(arguments[3]) ?? 7 : 7)
    exit(0)
}
// `bitcoin-bench sp-tweak-records [n [rounds]]`: tweak records written, read and scanned,
// against a scan of the blocks themselves (TweakRecordBench.swift).
if arguments.count >= 2 && arguments[1] == "sp-tweak-records" {
    try tweakRecordBench(
        transactions: arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000, rounds: arguments.count > 3 ? Int(arguments[3]) ?? 7 : 7)
    exit(0)
}
// `bitcoin-bench sp-labels`: what each label of --sp-labels costs the scan (LabelBench.swift).
if arguments.count == 2 && arguments[1] == "sp-labels" {
    try labelBench()
    exit(0)
}
if arguments.count >= 2 && arguments[1] == "psbt" {
    try psbtBench(inputs: arguments.count > 2 ? Int(arguments[2]) ?? 100 : 100)
    exit(0)
}
// `bitcoin-bench BLOCK --reference-only`: the SHA256d reference alone (bench/bitcoin_scan.py
// takes it again each round, beside the end-to-end scans).
let referenceOnly = arguments.count == 3 && arguments[2] == "--reference-only"
guard arguments.count == 2 || referenceOnly, let data = FileManager.default.contents(atPath: arguments[1]) else {
    let message = "bitcoin-bench: give the path of a raw mainnet block (block702861.raw)\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(64)
}
let block = Array(data)
let ranges = try Bitcoin.transactionRanges(block)

/// SHA256d with OpenSSL's low-level SHA-256 (the reference) over part of the block: no
/// allocation, no EVP context, so that what is timed is the hashing.
func opensslSHA256d(_ base: UnsafePointer<UInt8>, _ range: Range<Int>) -> UInt8 {
    var context = SHA256_CTX()
    var first = (UInt64(0), UInt64(0), UInt64(0), UInt64(0)), second = first
    return withUnsafeMutableBytes(of: &first) { f in
        withUnsafeMutableBytes(of: &second) { s in
            SHA256_Init(&context)
            SHA256_Update(&context, base + range.lowerBound, range.count)
            SHA256_Final(f.baseAddress!.assumingMemoryBound(to: UInt8.self), &context)
            SHA256_Init(&context)
            SHA256_Update(&context, f.baseAddress!, 32)
            SHA256_Final(s.baseAddress!.assumingMemoryBound(to: UInt8.self), &context)
            return s[0]
        }
    }
}

// 1,000 watched scripts: 998 random P2WPKH and P2PKH scripts, and two that the block pays.
var generator = SystemRandomNumberGenerator()
var watched = Set<[UInt8]>()
while watched.count < 998 {
    let hash = (0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) }
    watched.insert(watched.count.isMultiple(of: 2) ? [0x00, 0x14] + hash : [0x76, 0xA9, 0x14] + hash + [0x88, 0xAC])
}
let parsed = try Bitcoin.parseBlock(block, what: "block 702861")
for tx in parsed.transactions.prefix(40) where watched.count < 1_000 { watched.insert(tx.outputs[0].script) }
let owned = Set(parsed.transactions.suffix(10).map { Bitcoin.outpoint($0.inputs[0].previousTxID, $0.inputs[0].previousIndex) })

let watchedKeys = FilteredByteSet(watched), ownedKeys = FilteredByteSet(owned)
var sink = 0
let rounds = 40
report(
    "btc_txs_sha256d_openssl",
    measure(repeats: 7, count: rounds) { _ in
        block.withUnsafeBufferPointer { b in for range in ranges { sink &+= Int(opensslSHA256d(b.baseAddress!, range)) } }
    })
if referenceOnly { exit(sink == -1 ? 1 : 0) }
report(
    "btc_txs_sha256d_libsodium",
    measure(repeats: 7, count: rounds) { _ in
        block.withUnsafeBytes { b in
            for range in ranges { sink &+= Int(Hash.sha256(Hash.sha256(UnsafeRawBufferPointer(rebasing: b[range])))[0]) }
        }
    })
// The same hashing with Satchel's code on the path that runs (what the parser uses), for comparison.
report(
    "btc_txs_sha256d_satchel",
    measure(repeats: 7, count: rounds) { _ in
        block.withUnsafeBufferPointer { b in
            let messages = ranges.map { r in
                satchel_sha_message(data: (b.baseAddress! + r.lowerBound, nil, nil, nil), size: (r.count, 0, 0, 0), count: 1)
            }
            var out = [UInt8](repeating: 0, count: 32 * messages.count)
            satchel_sha256d_many(messages, messages.count, &out)
            sink &+= Int(out[0])
        }
    })
// What scan-blocks does with each block: parse, check the txids' merkle root, match.
report(
    "btc_block_parse_match",
    try measure(repeats: 7, count: rounds) { _ in
        let parsedBlock = try Bitcoin.parseBlock(block, what: "block 702861", verifyWitness: false)
        let found = parsedBlock.findings(watching: watchedKeys, owned: ownedKeys)
        sink &+= found.received.count + found.spent.count
    })
report(
    "btc_block_parse",
    try measure(repeats: 7, count: rounds) { _ in
        sink &+= try Bitcoin.parseBlock(block, what: "block 702861", verifyWitness: false).transactions.count
    })
// The same parse with the BIP141 witness commitment checked too: every wtxid hashed, a second tree.
report(
    "btc_block_parse_verify_witness",
    try measure(repeats: 7, count: rounds) { _ in
        sink &+= try Bitcoin.parseBlock(block, what: "block 702861", verifyWitness: true).transactions.count
    })
let found = parsed.findings(watching: watched, owned: owned)
let path = ["portable", "shani", "avx512"][Int(satchel_sha256_path())]
print(
    #"{"bench":"btc_block_facts","sha256_path":"\#(path)","transactions":\#(ranges.count),"bytes":\#(block.count),"watched":\#(watched.count),"received":\#(found.received.count),"spent":\#(found.spent.count),"sink":\#(sink & 1)}"#
)
