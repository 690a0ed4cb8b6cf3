import CZstd

/// zstd decompression (libzstd) of a whole file, with a ceiling against decompression bombs.
enum Zstd {
    static let maximum = 1 << 31

    static func decompress(_ input: [UInt8]) throws -> [UInt8] {
        guard let stream = ZSTD_createDStream() else { throw ScanError.unsupported("zstd: out of memory") }
        defer { ZSTD_freeDStream(stream) }
        ZSTD_initDStream(stream)
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
        try input.withUnsafeBytes { raw in
            var inBuffer = ZSTD_inBuffer(src: raw.baseAddress, size: raw.count, pos: 0)
            repeat {
                let result = chunk.withUnsafeMutableBytes { c -> Int in
                    var outBuffer = ZSTD_outBuffer(dst: c.baseAddress, size: c.count, pos: 0)
                    let rc = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
                    return ZSTD_isError(rc) != 0 ? -1 : outBuffer.pos
                }
                guard result >= 0 else { throw ScanError.malformed(what: "zstd data", reason: "not valid zstd") }
                out += chunk[0..<result]
                guard out.count <= maximum else { throw ScanError.unsupported("zstd: more than 2 GiB decompressed") }
            } while inBuffer.pos < inBuffer.size
        }
        return out
    }
}
