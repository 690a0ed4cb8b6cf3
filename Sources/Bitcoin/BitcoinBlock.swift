#if canImport(Glibc)
import Glibc
#endif
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

/// A transaction, parsed: ids in internal byte order (display order is reversed).
public struct BitcoinTransaction: ChainTransaction, Sendable {
    /// SHA256d of the serialization without marker, flag and witnesses.
    public var id: [UInt8] { Array(idBytes) }
    /// SHA256d of the whole serialization (equal to `id` without witnesses).
    public var wtxid: [UInt8] { Array(wtxidBytes) }
    /// The ids as 32-byte slices of one buffer of the block's digests: no array each.
    public internal(set) var idBytes: ArraySlice<UInt8> = []
    public internal(set) var wtxidBytes: ArraySlice<UInt8> = []
    public let inputs: [BitcoinInput]
    public let outputs: [BitcoinOutput]
    public let hasWitness: Bool
    /// The first input's witness stack (the coinbase's witness reserved value lives there).
    public let firstWitness: [[UInt8]]
    /// The first input's scriptSig (the coinbase's BIP34 height lives there).
    public let firstScriptSig: [UInt8]
    /// Litecoin's integrating transaction (HogEx), last in a block with MWEB: its outputs
    /// after the first are peg-outs from the extension block.
    public var isHogEx = false

    /// A coinbase spends nothing: one input whose outpoint is all zeros with index 0xffffffff
    /// (found once, at the parse: matching asks it of every transaction).
    public internal(set) var isCoinbase = false

    static func spendsNothing(_ inputs: [BitcoinInput]) -> Bool {
        inputs.count == 1 && inputs[0].outpointBytes.prefix(32).allSatisfy { $0 == 0 } && inputs[0].outpointBytes.suffix(4).allSatisfy { $0 == 0xFF }
    }

    /// The outpoints its inputs spend (none for a coinbase).
    public var spendTags: [[UInt8]] { isCoinbase ? [] : inputs.map(\.outpoint) }
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
    public let transactions: [BitcoinTransaction]
    /// Litecoin: the block carries an MWEB extension block after its transactions (skipped:
    /// MWEB outputs are not scanned).
    public var hasMWEB = false
}

/// What a chain's serialization allows beyond Bitcoin's.
public struct BitcoinDialect: Sendable, Equatable {
    /// Litecoin's MWEB (LIP-0002/0003): transaction flag 0x08 with its mweb_tx_present byte,
    /// the HogEx, and the extension block after a block's transactions.
    public var mweb = false

    public static let bitcoin = BitcoinDialect()
    public static let litecoin = BitcoinDialect(mweb: true)
}

public enum Bitcoin {
    /// txid ‖ vout (little-endian).
    public static func outpoint(_ txid: [UInt8], _ index: UInt32) -> [UInt8] {
        txid + withUnsafeBytes(of: index.littleEndian) { Array($0) }
    }

    /// A hash as Bitcoin shows it: byte-reversed hex.
    public static func display(_ hash: [UInt8]) -> String { Hex.encode(hash.reversed()) }

    /// The internal bytes of a displayed (reversed) hash.
    public static func internalBytes(ofDisplayed hex: String) throws -> [UInt8] { Array(try Hex.decode(hex).reversed()) }

    /// SHA256(SHA256(bytes)).
    public static func sha256d(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var message = satchel_sha_message(data: (bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, nil, nil), size: (bytes.count, 0, 0, 0), count: 1)
        return [UInt8](unsafeUninitializedCapacity: 32) { out, n in
            satchel_sha256d_one(&message, out.baseAddress!)
            n = 32
        }
    }

    public static func sha256d(_ bytes: [UInt8]) -> [UInt8] { bytes.withUnsafeBytes { sha256d($0) } }

    /// The merkle root of `hashes` (Bitcoin's: an odd level repeats its last hash), and
    /// whether some level ended in two equal hashes — CVE-2012-2459: such a list has the same
    /// root as a shorter one, so a block with it is refused.
    public static func merkleRoot(_ hashes: [[UInt8]]) -> (root: [UInt8], mutated: Bool) {
        merkleRoot(flat: hashes.flatMap { $0 }[...])
    }

    /// The same over the hashes in a row, 32 bytes each.
    static func merkleRoot(flat hashes: ArraySlice<UInt8>) -> (root: [UInt8], mutated: Bool) {
        guard !hashes.isEmpty else { return ([UInt8](repeating: 0, count: 32), false) }
        // One buffer, each level written over the one below it, pairs hashed two at a time;
        // room for an odd level's repeated last hash.
        var level = Array(hashes) + [UInt8](repeating: 0, count: 32)
        var count = hashes.count / 32, mutated = false
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
    /// merkle root, the witness commitment. `what` names it in errors ("block 702861").
    public static func parseBlock(_ bytes: [UInt8], what: String, dialect: BitcoinDialect = .bitcoin) throws(ScanError) -> BitcoinBlock {
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
        var transactions = [BitcoinTransaction]()
        transactions.reserveCapacity(count)
        // The ids are hashed after the parse, all at once: the txids first, so that their
        // digests lie in a row as the merkle tree's first level, then the wtxids that differ.
        var messages = [HashPieces](), witnessed = [(tx: Int, message: HashPieces)]()
        messages.reserveCapacity(2 * count)
        for index in 0..<count {
            let (tx, txid, wtxid) = try reader.transactionPieces(index: index, dialect: dialect, inBlock: true)
            transactions.append(tx)
            messages.append(txid)
            if let wtxid { witnessed.append((index, wtxid)) }
        }
        messages += witnessed.map(\.message)
        let digests = HashPieces.sha256d(messages, in: bytes)
        for i in transactions.indices {
            transactions[i].idBytes = digests[32 * i..<32 * i + 32]
            transactions[i].wtxidBytes = transactions[i].idBytes
        }
        for (k, w) in witnessed.enumerated() {
            transactions[w.tx].wtxidBytes = digests[32 * (count + k)..<32 * (count + k) + 32]
        }
        var hasMWEB = false
        if let hogEx = transactions.firstIndex(where: \.isHogEx) {
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
        guard reader.isAtEnd else { throw .malformed(what: what, reason: "\(bytes.count - reader.offset) bytes after the last transaction") }
        guard transactions[0].isCoinbase else { throw .malformed(what: what, reason: "its first transaction is not a coinbase") }
        if let extra = transactions.dropFirst().firstIndex(where: \.isCoinbase) {
            throw .malformed(what: what, reason: "transaction \(extra) is a second coinbase")
        }
        let (root, mutated) = merkleRoot(flat: digests[0..<32 * count])
        guard root == merkle else {
            throw .hashMismatch(what: "\(what)'s merkle root", expected: display(merkle), computed: display(root))
        }
        guard !mutated else { throw .malformed(what: what, reason: "its transaction list repeats a pair (CVE-2012-2459)") }
        try checkWitnessCommitment(transactions, what: what)
        var block = BitcoinBlock(id: id, previousID: previous, merkleRoot: merkle, version: version, time: time, bits: bits, nonce: nonce,
                                 transactions: transactions)
        block.hasMWEB = hasMWEB
        return block
    }

    /// Where each transaction of a block lies (for the benchmark's reference: hashing them).
    package static func transactionRanges(_ bytes: [UInt8], dialect: BitcoinDialect = .bitcoin) throws(ScanError) -> [Range<Int>] {
        var reader = ByteReader(bytes, what: "block")
        try reader.skip(80)
        let count = try reader.compactSize(maximum: bytes.count / 60)
        return try (0..<count).map { index throws(ScanError) in
            let start = reader.offset
            _ = try reader.transactionPieces(index: index, dialect: dialect, inBlock: true)
            return start..<reader.offset
        }
    }

    /// One transaction alone (a mempool's): every byte used. A Litecoin transaction's MWEB
    /// part is skipped; one with nothing else (MWEB to MWEB) has no inputs or outputs here.
    public static func parseTransaction(_ bytes: [UInt8], what: String, dialect: BitcoinDialect = .bitcoin) throws(ScanError) -> BitcoinTransaction {
        var reader = ByteReader(bytes, what: what)
        var (tx, txid, wtxid) = try reader.transactionPieces(index: 0, dialect: dialect, inBlock: false, named: what)
        guard reader.isAtEnd else { throw .malformed(what: what, reason: "\(bytes.count - reader.offset) bytes after the transaction") }
        let digests = HashPieces.sha256d([txid] + (wtxid.map { [$0] } ?? []), in: bytes)
        (tx.idBytes, tx.wtxidBytes) = (digests[0..<32], digests[(digests.count - 32)...])
        return tx
    }

    /// BIP141: with any witness in the block, the coinbase commits to the witness merkle root
    /// (the coinbase's wtxid taken as zeros) and its witness reserved value, in its last
    /// output whose script starts 6a24aa21a9ed.
    static func checkWitnessCommitment(_ transactions: [BitcoinTransaction], what: String) throws(ScanError) {
        guard transactions.contains(where: \.hasWitness) else { return }
        let prefix: [UInt8] = [0x6A, 0x24, 0xAA, 0x21, 0xA9, 0xED]
        guard let commitment = transactions[0].outputs.last(where: { $0.script.count >= 38 && Array($0.script.prefix(6)) == prefix }) else {
            throw .malformed(what: what, reason: "transactions have witnesses and the coinbase commits to none (BIP141)")
        }
        let coinbaseWitness = transactions[0].firstWitness
        guard coinbaseWitness.count == 1, coinbaseWitness[0].count == 32 else {
            throw .malformed(what: what, reason: "the coinbase's witness is not one 32-byte reserved value (BIP141)")
        }
        var leaves = [UInt8](repeating: 0, count: 32 * transactions.count)
        for i in transactions.indices.dropFirst() { leaves.replaceSubrange(32 * i..<32 * i + 32, with: transactions[i].wtxidBytes) }
        let (root, _) = merkleRoot(flat: leaves[...])
        let computed = sha256d(root + coinbaseWitness[0])
        let expected = Array(commitment.script[6..<38])
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
        let value: UInt64 = switch first {
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

    /// One transaction; its txid hashes the stripped serialization (version, inputs, outputs,
    /// locktime) without copying it, and its wtxid the whole but for an MWEB part. `inBlock`:
    /// among a block's transactions, where an MWEB part is refused (the extension block holds
    /// them) and a flag 0x08 without one marks the HogEx; alone, the MWEB part is skipped.
    mutating func transactionPieces(index: Int, dialect: BitcoinDialect, inBlock: Bool, named: String? = nil)
        throws(ScanError) -> (BitcoinTransaction, txid: HashPieces, wtxid: HashPieces?) {
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
            guard flag != 0, flag & ~known == 0 else { throw .malformed(what: what(), reason: "an unknown transaction flag 0x\(Hex.encode([flag]))") }
            offset += 2
        }
        let hasWitness = flag & 0x01 != 0, hasMWEB = flag & 0x08 != 0
        let bodyStart = offset
        // The smallest input is 41 bytes, the smallest output 9.
        let inputCount = try compactSize(maximum: (bytes.count - offset) / 41)
        // Only an MWEB-to-MWEB transaction, outside blocks, has no canonical input.
        guard inputCount >= 1 || (hasMWEB && !inBlock) else { throw .malformed(what: what(), reason: "a transaction without inputs") }
        var inputs = [BitcoinInput]()
        inputs.reserveCapacity(inputCount)
        var firstScriptSig = [UInt8]()
        // Only the first transaction (a coinbase) needs its first scriptSig and witness: BIP34's
        // height, BIP141's reserved value.
        let keepFirst = index == 0
        for i in 0..<inputCount {
            let at = offset
            try skip(36)
            let scriptLength = try compactSize(maximum: bytes.count - offset)
            if i == 0 && keepFirst { firstScriptSig = try take(scriptLength) } else { try skip(scriptLength) }
            try skip(4)  // sequence
            inputs.append(BitcoinInput(outpointBytes: bytes[at..<at + 36]))
        }
        let outputCount = try compactSize(maximum: (bytes.count - offset) / 9)
        var outputs = [BitcoinOutput]()
        outputs.reserveCapacity(outputCount)
        for _ in 0..<outputCount {
            let value = try uint(8)
            guard value <= 21_000_000 * 100_000_000 else { throw .malformed(what: what(), reason: "an output of \(value) satoshis, more than exist") }
            let length = try compactSize(maximum: bytes.count - offset)
            let at = offset
            try skip(length)
            outputs.append(BitcoinOutput(value: value, scriptBytes: bytes[at..<at + length]))
        }
        let bodyEnd = offset
        var firstWitness = [[UInt8]]()
        if hasWitness {
            var any = false
            for i in 0..<inputCount {
                let items = try compactSize(maximum: bytes.count - offset)
                any = any || items > 0
                for _ in 0..<items {
                    let length = try compactSize(maximum: bytes.count - offset)
                    if i == 0 && keepFirst { firstWitness.append(try take(length)) } else { try skip(length) }
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
                guard inBlock, !outputs.isEmpty else { throw .malformed(what: what(), reason: "an MWEB flag with neither an MWEB part nor a HogEx's outputs") }
                isHogEx = true
            } else {
                guard !inBlock else { throw .malformed(what: what(), reason: "an MWEB part among a block's transactions (the extension block holds them)") }
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
        var txid = whole, wtxid: HashPieces?
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
                    wtxid = w
                } else {
                    wtxid = whole
                }
            }
        }
        var tx = BitcoinTransaction(inputs: inputs, outputs: outputs, hasWitness: hasWitness,
                                    firstWitness: firstWitness, firstScriptSig: firstScriptSig)
        tx.isHogEx = isHogEx
        tx.isCoinbase = BitcoinTransaction.spendsNothing(inputs)
        return (tx, txid, wtxid)
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
        return satchel_sha_message(data: (at(starts.0), at(starts.1), at(starts.2), at(starts.3)),
                                   size: (counts.0, counts.1, counts.2, counts.3), count: Int32(count))
    }

    /// SHA256d of each message (two streams at a time where the CPU has SHA-NI): digest i
    /// at 32 i.
    static func sha256d(_ messages: [HashPieces], in bytes: [UInt8]) -> [UInt8] {
        var digests = [UInt8](repeating: 0, count: 32 * messages.count)
        bytes.withUnsafeBufferPointer { block in
            marker.withUnsafeBufferPointer { marker in
                let list = messages.map { $0.message(block.baseAddress!, marker.baseAddress!) }
                digests.withUnsafeMutableBufferPointer { satchel_sha256d_many(list, list.count, $0.baseAddress!) }
            }
        }
        return digests
    }
}
