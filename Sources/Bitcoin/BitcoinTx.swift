import WalletCore

/// A transaction as a signer holds it: owned fields, read strictly (BIP144's segwit form or the
/// old one) and written back byte for byte. The scanner's `BitcoinTransaction` reads blocks in
/// place instead; this one is built, changed and signed.
public struct BitcoinTx: Sendable, Equatable {
    public struct Input: Sendable, Equatable {
        /// The spent output's txid, internal byte order.
        public var previousTxID: [UInt8]
        public var previousIndex: UInt32
        public var scriptSig: [UInt8]
        public var sequence: UInt32
        public var witness: [[UInt8]]

        public init(
            previousTxID: [UInt8], previousIndex: UInt32, scriptSig: [UInt8] = [], sequence: UInt32 = 0xFFFF_FFFF, witness: [[UInt8]] = []
        ) {
            (self.previousTxID, self.previousIndex, self.scriptSig, self.sequence, self.witness) = (
                previousTxID, previousIndex, scriptSig, sequence, witness
            )
        }

        /// txid ‖ vout (little-endian).
        public var outpoint: [UInt8] { Bitcoin.outpoint(previousTxID, previousIndex) }
    }

    public struct Output: Sendable, Equatable {
        public var value: UInt64
        public var script: [UInt8]

        public init(value: UInt64, script: [UInt8]) { (self.value, self.script) = (value, script) }
    }

    public var version: Int32
    public var inputs: [Input]
    public var outputs: [Output]
    public var lockTime: UInt32

    public init(version: Int32, inputs: [Input], outputs: [Output], lockTime: UInt32) {
        (self.version, self.inputs, self.outputs, self.lockTime) = (version, inputs, outputs, lockTime)
    }

    /// Whether any input carries a witness: the serialization then has the marker and flag.
    public var hasWitness: Bool { inputs.contains { !$0.witness.isEmpty } }

    /// The transaction's bytes; `witness: false` leaves marker, flag and witnesses out (what
    /// the txid hashes).
    public func serialized(witness: Bool = true) -> [UInt8] {
        var w = SerialWriter()
        let segwit = witness && hasWitness
        w.int32(version)
        if segwit { w.bytes([0x00, 0x01]) }
        w.compactSize(inputs.count)
        for i in inputs {
            w.bytes(i.previousTxID)
            w.uint32(i.previousIndex)
            w.varBytes(i.scriptSig)
            w.uint32(i.sequence)
        }
        w.compactSize(outputs.count)
        for o in outputs {
            w.uint64(o.value)
            w.varBytes(o.script)
        }
        if segwit {
            for i in inputs {
                w.compactSize(i.witness.count)
                for item in i.witness { w.varBytes(item) }
            }
        }
        w.uint32(lockTime)
        return w.out
    }

    /// SHA256d of the serialization without witnesses, internal byte order.
    public var txid: [UInt8] { Bitcoin.sha256d(serialized(witness: false)) }

    /// Reads one transaction, all of `bytes`. `allowWitness: false` refuses the segwit form (a
    /// PSBT's unsigned transaction must be in the old one).
    public init(parsing bytes: [UInt8], allowWitness: Bool = true) throws(BitcoinTxError) {
        var r = SerialReader(bytes)
        version = try r.int32()
        var segwit = false
        // A 0x00 after the version is BIP144's marker, unless only the old form is allowed:
        // then it is a count of no inputs (a PSBT may hold such a transaction).
        if allowWitness && r.peek() == 0x00 {
            r.skip(1)
            guard try r.uint8() == 0x01 else { throw .malformed("the segwit flag is not 1") }
            segwit = true
        }
        let inputCount = try r.compactSize(maximum: r.remaining / 41)
        var inputs = [Input]()
        inputs.reserveCapacity(inputCount)
        for _ in 0..<inputCount {
            let txid = try r.bytes(32), index = try r.uint32()
            let script = try r.varBytes()
            inputs.append(Input(previousTxID: txid, previousIndex: index, scriptSig: script, sequence: try r.uint32()))
        }
        let outputCount = try r.compactSize(maximum: r.remaining / 9)
        var outputs = [Output]()
        outputs.reserveCapacity(outputCount)
        for _ in 0..<outputCount {
            let value = try r.uint64()
            guard value <= PSBTField.maxMoney else { throw .malformed("an output of \(value) satoshis, more than there will ever be") }
            outputs.append(Output(value: value, script: try r.varBytes()))
        }
        if segwit {
            for i in inputs.indices {
                let items = try r.compactSize(maximum: r.remaining)
                for _ in 0..<items { inputs[i].witness.append(try r.varBytes()) }
            }
            guard inputs.contains(where: { !$0.witness.isEmpty }) else {
                throw .malformed("the segwit form with no witness (BIP144: use the old form)")
            }
        }
        lockTime = try r.uint32()
        guard r.remaining == 0 else { throw .malformed("\(r.remaining) bytes after the transaction") }
        self.inputs = inputs
        self.outputs = outputs
    }
}

public enum BitcoinTxError: WalletError, Equatable {
    case malformed(String)

    public var code: String { "bitcoin.invalid_transaction" }
    public var message: String {
        switch self {
        case .malformed(let reason): "not a valid transaction: \(reason)"
        }
    }
}

/// Little-endian writing as Bitcoin serializes.
struct SerialWriter {
    var out = [UInt8]()

    mutating func bytes(_ b: some Sequence<UInt8>) { out.append(contentsOf: b) }
    mutating func uint8(_ v: UInt8) { out.append(v) }
    mutating func uint32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
    mutating func int32(_ v: Int32) { uint32(UInt32(bitPattern: v)) }
    mutating func uint64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }

    mutating func compactSize(_ n: Int) { compactSize(UInt64(n)) }

    mutating func compactSize(_ n: UInt64) {
        switch n {
        case ..<0xFD: out.append(UInt8(n))
        case ...0xFFFF: out.append(0xFD); withUnsafeBytes(of: UInt16(n).littleEndian) { out.append(contentsOf: $0) }
        case ...0xFFFF_FFFF: out.append(0xFE); uint32(UInt32(n))
        default: out.append(0xFF); uint64(UInt64(n))
        }
    }

    mutating func varBytes(_ b: [UInt8]) {
        compactSize(b.count)
        out += b
    }
}

/// Little-endian reading of owned bytes for the signer (the scanner reads blocks with WalletScan's
/// ByteReader and ScanError), every length bounded by what is left before anything is allocated.
struct SerialReader {
    let data: [UInt8]
    var at = 0

    init(_ data: [UInt8]) { self.data = data }

    var remaining: Int { data.count - at }
    func peek() -> UInt8? { at < data.count ? data[at] : nil }
    mutating func skip(_ n: Int) { at += n }

    mutating func bytes(_ n: Int) throws(BitcoinTxError) -> [UInt8] {
        guard n >= 0, n <= remaining else { throw .malformed("it ends early (\(n) bytes wanted at byte \(at), \(remaining) left)") }
        defer { at += n }
        return Array(data[at..<at + n])
    }

    mutating func uint8() throws(BitcoinTxError) -> UInt8 { try bytes(1)[0] }

    mutating func uint32() throws(BitcoinTxError) -> UInt32 {
        try bytes(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    mutating func int32() throws(BitcoinTxError) -> Int32 { Int32(bitPattern: try uint32()) }

    mutating func uint64() throws(BitcoinTxError) -> UInt64 {
        try bytes(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// Canonical CompactSize only (as Bitcoin Core reads it), at most `maximum`.
    mutating func compactSize(maximum: Int) throws(BitcoinTxError) -> Int {
        let first = try uint8()
        let value: UInt64, least: UInt64
        switch first {
        case 0xFD: value = UInt64(try bytes(2).reversed().reduce(UInt16(0)) { $0 << 8 | UInt16($1) }); least = 0xFD
        case 0xFE: value = UInt64(try uint32()); least = 0x1_0000
        case 0xFF: value = try uint64(); least = 0x1_0000_0000
        default: return try bounded(UInt64(first), maximum)
        }
        guard value >= least else { throw .malformed("a length written in more bytes than it needs (non-canonical CompactSize)") }
        return try bounded(value, maximum)
    }

    private func bounded(_ value: UInt64, _ maximum: Int) throws(BitcoinTxError) -> Int {
        guard value <= UInt64(max(maximum, 0)) else {
            throw .malformed("a count of \(value) where at most \(max(maximum, 0)) fit in the bytes left")
        }
        return Int(value)
    }

    mutating func varBytes() throws(BitcoinTxError) -> [UInt8] { try bytes(try compactSize(maximum: remaining)) }
}
