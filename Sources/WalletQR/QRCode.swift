import CQREncode
import WalletCore

public enum QRError: WalletError, Equatable {
    case encodingFailed
    public var code: String { "qr.encoding_failed" }
    public var message: String { "the text cannot be encoded as a QR code" }
}

/// A QR code made by libqrencode, and three ways to show it: terminal text, SVG, PNG.
public struct QRCode: Sendable {
    /// Modules per side, without the quiet zone.
    public let size: Int
    /// Row-major; true is a dark module.
    public let modules: [Bool]
    /// The light border the standard asks for, in modules.
    public static let quietZone = 4

    /// Byte mode, error correction level M (15 % damage), the smallest version that fits.
    public init(text: String) throws(QRError) {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { throw .encodingFailed }
        defer { QRcode_free(code) }
        size = Int(code.pointee.width)
        modules = (0..<(size * size)).map { code.pointee.data[$0] & 1 == 1 }
    }

    /// A frame of an animated QR (a UR part in upper case, a BBQr part): libqrencode picks the
    /// modes, so QR's alphanumeric set (0-9 A-Z space $%*+-./:) takes 5.5 bits a character
    /// instead of 8; level L, as BBQr.md and the UR wallets use on a screen.
    public init(frame text: String) throws(QRError) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1) else { throw .encodingFailed }
        defer { QRcode_free(code) }
        size = Int(code.pointee.width)
        modules = (0..<(size * size)).map { code.pointee.data[$0] & 1 == 1 }
    }

    private func dark(_ x: Int, _ y: Int) -> Bool {
        let (mx, my) = (x - Self.quietZone, y - Self.quietZone)
        guard mx >= 0, my >= 0, mx < size, my < size else { return false }
        return modules[my * size + mx]
    }

    private var fullSize: Int { size + 2 * Self.quietZone }

    /// Two modules per character cell with half blocks; light modules are drawn (foreground)
    /// and dark ones left as background, which scans on the usual dark terminal.
    public func terminalText() -> String {
        var out = ""
        for y in stride(from: 0, to: fullSize, by: 2) {
            for x in 0..<fullSize {
                switch (dark(x, y), dark(x, y + 1) || y + 1 >= fullSize) {
                case (false, false): out += "█"
                case (false, true): out += "▀"
                case (true, false): out += "▄"
                case (true, true): out += " "
                }
            }
            out += "\n"
        }
        return out
    }

    public func svg(moduleSize: Int = 8) -> String {
        let total = fullSize * moduleSize
        var path = ""
        for y in 0..<fullSize {
            for x in 0..<fullSize where dark(x, y) {
                path += "M\(x * moduleSize) \(y * moduleSize)h\(moduleSize)v\(moduleSize)h-\(moduleSize)z"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(total)" height="\(total)" viewBox="0 0 \(total) \(total)" shape-rendering="crispEdges">
            <rect width="100%" height="100%" fill="#fff"/><path fill="#000" d="\(path)"/>
            </svg>

            """
    }

    /// An 8-bit greyscale PNG, deflate in stored blocks (no compressor needed).
    public func png(scale: Int = 8) -> [UInt8] {
        let width = fullSize * scale
        var raw = [UInt8]()
        raw.reserveCapacity((width + 1) * width)
        for y in 0..<width {
            raw.append(0)  // filter: none
            for x in 0..<width { raw.append(dark(x / scale, y / scale) ? 0 : 255) }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, raw.count - offset)
            zlib.append(offset + n == raw.count ? 1 : 0)
            zlib += [UInt8(n & 0xff), UInt8(n >> 8), UInt8(~n & 0xff), UInt8((~n >> 8) & 0xff)]
            zlib += raw[offset..<(offset + n)]
            offset += n
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        zlib += be32(b << 16 | a)
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(width)) + [8, 0, 0, 0, 0])
        png += chunk("IDAT", zlib)
        png += chunk("IEND", [])
        return png
    }

    private func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(CRC32.checksum(body))
    }
}
