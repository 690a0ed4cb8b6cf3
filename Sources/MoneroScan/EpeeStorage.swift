import WalletCore
import WalletScan
import Monero

/// Monero's epee "portable storage" binary format, as far as get_blocks_by_height.bin needs it:
/// a request with one array of uint64, and a reply of nested objects, strings and numbers.
/// Here, not in MoneroNode, so that the decoder of a node's untrusted answers builds and is
/// fuzzed without the socket code.
package enum EpeeStorage {
    package indirect enum Value {
        case int(Int64), uint(UInt64), double(Double), string([UInt8]), bool(Bool)
        case object([String: Value])
        case array([Value])

        package subscript(key: String) -> Value? { if case .object(let o) = self { o[key] } else { nil } }
        package var string: [UInt8]? { if case .string(let s) = self { s } else { nil } }
        package var array: [Value]? { if case .array(let a) = self { a } else { nil } }
    }

    package static let header: [UInt8] = [0x01, 0x11, 0x01, 0x01, 0x01, 0x01, 0x02, 0x01, 0x01]

    /// {name: [uint64…]}
    package static func request(_ name: String, uint64s: [UInt64]) -> [UInt8] {
        var out = header + packed(1)
        out.append(UInt8(name.utf8.count))
        out += Array(name.utf8)
        out.append(0x05 | 0x80)  // array of uint64
        out += packed(UInt64(uint64s.count))
        for v in uint64s { out += (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
        return out
    }

    /// get_blocks.bin's request from `startHeight` (> 0, so the daemon needs no block ids;
    /// it still wants the field): blocks with their transactions, not pruned.
    package static func blocksRequest(startHeight: UInt64) -> [UInt8] {
        var out = header + packed(3)
        func name(_ text: String, type: UInt8) { out.append(UInt8(text.utf8.count)); out += Array(text.utf8); out.append(type) }
        name("start_height", type: 0x05)
        out += (0..<8).map { UInt8(truncatingIfNeeded: startHeight >> (8 * UInt64($0))) }
        name("prune", type: 0x0B)
        out.append(0)
        name("block_ids", type: 0x0A)  // the ids as one blob: none
        out += packed(0)
        return out
    }

    package static func packed(_ v: UInt64) -> [UInt8] {
        switch v {
        case 0..<64: return [UInt8(v << 2)]
        case 64..<16384: let x = UInt16(v << 2 | 1); return [UInt8(x & 0xff), UInt8(x >> 8)]
        case 16384..<(1 << 30): let x = UInt32(v << 2 | 2); return (0..<4).map { UInt8(truncatingIfNeeded: x >> (8 * UInt32($0))) }
        default: let x = v << 2 | 3; return (0..<8).map { UInt8(truncatingIfNeeded: x >> (8 * UInt64($0))) }
        }
    }

    package static func parse(_ bytes: [UInt8]) throws(ScanError) -> Value {
        var r = ByteReader(bytes, what: "node reply (epee)")
        guard try r.take(9) == header else { throw .malformed(what: "node reply", reason: "not epee portable storage") }
        return try section(&r, depth: 0)
    }

    private static func size(_ r: inout ByteReader) throws(ScanError) -> UInt64 {
        let first = try r.byte()
        let width = [1, 2, 4, 8][Int(first & 3)]
        var v = UInt64(first)
        for i in 1..<width { v |= UInt64(try r.byte()) << (8 * UInt64(i)) }
        return v >> 2
    }

    private static func section(_ r: inout ByteReader, depth: Int) throws(ScanError) -> Value {
        guard depth < 16 else { throw .malformed(what: "node reply", reason: "nested too deep") }
        let count = try size(&r)
        var object = [String: Value]()
        for _ in 0..<count {
            let nameLength = Int(try r.byte())
            let name = String(decoding: try r.take(nameLength), as: UTF8.self)
            let type = try r.byte()
            object[name] = try value(&r, type: type, depth: depth)
        }
        return .object(object)
    }

    private static func value(_ r: inout ByteReader, type: UInt8, depth: Int) throws(ScanError) -> Value {
        if type & 0x80 != 0 {
            let n = try size(&r)
            guard n <= UInt64(r.bytes.count - r.offset) else { throw .malformed(what: "node reply", reason: "array longer than the reply") }
            var items = [Value]()
            for _ in 0..<n { items.append(try scalar(&r, type: type & 0x7F, depth: depth)) }
            return .array(items)
        }
        return try scalar(&r, type: type, depth: depth)
    }

    private static func scalar(_ r: inout ByteReader, type: UInt8, depth: Int) throws(ScanError) -> Value {
        func le(_ n: Int) throws(ScanError) -> UInt64 {
            try r.take(n).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        }
        switch type {
        case 1: return .int(Int64(bitPattern: try le(8)))
        case 2: return .int(Int64(Int32(truncatingIfNeeded: try le(4))))
        case 3: return .int(Int64(Int16(truncatingIfNeeded: try le(2))))
        case 4: return .int(Int64(Int8(truncatingIfNeeded: try le(1))))
        case 5: return .uint(try le(8))
        case 6: return .uint(try le(4))
        case 7: return .uint(try le(2))
        case 8: return .uint(try le(1))
        case 9: return .double(Double(bitPattern: try le(8)))
        case 10:
            let n = try size(&r)
            guard n <= UInt64(r.bytes.count - r.offset) else { throw .truncated(what: "node reply", offset: r.offset) }
            return .string(try r.take(Int(n)))
        case 11: return .bool(try r.byte() != 0)
        case 12: return try section(&r, depth: depth + 1)
        default: throw .malformed(what: "node reply", reason: "unknown epee type \(type)")
        }
    }
}
