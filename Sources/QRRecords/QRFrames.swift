#if canImport(Glibc)
    import Glibc
#endif
import WalletCore
import WalletQR
import WalletRecords
import WalletUR

/// The frames of one answer.
public struct QRFrames {
    /// 200 bytes a frame: a version 17-20 QR code at level L, which phone and webcam decoders
    /// read from a screen at 4 frames a second (BBQr.md recommends 250 ms a frame).
    public static let defaultFragment = 200
    public static let defaultFramesPerSecond = 4.0

    public let transport: QRTransport
    /// The parts that carry the message once each (a UR's fragments, a BBQr set).
    public let parts: [String]
    private var encoder: UREncoder?

    public init(_ payload: [UInt8], transport: QRTransport, fragment: Int) throws(URError) {
        self.transport = transport
        switch transport {
        case .ur(let type):
            var encoder = UREncoder(try UR(type: type, cbor: payload), maxFragmentLength: fragment)
            parts = (0..<encoder.sequenceLength).map { _ in encoder.nextPart() }
            self.encoder = encoder
        case .bbqr(let fileType):
            // Base32 carries 5 bits a character: `fragment` bytes take 8/5 as many characters.
            parts = try BBQr.split(payload, type: fileType, encoding: .zlib, maxCharacters: 8 + (fragment * 8 + 4) / 5)
        }
    }

    /// The frame after the last one: a UR goes on with fountain mixes (a camera that missed a
    /// frame completes from any others); a BBQr set starts again.
    mutating func nextFrame(_ shown: Int) -> String {
        guard var encoder, !encoder.isSinglePart else { return parts[shown % parts.count] }
        if shown < parts.count { return parts[shown] }
        defer { self.encoder = encoder }
        return encoder.nextPart()
    }

    /// Part records: {"type":"qr_part","transport":…,"ur_type"/"file_type":…,"index","parts","text"}.
    public func records() -> [JSONObject] {
        parts.enumerated().map { i, text in
            var r = JSONObject()
            r["type"] = .string("qr_part")
            r["transport"] = .string(transport.name)
            switch transport {
            case .ur(let type): r["ur_type"] = .string(type)
            case .bbqr(let fileType): r["file_type"] = .string(String(fileType.rawValue))
            }
            r["index"] = .number(String(i + 1))
            r["parts"] = .number(String(parts.count))
            r["text"] = .string(text)
            return r
        }
    }

    /// A frame as QR shows it: URs in upper case, for QR's alphanumeric mode (BCR-2020-005).
    static func frameText(_ part: String) -> String { UR.isUR(part) ? part.uppercased() : part }

    /// Writes part-001.png (or .svg), … into `directory`; returns their paths.
    public func writeImages(to directory: String, format: String) throws(CLIError) -> [String] {
        guard QRSink.makeDirectory(directory) else {
            throw .cannotOpen(path: directory, reason: "cannot create the directory: \(String(cString: strerror(errno)))")
        }
        var paths: [String] = []
        for (i, part) in parts.enumerated() {
            let code: QRCode
            do { code = try QRCode(frame: Self.frameText(part)) } catch { throw .writeFailed(reason: "a part does not fit a QR code") }
            let number = String(i + 1)
            let path = directory + "/part-" + String(repeating: "0", count: max(0, 3 - number.count)) + number + "." + format
            try QRSink.writeImage(code, format: format, to: path)
            paths.append(path)
        }
        return paths
    }

    /// Cycles the frames on /dev/tty until a key is pressed there.
    public mutating func animate(framesPerSecond: Double) throws(CLIError) {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw .usage("--qr needs a terminal (/dev/tty); use --qr-dir for image files or --qr-lines") }
        defer { close(fd) }
        var saved = termios()
        let isTerminal = tcgetattr(fd, &saved) == 0
        if isTerminal {
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
            tcsetattr(fd, TCSANOW, &raw)
        }
        defer { if isTerminal { tcsetattr(fd, TCSANOW, &saved) } }
        let tty = OutputStream(fd: fd)
        let milliseconds = Int32(1000 / framesPerSecond)
        var shown = 0
        while true {
            let part = nextFrame(shown)
            let code: QRCode
            do { code = try QRCode(frame: Self.frameText(part)) } catch { throw .writeFailed(reason: "a part does not fit a QR code") }
            let label = parts.count == 1 ? "" : "frame \(shown + 1) (\(parts.count) parts) — "
            // Home and clear, the frame, then the caption.
            try tty.write("\u{1B}[H\u{1B}[2J" + code.terminalText() + label + "press a key to stop\n")
            shown += 1
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, milliseconds) > 0 {
                var byte: UInt8 = 0
                _ = read(fd, &byte, 1)
                try tty.write("\n")
                return
            }
        }
    }
}
