import CZstd

/// zstd decompression (libzstd) of a whole file, with a ceiling against decompression bombs.
enum Zstd {

    static let maximum = 1 << 31
    /// The first bytes of every zstd frame.
    static let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    static func decompress(_ input: [UInt8]) throws -> [UInt8] {
        guard let stream = ZSTD_createDStream() else { throw ScanError.unsupported("zstd: out of memory") }
        defer { ZSTD_freeDStream(stream) }
        ZSTD_initDStream(stream)
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
        // The last call's hint is 0 only when a frame ended exactly: anything else is a cut file.
        var hint = 1
        var filled = false  // a full output chunk may leave more inside the decoder
        try input.withUnsafeBytes { raw in
            var inBuffer = ZSTD_inBuffer(src: raw.baseAddress, size: raw.count, pos: 0)
            repeat {
                var produced = 0
                let rc = chunk.withUnsafeMutableBytes { c -> Int in
                    var outBuffer = ZSTD_outBuffer(dst: c.baseAddress, size: c.count, pos: 0)
                    let rc = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
                    produced = outBuffer.pos
                    return rc
                }
                guard ZSTD_isError(rc) == 0 else { throw ScanError.malformed(what: "zstd data", reason: "not valid zstd") }
                hint = rc
                filled = produced == chunk.count
                out += chunk[0..<produced]
                guard out.count <= maximum else { throw ScanError.unsupported("zstd: more than 2 GiB decompressed") }
            } while inBuffer.pos < inBuffer.size || filled
        }
        guard hint == 0 else { throw ScanError.truncated(what: "zstd data", offset: input.count) }
        return out
    }
}
