import WalletCore
import WalletCrypto

/// What a signature commits to: the three ways Bitcoin hashes a transaction for signing.
public enum Sighash {
    public static let all: UInt32 = 0x01, none: UInt32 = 0x02, single: UInt32 = 0x03, anyoneCanPay: UInt32 = 0x80
    /// Taproot's default: ALL, written as a 64-byte signature with no sighash byte.
    public static let taprootDefault: UInt32 = 0x00

    public enum Failure: WalletError, Equatable {
        case singleWithoutOutput(input: Int)
        case invalidType(UInt32)
        case missingPrevout(input: Int)

        public var code: String { "psbt.sighash" }
        public var message: String {
            switch self {
            case .singleWithoutOutput(let i):
                "input \(i) asks for SIGHASH_SINGLE, and the transaction has no output \(i) (the signature would commit to nothing: refused)"
            case .invalidType(let t):
                "sighash type 0x\(String(t, radix: 16)) is not one of ALL, NONE, SINGLE, each with or without ANYONECANPAY"
            case .missingPrevout(let i): "input \(i): the amount and script of every spent output are needed for a taproot signature"
            }
        }
    }

    static func base(_ type: UInt32) -> UInt32 { type & 0x1F }

    static func check(_ type: UInt32, taproot: Bool) throws(Failure) {
        let valid: Set<UInt32> = taproot ? [0x00, 0x01, 0x02, 0x03, 0x81, 0x82, 0x83] : [0x01, 0x02, 0x03, 0x81, 0x82, 0x83]
        guard valid.contains(type) else { throw .invalidType(type) }
    }

    /// The pre-segwit hash (the original algorithm): the transaction with every other input's
    /// scriptSig emptied and this one's replaced by `scriptCode`, cut down as the type says.
    public static func legacy(_ tx: BitcoinTx, input: Int, scriptCode: [UInt8], type: UInt32) throws(Failure) -> [UInt8] {
        try check(type, taproot: false)
        var copy = tx
        let kind = base(type)
        if kind == single && input >= tx.outputs.count { throw .singleWithoutOutput(input: input) }
        for i in copy.inputs.indices {
            copy.inputs[i].scriptSig = i == input ? scriptCode : []
            copy.inputs[i].witness = []
            if i != input && (kind == none || kind == single) { copy.inputs[i].sequence = 0 }
        }
        if kind == none { copy.outputs = [] }
        if kind == single {
            copy.outputs = Array(copy.outputs.prefix(input + 1))
            for i in 0..<input { copy.outputs[i] = BitcoinTx.Output(value: UInt64.max, script: []) }
        }
        if type & anyoneCanPay != 0 { copy.inputs = [copy.inputs[input]] }
        var w = SerialWriter()
        w.bytes(copy.serialized(witness: false))
        w.uint32(type)
        return Hash.sha256d(w.out)
    }

    /// What every input's BIP143 hash shares — the hashes of all outpoints, all sequences and all
    /// outputs — computed once per transaction: a signer of many inputs would otherwise hash
    /// the whole transaction again for each (BIP143's reason for them).
    public final class Shared {
        let tx: BitcoinTx
        public init(_ tx: BitcoinTx) { self.tx = tx }

        lazy var segwitV0: (prevouts: [UInt8], sequences: [UInt8], outputs: [UInt8]) = {
            var prevouts = SerialWriter(), sequences = SerialWriter(), outputs = SerialWriter()
            for i in tx.inputs {
                prevouts.bytes(i.previousTxID)
                prevouts.uint32(i.previousIndex)
                sequences.uint32(i.sequence)
            }
            for o in tx.outputs { outputs.uint64(o.value); outputs.varBytes(o.script) }
            return (Bitcoin.sha256d(prevouts.out), Bitcoin.sha256d(sequences.out), Bitcoin.sha256d(outputs.out))
        }()

        /// BIP341's single hashes of the outpoints, spent amounts, spent scripts, sequences and
        /// outputs (the spent outputs are the same for every input of one transaction).
        private var taprootParts: [[UInt8]]?
        func taproot(_ spent: [BitcoinTx.Output]) -> [[UInt8]] {
            if let taprootParts { return taprootParts }
            var p = SerialWriter(), a = SerialWriter(), s = SerialWriter(), q = SerialWriter(), o = SerialWriter()
            for (i, out) in zip(tx.inputs, spent) {
                p.bytes(i.previousTxID)
                p.uint32(i.previousIndex)
                a.uint64(out.value)
                s.varBytes(out.script)
                q.uint32(i.sequence)
            }
            for out in tx.outputs { o.uint64(out.value); o.varBytes(out.script) }
            let parts = [p, a, s, q, o].map { Hash.sha256($0.out) }
            taprootParts = parts
            return parts
        }
    }

    /// BIP143 (segwit version 0): `amount` is the spent output's value, `scriptCode` the P2PKH
    /// script of a P2WPKH key or the witness script of a P2WSH. `shared`: the transaction's
    /// hashes, kept for its other inputs.
    public static func segwitV0(
        _ tx: BitcoinTx, input: Int, scriptCode: [UInt8], amount: UInt64, type: UInt32, shared: Shared? = nil
    ) throws(Failure) -> [UInt8] {
        try check(type, taproot: false)
        let kind = base(type), acp = type & anyoneCanPay != 0
        let zero = [UInt8](repeating: 0, count: 32)
        let all = (shared ?? Shared(tx)).segwitV0
        var outputs = zero
        if kind != single && kind != none {
            outputs = all.outputs
        } else if kind == single {
            guard input < tx.outputs.count else { throw .singleWithoutOutput(input: input) }
            var one = SerialWriter()
            one.uint64(tx.outputs[input].value)
            one.varBytes(tx.outputs[input].script)
            outputs = Bitcoin.sha256d(one.out)
        }
        var w = SerialWriter()
        w.out.reserveCapacity(160 + scriptCode.count)
        w.int32(tx.version)
        w.bytes(acp ? zero : all.prevouts)
        w.bytes(acp || kind == single || kind == none ? zero : all.sequences)
        w.bytes(tx.inputs[input].previousTxID)
        w.uint32(tx.inputs[input].previousIndex)
        w.varBytes(scriptCode)
        w.uint64(amount)
        w.uint32(tx.inputs[input].sequence)
        w.bytes(outputs)
        w.uint32(tx.lockTime)
        w.uint32(type)
        return Bitcoin.sha256d(w.out)
    }

    /// BIP341 key-path spending (no annex, no script path): every spent output's amount and
    /// script (`prevouts`, one per input) are committed to.
    public static func taprootKeyPath(
        _ tx: BitcoinTx, input: Int, prevouts: [BitcoinTx.Output], type: UInt32, shared: Shared? = nil
    ) throws(Failure) -> [UInt8] {
        try check(type, taproot: true)
        guard prevouts.count == tx.inputs.count else { throw .missingPrevout(input: input) }
        let kind = base(type), acp = type & anyoneCanPay != 0
        let parts = (shared ?? Shared(tx)).taproot(prevouts)
        var m = SerialWriter()
        m.uint8(0x00)  // epoch
        m.uint8(UInt8(type))
        m.int32(tx.version)
        m.uint32(tx.lockTime)
        if !acp { for part in parts[0..<4] { m.bytes(part) } }
        if kind != none && kind != single { m.bytes(parts[4]) }
        m.uint8(0)  // spend type: key path, no annex
        if acp {
            m.bytes(tx.inputs[input].outpoint)
            m.uint64(prevouts[input].value)
            m.varBytes(prevouts[input].script)
            m.uint32(tx.inputs[input].sequence)
        } else {
            m.uint32(UInt32(input))
        }
        if kind == single {
            guard input < tx.outputs.count else { throw .singleWithoutOutput(input: input) }
            var o = SerialWriter()
            o.uint64(tx.outputs[input].value)
            o.varBytes(tx.outputs[input].script)
            m.bytes(Hash.sha256(o.out))
        }
        return Hash.tagged("TapSighash", m.out)
    }
}
