import ArgumentParser
import QRRecords
import WalletCore
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
