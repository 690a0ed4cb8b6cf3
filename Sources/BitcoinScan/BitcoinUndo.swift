import Bitcoin
import WalletCore
import WalletScan
import WalletCrypto

/// A node's undo data (`blocks/rev*.dat`, beside the block files, the same obfuscation): per
/// connected block, what each input of each transaction but the coinbase spent, which is how
/// a node can disconnect it. Silent payments read the spent scripts from it.
///
/// Read from bitcoin/bitcoin src/undo.h (TxInUndoFormatter, CTxUndo, CBlockUndo),
/// src/compressor.h and compressor.cpp (TxOutCompression, ScriptCompression,
/// DecompressScript), src/serialize.h (VARINT's default mode), src/node/blockstorage.cpp
/// (WriteUndoDataForBlock: magic ‖ size ‖ CBlockUndo ‖ SHA256d(previous block hash ‖
/// CBlockUndo)), and litecoin-project/litecoin src/undo.h @ 1014fad0 (the top bit of a coin's
/// height code is its peg-out flag; an MWEB undo part may follow the transactions').
public enum BitcoinUndo {
    /// One record of a rev file: the undo data and its checksum.
    public struct Record {
        public let data: ArraySlice<UInt8>
        public let checksum: ArraySlice<UInt8>

        /// Whether it is the undo of the block whose parent is `previous`.
        public func belongs(after previous: [UInt8]) -> Bool {
            Bitcoin.sha256d(previous + data)[...] == checksum
        }
    }

    /// A rev file's records (its bytes unmasked), up to the zeros after the last.
    public static func records(_ bytes: [UInt8], magic: [UInt8], name: String) throws(ScanError) -> [Record] {
        var out: [Record] = []
        var at = 0
        while at + 8 <= bytes.count {
            if bytes[at..<at + 4].allSatisfy({ $0 == 0 }) { break }
            guard Array(bytes[at..<at + 4]) == magic else {
                throw .malformed(what: name, reason: "at byte \(at): \(Hex.encode(bytes[at..<at + 4])) is not this network's magic")
            }
            let size = Int(bytes[at + 4..<at + 8].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            guard size <= bytes.count - at - 8 - 32 else {
                throw .malformed(what: name, reason: "the undo record at byte \(at) ends early (it says \(size) bytes)")
            }
            out.append(Record(data: bytes[at + 8..<at + 8 + size], checksum: bytes[at + 8 + size..<at + 8 + size + 32]))
            at += 8 + size + 32
        }
        return out
    }

    /// The spent scripts of one block's undo data, one per input of every transaction but the
    /// coinbase, in block order.
    public static func spentScripts(_ data: ArraySlice<UInt8>, dialect: BitcoinDialect, what: String) throws(ScanError) -> [[UInt8]] {
        var reader = ByteReader(Array(data), what: what)
        let transactions = try reader.compactSize(maximum: data.count)
        var scripts: [[UInt8]] = []
        for _ in 0..<transactions {
            let inputs = try reader.compactSize(maximum: data.count - reader.offset)
            for _ in 0..<inputs {
                let code = try reader.coreVarInt()
                // Litecoin: the top bit is the peg-out flag; the height is the rest over 2.
                let height = (dialect.mweb ? code & 0x7FFF_FFFF : code) >> 1
                if height > 0 { _ = try reader.coreVarInt() }  // a dummy (once the transaction's version)
                _ = try reader.coreVarInt()  // the amount, compressed
                scripts.append(try decompressedScript(&reader))
            }
        }
        // Litecoin may keep an MWEB undo part after the transactions'; Bitcoin has nothing more.
        guard dialect.mweb || reader.isAtEnd else {
            throw .malformed(what: what, reason: "\(reader.bytes.count - reader.offset) bytes after the undo data")
        }
        return scripts
    }

    /// ScriptCompression: six special forms (P2PKH, P2SH, P2PK with a compressed or an
    /// uncompressed key, that one stored by its x), else the script's size + 6 and the script.
    static func decompressedScript(_ reader: inout ByteReader) throws(ScanError) -> [UInt8] {
        let kind = try reader.coreVarInt()
        switch kind {
        case 0: return ScriptTemplate.p2pkh(try reader.take(20))
        case 1: return [0xA9, 0x14] + (try reader.take(20)) + [0x87]
        case 2, 3: return [33, UInt8(kind)] + (try reader.take(32)) + [0xAC]
        case 4, 5:
            let x = try reader.take(32)
            guard let key = try? Secp256k1.PublicKey(parsing: [UInt8(kind - 2)] + x) else {
                throw .malformed(what: reader.what, reason: "an uncompressed P2PK key in the undo data is not on the curve")
            }
            return [65] + key.uncompressed + [0xAC]
        default:
            let size = Int(clamping: kind - 6)
            // Bitcoin Core keeps a script over MAX_SCRIPT_SIZE as OP_RETURN alone.
            let script = try reader.take(size)
            return size > 10_000 ? [0x6A] : script
        }
    }
}

extension ByteReader {
    /// Bitcoin Core's VARINT (serialize.h, the default mode): base 128, most significant group
    /// first, each continued group one less than written, so every number has one encoding.
    mutating func coreVarInt() throws(ScanError) -> UInt64 {
        var n: UInt64 = 0
        while true {
            let b = try byte()
            guard n <= UInt64.max >> 7 else { throw .malformed(what: what, reason: "a VARINT over 64 bits at byte \(offset - 1)") }
            n = n << 7 | UInt64(b & 0x7F)
            guard b & 0x80 != 0 else { return n }
            guard n < UInt64.max else { throw .malformed(what: what, reason: "a VARINT over 64 bits at byte \(offset - 1)") }
            n += 1
        }
    }
}
