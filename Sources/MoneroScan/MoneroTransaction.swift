import WalletCore
import WalletScan
import Monero
import WalletCrypto

/// A Monero transaction as far as a view-key scanner needs it: inputs' key images, outputs'
/// keys, view tags and amounts, the extra field, and the RingCT base (fee, encrypted amounts,
/// commitments). Parsed from the consensus blob; its id is computed from the blob.
public struct MoneroTransaction: Sendable {
    public struct Input: Sendable {
        /// nil for a coinbase input.
        public let keyImage: [UInt8]?
        public let amount: UInt64
        public let coinbaseHeight: UInt64?
    }

    public struct Output: Sendable {
        public let amount: UInt64
        public let key: [UInt8]
        public let viewTag: UInt8?
    }

    public let version: UInt64
    public let unlockTime: UInt64
    public let inputs: [Input]
    public let outputs: [Output]
    public let extra: [UInt8]
    public let rctType: UInt8
    public let fee: UInt64
    /// Per output: 8 encrypted amount bytes (types 4–6), or the 32-byte amount of the old format.
    public let encryptedAmounts: [[UInt8]]
    /// Per output, types 1–3 only: the 32-byte encrypted commitment mask (later types derive it).
    public let encryptedMasks: [[UInt8]]
    public let commitments: [[UInt8]]
    /// Empty until `computeIDs` when the parse deferred it.
    public private(set) var id: [UInt8]
    /// What the id hashes (the whole v1 blob; v2's prefix, RingCT base and prunable part, the
    /// last nil for type 0), kept only while the id is deferred to a batch.
    private var idParts: [ArraySlice<UInt8>?] = []

    public var isCoinbase: Bool { inputs.first?.coinbaseHeight != nil }

    /// Parses a whole transaction blob (prefix, RingCT base and prunable part).
    /// `deferringID`: the id is left to `computeIDs`, which hashes many transactions together.
    public init(blob: [UInt8], deferringID: Bool = false) throws(ScanError) {
        var r = ByteReader(blob, what: "transaction")
        try self.init(reader: &r, whole: true, deferringID: deferringID)
        guard r.isAtEnd else { throw .malformed(what: "transaction", reason: "\(blob.count - r.offset) bytes after its end") }
    }

    /// Parses a transaction at the reader's position. For a block's miner transaction the
    /// prunable part is empty; `whole` says the reader ends with this transaction.
    init(reader r: inout ByteReader, whole: Bool, deferringID: Bool = false) throws(ScanError) {
        let start = r.offset
        version = try r.varint()
        guard version == 1 || version == 2 else { throw .unsupported("transaction version \(version)") }
        unlockTime = try r.varint()
        let inputCount = try r.count(minimumItemSize: 2)
        var inputs = [Input]()
        for _ in 0..<inputCount {
            switch try r.byte() {
            case 0xFF:
                inputs.append(Input(keyImage: nil, amount: 0, coinbaseHeight: try r.varint()))
            case 0x02:
                let amount = try r.varint()
                let offsets = try r.count(minimumItemSize: 1)
                for _ in 0..<offsets { _ = try r.varint() }
                inputs.append(Input(keyImage: try r.take(32), amount: amount, coinbaseHeight: nil))
            case let tag:
                throw .unsupported("input type 0x\(String(tag, radix: 16)) at byte \(r.offset - 1)")
            }
        }
        let outputCount = try r.count(minimumItemSize: 34)
        var outputs = [Output]()
        for _ in 0..<outputCount {
            let amount = try r.varint()
            switch try r.byte() {
            case 0x02: outputs.append(Output(amount: amount, key: try r.take(32), viewTag: nil))
            case 0x03: outputs.append(Output(amount: amount, key: try r.take(32), viewTag: try r.byte()))
            case let tag: throw .unsupported("output type 0x\(String(tag, radix: 16)) at byte \(r.offset - 1)")
            }
        }
        let extraLength = try r.count(minimumItemSize: 1)
        extra = try r.take(extraLength)
        let prefixEnd = r.offset
        self.inputs = inputs
        self.outputs = outputs

        var rctType: UInt8 = 0
        var fee: UInt64 = 0
        var amounts = [[UInt8]]()
        var masks = [[UInt8]]()
        var commitments = [[UInt8]]()
        var baseRange = prefixEnd..<prefixEnd
        if version == 2 {
            rctType = try r.byte()
            if rctType != 0 {
                guard (1...6).contains(rctType) else { throw .unsupported("RingCT type \(rctType)") }
                fee = try r.varint()
                // RCTTypeSimple keeps its pseudo-outputs in the base (later types moved them to
                // the prunable part): one commitment per input, before ecdhInfo.
                if rctType == 2 { _ = try r.take(32 * inputCount) }
                let compact = rctType >= 4
                for _ in 0..<outputCount {
                    if compact { amounts.append(try r.take(8)) } else { masks.append(try r.take(32)); amounts.append(try r.take(32)) }
                }
                for _ in 0..<outputCount { commitments.append(try r.take(32)) }
            }
            baseRange = prefixEnd..<r.offset
        }
        self.rctType = rctType
        self.fee = fee
        self.encryptedAmounts = amounts
        self.encryptedMasks = masks
        self.commitments = commitments

        // The prunable part (range proofs, CLSAGs) is not parsed, only hashed: it runs to the
        // end of a standalone blob; a miner transaction has none.
        let prunable: ArraySlice<UInt8>
        if whole && version == 2 && rctType != 0 {
            prunable = r.bytes[r.offset...]
            r.offset = r.bytes.count
        } else {
            prunable = []
        }
        let parts =
            version == 1 ? [r.bytes[start..<r.offset]] : [r.bytes[start..<prefixEnd], r.bytes[baseRange], rctType == 0 ? nil : prunable]
        if deferringID {
            id = []
            idParts = parts
        } else {
            id = Self.id(parts.map { $0.map(Keccak256.hash) })
        }
    }

    /// A v1 id is its one part's hash; a v2 id hashes the three parts' hashes (zeros for a
    /// type 0 transaction's missing prunable part).
    private static func id(_ partHashes: [[UInt8]?]) -> [UInt8] {
        partHashes.count == 1 ? partHashes[0]! : Keccak256.hash(v2IDMessage(partHashes))
    }

    private static func v2IDMessage(_ partHashes: [[UInt8]?]) -> [UInt8] {
        partHashes.flatMap { $0 ?? [UInt8](repeating: 0, count: 32) }
    }

    /// The ids of transactions parsed `deferringID`, their parts hashed together (8 or 4 at
    /// a time with AVX-512 or AVX2: a scan hashes every transaction it reads).
    public static func computeIDs(_ txs: inout [MoneroTransaction]) {
        let pending = txs.indices.filter { txs[$0].id.isEmpty }
        let parts = pending.flatMap { txs[$0].idParts.compactMap { $0 } }
        var hashes = Keccak256.hashAll(parts)[...]
        var second = [[UInt8]](), secondOf = [Int]()
        for t in pending {
            let partHashes = txs[t].idParts.map { part in part.map { _ in hashes.removeFirst() } }
            txs[t].idParts = []
            if partHashes.count == 1 {
                txs[t].id = partHashes[0]!
            } else {
                second.append(v2IDMessage(partHashes))
                secondOf.append(t)
            }
        }
        for (t, id) in zip(secondOf, Keccak256.hashAll(second)) { txs[t].id = id }
    }

    /// The keys and payment id in the extra field. Parsing stops at an unknown tag, as
    /// Monero's own partial parse does.
    public var extraFields: (main: [UInt8]?, additional: [[UInt8]], nonce: [UInt8]?) {
        var r = ByteReader(extra, what: "tx extra")
        var main: [UInt8]?
        var additional = [[UInt8]]()
        var nonce: [UInt8]?
        loop: while !r.isAtEnd {
            guard let tag = try? r.byte() else { break }
            switch tag {
            case 0x00: break loop  // padding to the end
            case 0x01:
                guard let key = try? r.take(32) else { break loop }
                if main == nil { main = key }
            case 0x02:
                guard let n = try? r.count(minimumItemSize: 1), let data = try? r.take(n) else { break loop }
                if nonce == nil { nonce = data }
            case 0x04:
                guard let n = try? r.count(minimumItemSize: 32) else { break loop }
                for _ in 0..<n { if let key = try? r.take(32) { additional.append(key) } }
            case 0x03, 0xDE:
                guard let n = try? r.count(minimumItemSize: 1), (try? r.take(n)) != nil else { break loop }
            default: break loop
            }
        }
        return (main, additional, nonce)
    }
}
