import WalletCore

/// A Partially Signed Bitcoin Transaction (BIP174 version 0; BIP370 version 2 read; BIP371's
/// taproot fields). Every map is kept as the key-value pairs it arrived with, in order, so a
/// signer adds its signatures and leaves everything else — fields it does not know, proprietary
/// ones — byte for byte as it was. Known fields are checked when read: a PSBT that breaks a rule
/// of the BIPs is refused with the rule it breaks.
public struct PSBT: Sendable, Equatable {
    public struct Pair: Sendable, Equatable {
        /// The whole key: its type as a CompactSize, then the key data.
        public let key: [UInt8]
        public var value: [UInt8]
        public let type: UInt64
        public let keyData: [UInt8]

        public init(type: UInt64, keyData: [UInt8] = [], value: [UInt8]) {
            var w = SerialWriter()
            w.compactSize(type)
            self.key = w.out + keyData
            (self.type, self.keyData, self.value) = (type, keyData, value)
        }

        init(key: [UInt8], value: [UInt8]) throws(PSBTError) {
            var r = SerialReader(key)
            guard let t = try? r.compactSize(maximum: Int.max) else { throw .malformed("a key whose type is not a CompactSize") }
            (self.key, self.value, self.type, self.keyData) = (key, value, UInt64(t), Array(key[r.at...]))
        }
    }

    /// One map: the global one, an input's or an output's.
    public struct Map: Sendable, Equatable {
        public var pairs: [Pair] = []

        public init(pairs: [Pair] = []) { self.pairs = pairs }

        /// The value of the field of this type with empty key data.
        public func value(_ type: UInt64) -> [UInt8]? { pairs.first { $0.type == type && $0.keyData.isEmpty }?.value }
        public func all(_ type: UInt64) -> [Pair] { pairs.filter { $0.type == type } }

        /// Sets a field, replacing one with the same key where it was.
        public mutating func set(_ pair: Pair) {
            if let i = pairs.firstIndex(where: { $0.key == pair.key }) { pairs[i] = pair } else { pairs.append(pair) }
        }

        public mutating func remove(where drop: (Pair) -> Bool) { pairs.removeAll(where: drop) }
    }

    public static let magic: [UInt8] = [0x70, 0x73, 0x62, 0x74, 0xFF]

    /// 0 (BIP174) or 2 (BIP370).
    public let version: UInt32
    public var global: Map
    public var inputs: [Map]
    public var outputs: [Map]

    /// The transaction being signed: version 0's unsigned transaction, or the one version 2's
    /// fields describe (no scriptSigs, no witnesses).
    public let transaction: BitcoinTx

    /// BIP174's Creator: a version 0 PSBT of an unsigned transaction, every map empty.
    public init(unsignedTransaction tx: BitcoinTx) throws(PSBTError) {
        guard tx.inputs.allSatisfy({ $0.scriptSig.isEmpty && $0.witness.isEmpty }) else {
            throw .unsignedTransaction("an input is already signed")
        }
        version = 0
        global = Map(pairs: [Pair(type: PSBTField.globalUnsignedTx, value: tx.serialized(witness: false))])
        inputs = Array(repeating: Map(), count: tx.inputs.count)
        outputs = Array(repeating: Map(), count: tx.outputs.count)
        transaction = tx
    }

    public init(base64 text: String) throws(PSBTError) {
        // Line breaks and spaces a mail or a terminal put in are not part of it (ASCII ones:
        // Unicode's whitespace property is slow to look up).
        guard let bytes = Base64.decode(utf8: text.utf8.filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else {
            throw .notBase64
        }
        try self.init(parsing: bytes)
    }

    public init(parsing bytes: [UInt8]) throws(PSBTError) {
        guard bytes.count >= 5, Array(bytes.prefix(5)) == Self.magic else { throw .notPSBT }
        var r = SerialReader(bytes)
        r.skip(5)
        let global = try Self.readMap(&r, name: "global")
        let version: UInt32
        if let v = global.value(PSBTField.globalVersion) {
            version = v.littleEndianUInt32
            guard version == 0 || version == 2 else { throw .unsupportedVersion(version) }
        } else {
            version = 0
        }
        try PSBTField.check(global, scope: .global, name: "global", version: version)
        let tx: BitcoinTx
        let inputCount: Int, outputCount: Int
        if version == 0 {
            guard let raw = global.value(PSBTField.globalUnsignedTx) else {
                throw .missing(map: "global", field: "PSBT_GLOBAL_UNSIGNED_TX")
            }
            tx = try PSBTField.unsignedTransaction(raw)
            (inputCount, outputCount) = (tx.inputs.count, tx.outputs.count)
        } else {
            for (f, n) in [
                (PSBTField.globalTxVersion, "PSBT_GLOBAL_TX_VERSION"), (PSBTField.globalInputCount, "PSBT_GLOBAL_INPUT_COUNT"),
                (PSBTField.globalOutputCount, "PSBT_GLOBAL_OUTPUT_COUNT"),
            ] where global.value(f) == nil {
                throw .missing(map: "global", field: n)
            }
            inputCount = try PSBTField.count(global.value(PSBTField.globalInputCount)!, name: "PSBT_GLOBAL_INPUT_COUNT", limit: r.remaining)
            outputCount = try PSBTField.count(
                global.value(PSBTField.globalOutputCount)!, name: "PSBT_GLOBAL_OUTPUT_COUNT", limit: r.remaining)
            tx = BitcoinTx(version: 0, inputs: [], outputs: [], lockTime: 0)
        }
        var inputs = [Map](), outputs = [Map]()
        for i in 0..<inputCount {
            let map = try Self.readMap(&r, name: "input \(i)")
            try PSBTField.check(map, scope: .input, name: "input \(i)", version: version)
            inputs.append(map)
        }
        for i in 0..<outputCount {
            let map = try Self.readMap(&r, name: "output \(i)")
            try PSBTField.check(map, scope: .output, name: "output \(i)", version: version)
            outputs.append(map)
        }
        guard r.remaining == 0 else { throw .trailingBytes(r.remaining) }
        self.version = version
        self.global = global
        self.inputs = inputs
        self.outputs = outputs
        self.transaction = version == 0 ? tx : try PSBTField.version2Transaction(global: global, inputs: inputs, outputs: outputs)
        // A full previous transaction must be the one the input spends, with the output it
        // names: otherwise its amounts could be anyone's.
        for (i, map) in inputs.enumerated() {
            // Its value was read as a transaction by PSBTField.check.
            guard let raw = map.value(PSBTField.inNonWitnessUtxo), let previous = try? BitcoinTx(parsing: raw) else { continue }
            let spent = transaction.inputs[i]
            guard previous.txid == spent.previousTxID else {
                throw .utxoMismatch(
                    input: i,
                    reason:
                        "PSBT_IN_NON_WITNESS_UTXO is transaction \(Bitcoin.display(previous.txid)), and the input spends \(Bitcoin.display(spent.previousTxID))"
                )
            }
            guard Int(spent.previousIndex) < previous.outputs.count else {
                throw .utxoMismatch(
                    input: i, reason: "it spends output \(spent.previousIndex) of a transaction with \(previous.outputs.count)")
            }
        }
    }

    /// A map: key-value pairs up to a zero byte; a key twice is refused (BIP174).
    static func readMap(_ r: inout SerialReader, name: String) throws(PSBTError) -> Map {
        var map = Map()
        var seen = Set<[UInt8]>()
        while true {
            guard r.remaining > 0 else { throw .truncated(map: name) }
            let keyLength: Int
            do { keyLength = try r.compactSize(maximum: r.remaining) } catch { throw .truncated(map: name) }
            if keyLength == 0 { return map }
            let key: [UInt8], value: [UInt8]
            do {
                key = try r.bytes(keyLength)
                value = try r.bytes(try r.compactSize(maximum: r.remaining))
            } catch {
                throw .truncated(map: name)
            }
            guard seen.insert(key).inserted else { throw .duplicateKey(map: name, key: Hex.encode(key)) }
            map.pairs.append(try Pair(key: key, value: value))
        }
    }

    /// The PSBT's bytes: each map's pairs as they are held, in order.
    public func serialized() -> [UInt8] {
        var w = SerialWriter()
        w.bytes(Self.magic)
        for map in [global] + inputs + outputs {
            for p in map.pairs {
                w.varBytes(p.key)
                w.varBytes(p.value)
            }
            w.uint8(0)
        }
        return w.out
    }

    public var base64: String { Base64.encode(serialized()) }
}

extension Array where Element == UInt8 {
    var littleEndianUInt32: UInt32 { reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
    var littleEndianUInt64: UInt64 { reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
}
