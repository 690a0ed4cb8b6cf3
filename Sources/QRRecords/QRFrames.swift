#if canImport(Glibc)
    import Glibc
#endif
import ArgumentParser
import WalletCore
import WalletQR
import WalletRecords
import WalletUR

/// How a tool shows what it answers over QR: part records on stdout (the default), bare part
/// lines for a QR display program, an animated QR on the terminal, or frame images.
public struct QRFrameOptions: ParsableArguments {
    @Flag(help: "Write the answer's QR parts as bare lines on stdout (for a QR display program); the records go to stderr.")
    public var qrLines = false

    @Flag(help: "Show the answer as an animated QR code on the terminal (/dev/tty), frames cycling until a key is pressed.")
    public var qr = false

    @Option(help: ArgumentHelp("Write the answer's frames as images part-001.png (or .svg), … into this directory.", valueName: "dir"))
    public var qrDir: String?

    @Option(help: "Image format for --qr-dir: png or svg.", completion: .list(["png", "svg"]))
    public var qrFormat: String = "png"

    @Option(help: ArgumentHelp("Bytes of the message in each frame (10-2000): a UR part's fragment, a BBQr part's share.", valueName: "n"))
    public var qrFragment: Int = QRFrames.defaultFragment

    @Option(help: ArgumentHelp("Frames per second of --qr (0.5-30).", valueName: "n"))
    public var qrFps: Double = QRFrames.defaultFramesPerSecond

    @Option(
        help: "UR type of a signed PSBT: crypto-psbt (what Sparrow, Keystone and Jade read today) or psbt (its 2024 name).",
        completion: .list(["crypto-psbt", "psbt"]))
    public var urType: String = PSBTPayload.defaultType

    @Option(
        help: "The QR transport of the answer: ur or bbqr (default: the one the input came in, when signing).",
        completion: .list(["ur", "bbqr"]))
    public var qrTransport: String?

    public init() {}

    /// Shows an answer: its part records through `emit` (with "qr_file" under --qr-dir), bare
    /// lines on stdout with --qr-lines, then the animation with --qr.
    public func answer(_ frames: QRFrames, emit: (JSONObject) throws(CLIError) -> Void) throws(CLIError) {
        var frames = frames
        let files = try qrDir.map { dir throws(CLIError) in try frames.writeImages(to: dir, format: qrFormat) } ?? []
        for (i, var record) in frames.records().enumerated() {
            if i < files.count { record["qr_file"] = .string(files[i]) }
            try emit(record)
        }
        if qrLines { try OutputStream.standardOutput.write(frames.parts.map { $0 + "\n" }.joined()) }
        if qr { try frames.animate(framesPerSecond: qrFps) }
    }

    public func validate() throws {
        guard ["png", "svg"].contains(qrFormat) else { throw ValidationError("--qr-format must be png or svg") }
        guard (10...2000).contains(qrFragment) else { throw ValidationError("--qr-fragment must be 10 to 2000 bytes") }
        guard qrFps.isFinite, (0.5...30).contains(qrFps) else { throw ValidationError("--qr-fps must be 0.5 to 30") }
        guard ["crypto-psbt", "psbt"].contains(urType) else { throw ValidationError("--ur-type must be crypto-psbt or psbt") }
        if let qrTransport, !["ur", "bbqr"].contains(qrTransport) { throw ValidationError("--qr-transport must be ur or bbqr") }
        if qrLines && qr { throw ValidationError("give --qr-lines or --qr, not both: both would use the terminal") }
    }
}

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
