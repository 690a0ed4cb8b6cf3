/// Monero/Bitcoin-style LEB128 varint bytes (the encoding `ByteReader.varint` reads): Monero's
/// address prefixes and its block and transaction parsers.
package func varintBytes(_ value: UInt64) -> [UInt8] {
    var v = value
    var out = [UInt8]()
    while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
    out.append(UInt8(v))
    return out
}
