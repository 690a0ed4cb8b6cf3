#if canImport(Glibc)
    import Glibc
#endif
import BenchSupport
import WalletCore
import WalletUR

/// Hostile parts as a screen would show them: the texts of mixed parts (sequence numbers past
/// seq_len) of a 10,000-fragment, 400 KB message, random data, never completing. For each
/// count, the seconds per part of the decoder (URText parse + URDecoder.receive) and, as the
/// reference in the same run, of the parse alone: a decoder whose work per part does not grow
/// with the parts before it keeps the same figure at every count.
func urHostileBench() {
    let n = 10_000, fragment = 40, checksum: UInt32 = 0x5A7C_4E11
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func byte() -> UInt8 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 56)
    }
    let texts = (0..<10_000).map { i -> String in
        let part = FountainPart(
            sequence: UInt32(n + 1 + i), sequenceLength: n, messageLength: n * fragment, checksum: checksum,
            data: (0..<fragment).map { _ in byte() })
        return "ur:crypto-psbt/\(part.sequence)-\(n)/" + Bytewords.encode(part.cbor, style: .minimal)
    }
    for count in [1_000, 2_000, 5_000, 10_000] {
        let start = now()
        var decoder = URDecoder()
        for t in texts.prefix(count) { try! decoder.receive(t) }
        let decode = (now() - start) / Double(count)
        let parseStart = now()
        var sink = 0
        for t in texts.prefix(count) { if case .part(_, let p) = try! URText(t) { sink &+= p.data.count } }
        let parse = (now() - parseStart) / Double(count)
        let line = "{\"parts\":\(count),\"decode_s_per_part\":\(decode),\"parse_s_per_part\":\(parse),\"kept\":\(sink > 0 ? 1 : 0)}\n"
        _ = line.withCString { write(1, $0, strlen($0)) }
    }
}
