#if canImport(Glibc)
    import Glibc
#endif
import Bitcoin
import CSHA256
import WalletCore
import WalletScan

/// A transaction input: the output it spends (txid in internal byte order, vout).
public struct BitcoinInput: Sendable, Equatable {
    /// The outpoint, txid ‖ vout (little-endian), as the block has it: a slice, not a copy.
    public let outpointBytes: ArraySlice<UInt8>

    public var previousTxID: [UInt8] { Array(outpointBytes.prefix(32)) }
    public var previousIndex: UInt32 {
        outpointBytes.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// The outpoint as the engine's spend tag: 36 bytes.
    public var outpoint: [UInt8] { Array(outpointBytes) }
}

/// A transaction output: its value in satoshis and its scriptPubKey.
public struct BitcoinOutput: Sendable, Equatable {
    public let value: UInt64
    /// The scriptPubKey as the block has it: a slice, not a copy.
    public let scriptBytes: ArraySlice<UInt8>

    public var script: [UInt8] { Array(scriptBytes) }

    public init(value: UInt64, script: [UInt8]) { (self.value, scriptBytes) = (value, script[...]) }
    init(value: UInt64, scriptBytes: ArraySlice<UInt8>) { (self.value, self.scriptBytes) = (value, scriptBytes) }

    public static func == (lhs: BitcoinOutput, rhs: BitcoinOutput) -> Bool { lhs.value == rhs.value && lhs.scriptBytes == rhs.scriptBytes }
}

/// Where an output lies in its block: value, and its script's offset and length.
struct OutputEntry: Sendable {
    let value: UInt64
    let offset: Int32
    let length: Int32
    /// The script's ByteFilter slot.
    let slot: UInt16
}

/// What a parsed block (or a lone transaction) holds, shared by its transactions: the bytes,
/// the ids' digests, where every input's outpoint and every output's script lies. A handful of
/// allocations per block instead of several per transaction: with one array per input list,
/// output list and slice, a full block's parse was mostly malloc, retain and release.
final class BitcoinTables: Sendable {
    let bytes: [UInt8]
    /// txid i at 32 i; when the wtxids were hashed with them (the witness commitment
    /// checked), wtxid i at 32 (count + i).
    let digests: [UInt8]
    let count: Int
    /// What the wtxids of the transactions with witnesses hash, for those not hashed yet.
    let witnessed: [HashPieces]
    /// The byte offset of each input's outpoint, every transaction's in order.
    let outpoints: [Int32]
    /// Each outpoint's ByteFilter slot.
    let outpointSlots: [UInt16]
    let outputs: [OutputEntry]
    /// The first transaction's first scriptSig and first witness stack (a coinbase's BIP34
    /// height and BIP141 reserved value live there).
    let firstScriptSig: Range<Int>
    let firstWitness: [Range<Int>]

    init(
        bytes: [UInt8], digests: [UInt8], count: Int, witnessed: [HashPieces], outpoints: [Int32], outpointSlots: [UInt16],
        outputs: [OutputEntry], firstScriptSig: Range<Int>, firstWitness: [Range<Int>]
    ) {
        (self.bytes, self.digests, self.count, self.witnessed, self.outpoints, self.outpointSlots, self.outputs) = (
            bytes, digests, count, witnessed, outpoints, outpointSlots, outputs
        )
        (self.firstScriptSig, self.firstWitness) = (firstScriptSig, firstWitness)
    }
}

/// A transaction's inputs, read from its block's tables when asked for.
public struct BitcoinInputs: RandomAccessCollection, Sendable {
    let tables: BitcoinTables
    let start: Int
    public let endIndex: Int
    public var startIndex: Int { 0 }

    public subscript(position: Int) -> BitcoinInput {
        precondition(position >= 0 && position < endIndex, "input index out of range")
        let at = Int(tables.outpoints[start + position])
        return BitcoinInput(outpointBytes: tables.bytes[at..<at + 36])
    }
}

/// A transaction's outputs, read from its block's tables when asked for.
public struct BitcoinOutputs: RandomAccessCollection, Sendable {
    let tables: BitcoinTables
    let start: Int
    public let endIndex: Int
    public var startIndex: Int { 0 }

    public subscript(position: Int) -> BitcoinOutput {
        precondition(position >= 0 && position < endIndex, "output index out of range")
        let entry = tables.outputs[start + position]
        return BitcoinOutput(value: entry.value, scriptBytes: tables.bytes[Int(entry.offset)..<Int(entry.offset) + Int(entry.length)])
    }
}

/// A transaction's tweak data, held by reference (`BitcoinTransaction.silentPaymentTweak`).
final class TweakBox: Sendable {
    let tweak: SilentPaymentTweak
    init(_ tweak: SilentPaymentTweak) { self.tweak = tweak }
}

/// A transaction, parsed: ids in internal byte order (display order is reversed). Its inputs,
/// outputs and ids are read from its block's shared tables.
public struct BitcoinTransaction: ChainTransaction, Sendable {
    let tables: BitcoinTables
    /// Its place in the block, and where its inputs and outputs start in the tables.
    let index: Int32
    let inputStart: Int32
    let inputCount: Int32
    let outputStart: Int32
    let outputCount: Int32
    /// Its wtxid's message among the tables' `witnessed` (-1: no witness).
    let witnessIndex: Int32
    public let hasWitness: Bool
    /// Litecoin's integrating transaction (HogEx), last in a block with MWEB: its outputs
    /// after the first are peg-outs from the extension block.
    public let isHogEx: Bool
    /// A coinbase spends nothing: one input whose outpoint is all zeros with index 0xffffffff
    /// (found once, at the parse: matching asks it of every transaction).
    public let isCoinbase: Bool
    /// BIP352's tweak data, input_hash·A, when the block came with its spent outputs and this
    /// transaction can hold a silent payment (`BitcoinBlock.attachSpent`).
    public internal(set) var silentPaymentTweak: SilentPaymentTweak? {
        get { tweakBox?.tweak }
        set { tweakBox = newValue.map(TweakBox.init) }
    }
    /// The tweak held by reference: inline it made every transaction 384 bytes, and a scan
    /// copies and destroys each block's transactions several times over.
    var tweakBox: TweakBox? = nil
    /// Whether its block came with what its inputs spend (then a nil tweak means "no silent
    /// payment can be here", not "not looked at").
    var spentKnown = false
    /// A block's transaction (a lone one, from a mempool, is the only one in its tables and
    /// no coinbase).
    var inBlock: Bool { index > 0 || isCoinbase }

    /// SHA256d of the serialization without marker, flag and witnesses.
    public var id: [UInt8] { Array(idBytes) }
    /// SHA256d of the whole serialization (equal to `id` without witnesses). Hashed when
    /// asked for, unless the block's witness commitment was checked: a scanner reads no
    /// witness, and the wtxids were half of a block's hashing.
    public var wtxid: [UInt8] { Array(wtxidBytes) }
    public var idBytes: ArraySlice<UInt8> { tables.digests[32 * Int(index)..<32 * Int(index) + 32] }
    public var wtxidBytes: ArraySlice<UInt8> {
        if tables.digests.count == 64 * tables.count {
            let at = 32 * (tables.count + Int(index))
            return tables.digests[at..<at + 32]
        }
        guard witnessIndex >= 0 else { return idBytes }
        return HashPieces.sha256d([tables.witnessed[Int(witnessIndex)]], in: tables.bytes)[...]
    }

    /// Each output whose script `filter` may hold, as (vout, value, script): the filter is
    /// tested on the script's slot, kept by the parse, and a slice is made only for the few it
    /// lets through (each slice retains the block).
    public func outputs(passing filter: ByteFilter, _ body: (Int, UInt64, ArraySlice<UInt8>) -> Void) {
        let tables = self.tables
        for vout in 0..<Int(outputCount) {
            let entry = tables.outputs[Int(outputStart) + vout]
            guard filter.mayContain(slot: entry.slot) else { continue }
            body(vout, entry.value, tables.bytes[Int(entry.offset)..<Int(entry.offset) + Int(entry.length)])
        }
    }

    public var inputs: BitcoinInputs { BitcoinInputs(tables: tables, start: Int(inputStart), endIndex: Int(inputCount)) }
    public var outputs: BitcoinOutputs { BitcoinOutputs(tables: tables, start: Int(outputStart), endIndex: Int(outputCount)) }

    /// The first input's witness stack, kept for a block's first transaction only (the
    /// coinbase's witness reserved value lives there).
    public var firstWitness: [[UInt8]] { index == 0 ? tables.firstWitness.map { Array(tables.bytes[$0]) } : [] }
    /// The first input's scriptSig, kept for a block's first transaction only (the coinbase's
    /// BIP34 height lives there).
    public var firstScriptSig: [UInt8] { index == 0 ? Array(tables.bytes[tables.firstScriptSig]) : [] }

    /// The outpoints its inputs spend (none for a coinbase).
    public var spendTags: [[UInt8]] { isCoinbase ? [] : inputs.map(\.outpoint) }

    /// The inputs that spend one of `tags`, each outpoint tested by its slot first (kept by the
    /// parse): an array is made only for what the filter lets through.
    public func spends(in tags: FilteredByteSet) -> [(input: Int, tag: [UInt8])] {
        guard !isCoinbase else { return [] }
        var out: [(input: Int, tag: [UInt8])] = []
        let tables = self.tables
        for i in 0..<Int(inputCount) {
            guard tags.filter.mayContain(slot: tables.outpointSlots[Int(inputStart) + i]) else { continue }
            let at = Int(tables.outpoints[Int(inputStart) + i])
            let tag = tables.bytes[at..<at + 36]
            if tags.contains(tag) { out.append((i, Array(tag))) }
        }
        return out
    }
}

/// A block, parsed and checked: the merkle root of its txids, and where a transaction has a
/// witness, the BIP141 commitment in the coinbase.
public struct BitcoinBlock: ChainBlock, Sendable {
    /// The header's SHA256d, internal byte order.
    public let id: [UInt8]
    public let previousID: [UInt8]
    public let merkleRoot: [UInt8]
    public let version: Int32
    public let time: UInt32
    public let bits: UInt32
    public let nonce: UInt32
    public internal(set) var transactions: [BitcoinTransaction]
    /// Litecoin: the block carries an MWEB extension block after its transactions (skipped:
    /// MWEB outputs are not scanned).
    public var hasMWEB = false
    /// What its transactions read their inputs, outputs and ids from.
    let tables: BitcoinTables
}

extension Bitcoin {
    /// The merkle root of `hashes` (Bitcoin's: an odd level repeats its last hash), and
    /// whether some level ended in two equal hashes — CVE-2012-2459: such a list has the same
    /// root as a shorter one, so a block with it is refused.
    public static func merkleRoot(_ hashes: [[UInt8]]) -> (root: [UInt8], mutated: Bool) {
        let flat = hashes.flatMap { $0 }
        return flat.withUnsafeBytes { merkleRoot(leaves: $0) }
    }

    /// The same over leaves in a row, 32 bytes each; `zeroFirst`: the first leaf taken as zeros
    /// (BIP141's witness tree, where the coinbase's wtxid stands as zeros).
    static func merkleRoot(leaves hashes: UnsafeRawBufferPointer, zeroFirst: Bool = false) -> (root: [UInt8], mutated: Bool) {
        guard !hashes.isEmpty else { return ([UInt8](repeating: 0, count: 32), false) }
        // One buffer, each level written over the one below it, pairs hashed two at a time;
        // room for an odd level's repeated last hash.
        var count = hashes.count / 32, mutated = false
        var level = [UInt8](unsafeUninitializedCapacity: hashes.count + 32) { buffer, n in
            _ = buffer.initialize(from: hashes)
            if zeroFirst { buffer.baseAddress!.update(repeating: 0, count: 32) }
            buffer.baseAddress!.advanced(by: hashes.count).initialize(repeating: 0, count: 32)
            n = hashes.count + 32
        }
        level.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            while count > 1 {
                for i in stride(from: 0, to: count - 1, by: 2) where memcmp(base + 32 * i, base + 32 * (i + 1), 32) == 0 { mutated = true }
                if count % 2 == 1 {
                    (base + 32 * count).update(from: base + 32 * (count - 1), count: 32)
                    count += 1
                }
                satchel_sha256d64(base, base, count / 2)
                count /= 2
            }
        }
        return (Array(level[0..<32]), mutated)
    }

    /// A block's largest size: 4 MB of weight is at most 4 MB of bytes.
    public static let maxBlockSize = 4_000_000

    /// Parses a whole block (`getblock HASH 0`'s bytes) and checks it: every byte used, the
    /// merkle root of the txids (which commits to every input and output), and with
    /// `verifyWitness` the BIP141 witness commitment. `what` names it in errors ("block 702861").
    ///
    /// The scanner leaves the witness commitment out: it commits only to witness data, which
    /// a watch-only scan never reads, and checking it means hashing every wtxid and a second
    /// tree — half of a block's hashing.
    public static func parseBlock(
        _ bytes: [UInt8], what: String, dialect: BitcoinDialect = .bitcoin,
        verifyWitness: Bool = true
    ) throws(ScanError) -> BitcoinBlock {
        guard bytes.count <= maxBlockSize else { throw .malformed(what: what, reason: "\(bytes.count) bytes, more than a block may have") }
        var reader = ByteReader(bytes, what: what)
        guard bytes.count >= 80 else { throw .truncated(what: what, offset: bytes.count) }
        let header = bytes.withUnsafeBytes { UnsafeRawBufferPointer(rebasing: $0[0..<80]) }
        let id = sha256d(header)
        let version = try reader.int32()
        let previous = try reader.take(32)
        let merkle = try reader.take(32)
        let time = try reader.uint32(), bits = try reader.uint32(), nonce = try reader.uint32()
        // The smallest transaction is 60 bytes (version, one input, no output, locktime).
        let count = try reader.compactSize(maximum: (bytes.count - reader.offset) / 60)
        guard count >= 1 else { throw .malformed(what: what, reason: "a block without a coinbase transaction") }
        var builder = TableBuilder(count: count)
        for index in 0..<count {
            try reader.transactionPieces(index: index, dialect: dialect, inBlock: true, into: &builder)
        }
        var hasMWEB = false
        if let hogEx = builder.records.firstIndex(where: \.isHogEx) {
            guard hogEx == count - 1, count >= 2 else {
                throw .malformed(what: what, reason: "transaction \(hogEx) is a HogEx, which must be the last of two or more")
            }
            // The extension block follows, behind a presence byte; it is the rest of the block.
            switch try reader.byte() {
            case 0: break
            case 1:
                guard !reader.isAtEnd else { throw .truncated(what: what, offset: reader.offset) }
                hasMWEB = true
                reader.offset = bytes.count
            case let other: throw .malformed(what: what, reason: "an MWEB presence byte of \(other) after the transactions")
            }
        }
        guard reader.isAtEnd else {
            throw .malformed(what: what, reason: "\(bytes.count - reader.offset) bytes after the last transaction")
        }
        guard builder.records[0].isCoinbase else { throw .malformed(what: what, reason: "its first transaction is not a coinbase") }
        if let extra = builder.records.dropFirst().firstIndex(where: \.isCoinbase) {
            throw .malformed(what: what, reason: "transaction \(extra) is a second coinbase")
        }
        let (tables, transactions) = builder.finish(bytes, hashWitnesses: verifyWitness)
        let (root, mutated) = tables.digests.withUnsafeBytes { merkleRoot(leaves: UnsafeRawBufferPointer(rebasing: $0[0..<32 * count])) }
        guard root == merkle else {
            throw .hashMismatch(what: "\(what)'s merkle root", expected: display(merkle), computed: display(root))
        }
        guard !mutated else { throw .malformed(what: what, reason: "its transaction list repeats a pair (CVE-2012-2459)") }
        if verifyWitness { try checkWitnessCommitment(transactions, tables: tables, what: what) }
        var block = BitcoinBlock(
            id: id, previousID: previous, merkleRoot: merkle, version: version, time: time, bits: bits, nonce: nonce,
            transactions: transactions, tables: tables)
        block.hasMWEB = hasMWEB
        return block
    }

    /// Where each transaction of a block lies (for the benchmark's reference: hashing them).
    package static func transactionRanges(_ bytes: [UInt8], dialect: BitcoinDialect = .bitcoin) throws(ScanError) -> [Range<Int>] {
        var reader = ByteReader(bytes, what: "block")
        try reader.skip(80)
        let count = try reader.compactSize(maximum: bytes.count / 60)
        var builder = TableBuilder(count: count)
        return try (0..<count).map { index throws(ScanError) in
            let start = reader.offset
            try reader.transactionPieces(index: index, dialect: dialect, inBlock: true, into: &builder)
            return start..<reader.offset
        }
    }

    /// One transaction alone (a mempool's): every byte used. A Litecoin transaction's MWEB
    /// part is skipped; one with nothing else (MWEB to MWEB) has no inputs or outputs here.
    public static func parseTransaction(
        _ bytes: [UInt8], what: String, dialect: BitcoinDialect = .bitcoin
    ) throws(ScanError) -> BitcoinTransaction {
        // No transaction is larger than a block (and the tables' offsets are 32-bit).
        guard bytes.count <= maxBlockSize else { throw .malformed(what: what, reason: "\(bytes.count) bytes, more than a block may have") }
        var reader = ByteReader(bytes, what: what)
        var builder = TableBuilder(count: 1)
        try reader.transactionPieces(index: 0, dialect: dialect, inBlock: false, named: what, into: &builder)
        guard reader.isAtEnd else { throw .malformed(what: what, reason: "\(bytes.count - reader.offset) bytes after the transaction") }
        return builder.finish(bytes, hashWitnesses: true).1[0]
    }

    /// BIP141: with any witness in the block, the coinbase commits to the witness merkle root
    /// (the coinbase's wtxid taken as zeros) and its witness reserved value, in its last
    /// output whose script starts 6a24aa21a9ed.
    static func checkWitnessCommitment(_ transactions: [BitcoinTransaction], tables: BitcoinTables, what: String) throws(ScanError) {
        guard transactions.contains(where: \.hasWitness) else { return }
        let prefix: [UInt8] = [0x6A, 0x24, 0xAA, 0x21, 0xA9, 0xED]
        guard
            let commitment = transactions[0].outputs.last(where: {
                $0.scriptBytes.count >= 38 && $0.scriptBytes.prefix(6).elementsEqual(prefix)
            })
        else {
            throw .malformed(what: what, reason: "transactions have witnesses and the coinbase commits to none (BIP141)")
        }
        let coinbaseWitness = transactions[0].firstWitness
        guard coinbaseWitness.count == 1, coinbaseWitness[0].count == 32 else {
            throw .malformed(what: what, reason: "the coinbase's witness is not one 32-byte reserved value (BIP141)")
        }
        let count = tables.count
        let (root, _) = tables.digests.withUnsafeBytes {
            merkleRoot(leaves: UnsafeRawBufferPointer(rebasing: $0[32 * count..<64 * count]), zeroFirst: true)
        }
        let computed = sha256d(root + coinbaseWitness[0])
        let expected = Array(commitment.scriptBytes.dropFirst(6).prefix(32))
        guard computed == expected else {
            throw .hashMismatch(what: "\(what)'s witness commitment", expected: Hex.encode(expected), computed: Hex.encode(computed))
        }
    }

    /// The height a coinbase states (BIP34: its scriptSig starts with the height, pushed).
    public static func bip34Height(_ coinbase: BitcoinTransaction) -> Int? {
        let script = coinbase.firstScriptSig
        guard let first = script.first, (1...8).contains(first), script.count > Int(first) else { return nil }
        var height = 0
        for (i, byte) in script[1...Int(first)].enumerated() { height |= Int(byte) << (8 * i) }
        return height
    }
}

/// Bitcoin's serialization over the engine's checked reader: little-endian integers and
/// CompactSize counts.
extension ByteReader {
    mutating func skip(_ n: Int) throws(ScanError) {
        guard n >= 0, n <= bytes.count - offset else { throw .truncated(what: what, offset: offset) }
        offset += n
    }

    mutating func uint(_ size: Int) throws(ScanError) -> UInt64 {
        guard size <= bytes.count - offset else { throw .truncated(what: what, offset: offset) }
        var value: UInt64 = 0
        for i in 0..<size { value |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        offset += size
        return value
    }

    mutating func uint32() throws(ScanError) -> UInt32 { UInt32(try uint(4)) }
    mutating func int32() throws(ScanError) -> Int32 { Int32(bitPattern: try uint32()) }

    /// A CompactSize count no larger than `maximum` (what the remaining bytes could hold), so
    /// no count sizes a loop or an allocation beyond the data.
    mutating func compactSize(maximum: Int) throws(ScanError) -> Int {
        let at = offset
        let first = try byte()
        let value: UInt64 =
            switch first {
            case 0xFD: try uint(2)
            case 0xFE: try uint(4)
            case 0xFF: try uint(8)
            default: UInt64(first)
            }
        guard value <= UInt64(max(maximum, 0)) else {
            throw .malformed(what: what, reason: "a count of \(value) at byte \(at) exceeds the data")
        }
        return Int(value)
    }

    /// One transaction, its inputs, outputs and record added to `builder`, and what its ids
    /// hash: the txid the stripped serialization (version, inputs, outputs, locktime) without
    /// copying it, the wtxid the whole but for an MWEB part. `inBlock`: among a block's
    /// transactions, where an MWEB part is refused (the extension block holds them) and a flag
    /// 0x08 without one marks the HogEx; alone, the MWEB part is skipped.
    mutating func transactionPieces(
        index: Int, dialect: BitcoinDialect, inBlock: Bool, named: String? = nil,
        into builder: inout TableBuilder
    ) throws(ScanError) {
        let start = offset
        let blockWhat = self.what
        /// The transaction's name, for errors only: made when one is thrown.
        func what() -> String { named ?? "\(blockWhat) transaction \(index)" }
        try skip(4)
        var flag: UInt8 = 0
        if offset + 1 < bytes.count, bytes[offset] == 0 {
            // A marker: no transaction has zero inputs, so 0x00 here is never a count.
            flag = bytes[offset + 1]
            let known: UInt8 = dialect.mweb ? 0x09 : 0x01
            guard flag != 0, flag & ~known == 0 else {
                throw .malformed(what: what(), reason: "an unknown transaction flag 0x\(Hex.encode([flag]))")
            }
            offset += 2
        }
        let hasWitness = flag & 0x01 != 0, hasMWEB = flag & 0x08 != 0
        let bodyStart = offset
        // The smallest input is 41 bytes, the smallest output 9.
        let inputCount = try compactSize(maximum: (bytes.count - offset) / 41)
        // Only an MWEB-to-MWEB transaction, outside blocks, has no canonical input.
        guard inputCount >= 1 || (hasMWEB && !inBlock) else { throw .malformed(what: what(), reason: "a transaction without inputs") }
        let inputStart = builder.outpoints.count, outputStart = builder.outputs.count
        // Only the first transaction (a coinbase) needs its first scriptSig and witness: BIP34's
        // height, BIP141's reserved value.
        let keepFirst = index == 0
        for i in 0..<inputCount {
            let at = offset
            try skip(36)
            let scriptLength = try compactSize(maximum: bytes.count - offset)
            if i == 0 && keepFirst { builder.firstScriptSig = offset..<offset + scriptLength }
            try skip(scriptLength)
            try skip(4)  // sequence
            builder.outpoints.append(Int32(at))
            builder.outpointSlots.append(ByteFilter.slot(of: bytes[at..<at + 36]))
        }
        let outputCount = try compactSize(maximum: (bytes.count - offset) / 9)
        for _ in 0..<outputCount {
            let value = try uint(8)
            guard value <= 21_000_000 * 100_000_000 else {
                throw .malformed(what: what(), reason: "an output of \(value) satoshis, more than exist")
            }
            let length = try compactSize(maximum: bytes.count - offset)
            let at = offset
            try skip(length)
            builder.outputs.append(
                OutputEntry(value: value, offset: Int32(at), length: Int32(length), slot: ByteFilter.slot(of: bytes[at..<at + length])))
        }
        let bodyEnd = offset
        if hasWitness {
            var any = false
            for i in 0..<inputCount {
                let items = try compactSize(maximum: bytes.count - offset)
                any = any || items > 0
                for _ in 0..<items {
                    let length = try compactSize(maximum: bytes.count - offset)
                    if i == 0 && keepFirst { builder.firstWitness.append(offset..<offset + length) }
                    try skip(length)
                }
            }
            // BIP144: a transaction that says it has witnesses must have one.
            guard any else { throw .malformed(what: what(), reason: "a witness flag with no witness data") }
        }
        let witnessEnd = offset
        var isHogEx = false
        if hasMWEB {
            if try byte() == 0 {
                // No MWEB part: the HogEx, which pays at least the extension block's own output.
                guard inBlock, outputCount > 0 else {
                    throw .malformed(what: what(), reason: "an MWEB flag with neither an MWEB part nor a HogEx's outputs")
                }
                isHogEx = true
            } else {
                guard !inBlock else {
                    throw .malformed(what: what(), reason: "an MWEB part among a block's transactions (the extension block holds them)")
                }
                // What follows is the MWEB part, up to the locktime: not scanned.
                guard bytes.count - offset >= 4 else { throw .truncated(what: what(), offset: offset) }
                offset = bytes.count - 4
            }
        }
        try skip(4)  // locktime
        let end = offset
        // What the ids hash, as pieces of the block (hashed later, two at a time).
        var whole = HashPieces()
        whole.add(start, end - start)
        var txid = whole, witnessIndex: Int32 = -1
        if flag != 0 {
            txid = HashPieces()
            txid.add(start, 4)
            txid.add(bodyStart, bodyEnd - bodyStart)
            txid.add(end - 4, 4)
            if hasWitness {
                // The wtxid leaves an MWEB part out, its flag saying witness only (Litecoin's SERIALIZE_NO_MWEB).
                if hasMWEB {
                    var w = HashPieces()
                    w.add(start, 4)
                    w.add(HashPieces.witnessMarker, 2)
                    w.add(bodyStart, witnessEnd - bodyStart)
                    w.add(end - 4, 4)
                    witnessIndex = builder.addWitnessed(index, w)
                } else {
                    witnessIndex = builder.addWitnessed(index, whole)
                }
            }
        }
        builder.messages.append(txid)
        // A coinbase spends nothing: one input, all zeros with index 0xffffffff.
        let isCoinbase =
            inputCount == 1
            && bytes[Int(builder.outpoints[inputStart])..<Int(builder.outpoints[inputStart]) + 36].enumerated().allSatisfy {
                $0.element == ($0.offset < 32 ? 0 : 0xFF)
            }
        builder.records.append(
            TableBuilder.Record(
                inputStart: Int32(inputStart), inputCount: Int32(inputCount), outputStart: Int32(outputStart),
                outputCount: Int32(outputCount), witnessIndex: witnessIndex, hasWitness: hasWitness, isHogEx: isHogEx,
                isCoinbase: isCoinbase))
    }
}

/// A block's tables as the parse fills them, and the messages its ids hash.
struct TableBuilder {
    struct Record {
        let inputStart: Int32, inputCount: Int32, outputStart: Int32, outputCount: Int32, witnessIndex: Int32
        let hasWitness: Bool, isHogEx: Bool, isCoinbase: Bool
    }

    var records = [Record]()
    var outpoints = [Int32]()
    var outpointSlots = [UInt16]()
    var outputs = [OutputEntry]()
    var firstScriptSig = 0..<0
    var firstWitness = [Range<Int>]()
    /// Transaction i's txid message at i.
    var messages = [HashPieces]()
    /// The wtxid messages of the transactions with witnesses, and which transaction each is.
    var witnessed = [HashPieces]()
    var witnessedTx = [Int]()

    /// Adds transaction `tx`'s wtxid message; returns its place.
    mutating func addWitnessed(_ tx: Int, _ message: HashPieces) -> Int32 {
        witnessed.append(message)
        witnessedTx.append(tx)
        return Int32(witnessed.count - 1)
    }

    init(count: Int) {
        records.reserveCapacity(count)
        messages.reserveCapacity(2 * count)
        // A full block has about 2.5 inputs and 2.7 outputs per transaction.
        outpoints.reserveCapacity(3 * count)
        outpointSlots.reserveCapacity(3 * count)
        outputs.reserveCapacity(3 * count)
    }

    /// Hashes the txids (all at once, several messages at a time where the CPU can) and, with
    /// `hashWitnesses`, the wtxids too; makes the tables and the transactions over them.
    mutating func finish(_ bytes: [UInt8], hashWitnesses: Bool) -> (BitcoinTables, [BitcoinTransaction]) {
        let count = records.count, witnessCount = witnessed.count
        if hashWitnesses { messages += witnessed }
        // txid i at 32 i; the wtxids hashed into a row after them, then each moved to its
        // transaction's place 32 (count + i). Moved from the last down: transaction i's place is
        // never before its row entry's, so no entry is written over before it is moved.
        let digests = [UInt8](unsafeUninitializedCapacity: (hashWitnesses ? 64 : 32) * count) { buffer, n in
            let base = buffer.baseAddress!
            HashPieces.sha256d(messages, in: bytes, into: base)
            n = 32 * count
            guard hashWitnesses else { return }
            for k in (0..<witnessCount).reversed() {
                (base + 32 * (count + witnessedTx[k])).update(from: base + 32 * (count + k), count: 32)
            }
            for i in 0..<count where !records[i].hasWitness {
                (base + 32 * (count + i)).update(from: base + 32 * i, count: 32)
            }
            n = 64 * count
        }
        let tables = BitcoinTables(
            bytes: bytes, digests: digests, count: count, witnessed: hashWitnesses ? [] : witnessed,
            outpoints: outpoints, outpointSlots: outpointSlots, outputs: outputs, firstScriptSig: firstScriptSig, firstWitness: firstWitness
        )
        let transactions = records.indices.map { i in
            let r = records[i]
            return BitcoinTransaction(
                tables: tables, index: Int32(i), inputStart: r.inputStart, inputCount: r.inputCount, outputStart: r.outputStart,
                outputCount: r.outputCount, witnessIndex: hashWitnesses ? -1 : r.witnessIndex, hasWitness: r.hasWitness,
                isHogEx: r.isHogEx, isCoinbase: r.isCoinbase)
        }
        return (tables, transactions)
    }
}

/// A message to hash as up to four pieces of a block: (offset, count) pairs, offset
/// `witnessMarker` standing for the bytes 00 01.
struct HashPieces {
    static let witnessMarker = -1
    private static let marker: [UInt8] = [0x00, 0x01]
    var starts = (0, 0, 0, 0)
    var counts = (0, 0, 0, 0)
    var count = 0

    mutating func add(_ start: Int, _ n: Int) {
        switch count {
        case 0: (starts.0, counts.0) = (start, n)
        case 1: (starts.1, counts.1) = (start, n)
        case 2: (starts.2, counts.2) = (start, n)
        default: (starts.3, counts.3) = (start, n)
        }
        count += 1
    }

    private func message(_ base: UnsafePointer<UInt8>, _ marker: UnsafePointer<UInt8>) -> satchel_sha_message {
        func at(_ start: Int) -> UnsafePointer<UInt8> { start == Self.witnessMarker ? marker : base + start }
        return satchel_sha_message(
            data: (at(starts.0), at(starts.1), at(starts.2), at(starts.3)),
            size: (counts.0, counts.1, counts.2, counts.3), count: Int32(count))
    }

    /// SHA256d of each message (two streams at a time where the CPU has SHA-NI): digest i
    /// at out + 32 i.
    static func sha256d(_ messages: [HashPieces], in bytes: [UInt8], into out: UnsafeMutablePointer<UInt8>) {
        bytes.withUnsafeBufferPointer { block in
            marker.withUnsafeBufferPointer { marker in
                let list = messages.map { $0.message(block.baseAddress!, marker.baseAddress!) }
                satchel_sha256d_many(list, list.count, out)
            }
        }
    }

    /// The same into a new array.
    static func sha256d(_ messages: [HashPieces], in bytes: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32 * messages.count) { buffer, n in
            if !messages.isEmpty { sha256d(messages, in: bytes, into: buffer.baseAddress!) }
            n = 32 * messages.count
        }
    }
}
