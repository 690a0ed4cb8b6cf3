#if canImport(Glibc)
    import Glibc
#endif
import ArgumentParser
import WalletCore
import WalletQR
import WalletRecords

/// Where --qr and --qr-dir put an address's QR code.
public struct QRSink {
    /// mkdir -p: the directory and its missing parents (QR images of addresses are not secret).
    public static func makeDirectory(_ path: String) -> Bool {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST { return false }
        }
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Writes a QR code as an image file, PNG or SVG by `format` (0644: QR codes of addresses
    /// and PSBTs are not secret).
    static func writeImage(_ code: QRCode, format: String, to path: String) throws(CLIError) {
        let bytes = format == "svg" ? Array(code.svg().utf8) : code.png()
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .writeFailed(reason: "cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try OutputStream(fd: fd).write(bytes)
    }

    let terminal: OutputStream?
    let directory: String?
    let format: String

    /// `terminal`: draw on /dev/tty (--qr); `directory`: write images there (--qr-dir),
    /// made if missing; `format`: png or svg.
    public init(terminal: Bool, directory: String?, format: String) throws(CLIError) {
        if terminal {
            let fd = open("/dev/tty", O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .usage("--qr needs a terminal (/dev/tty); use --qr-dir for image files") }
            self.terminal = OutputStream(fd: fd)
        } else {
            self.terminal = nil
        }
        if let directory, !Self.makeDirectory(directory) {
            throw .cannotOpen(path: directory, reason: "cannot create the directory: \(String(cString: strerror(errno)))")
        }
        self.directory = directory
        self.format = format
    }

    /// Draws or writes the QR code of the record's address (or, with `field` "ur", its UR, in
    /// upper case for QR's alphanumeric mode); adds "qr_file" for an image.
    public func attach(_ record: JSONObject, field: String = "address") throws(CLIError) -> JSONObject {
        guard terminal != nil || directory != nil, let text = record[field]?.stringValue else { return record }
        let isUR = field == "ur"
        let code: QRCode
        do { code = try isUR ? QRCode(frame: QRFrames.frameText(text)) : QRCode(text: text) } catch { return record }
        var out = record
        if let terminal {
            try terminal.write(code.terminalText() + (isUR ? "" : text + "\n") + "\n")
        }
        if let directory {
            let name = isUR ? "ur-" + (record["fingerprint"]?.stringValue ?? "account") : text.replacingOccurrences(of: ":", with: "_")
            let path = directory + "/" + name + "." + format
            try Self.writeImage(code, format: format, to: path)
            out["qr_file"] = .string(path)
        }
        return out
    }
}

/// derive's --qr, --qr-dir and --qr-format: where a record's QR code is drawn.
public struct QRImageOptions: ParsableArguments {
    @Flag(
        help: "Show each record's QR code (an address; derive account: its --ur) on the terminal (/dev/tty), beside the records on stdout.")
    public var qr = false

    @Option(
        help: ArgumentHelp(
            "Write each QR code as an image into this directory, ADDRESS.png (or .svg; an account's UR: ur-FINGERPRINT.png), named in \"qr_file\".",
            valueName: "dir"))
    public var qrDir: String?

    @Option(help: "Image format for --qr-dir: png or svg.", completion: .list(["png", "svg"]))
    public var qrFormat: String = "png"

    public init() {}

    public func validate() throws {
        guard ["png", "svg"].contains(qrFormat) else { throw ValidationError("--qr-format must be png or svg") }
    }

    public var isGiven: Bool { qr || qrDir != nil }

    /// The sink these options describe (the terminal opened, the directory made).
    public func sink() throws(CLIError) -> QRSink { try QRSink(terminal: qr, directory: qrDir, format: qrFormat) }
}
