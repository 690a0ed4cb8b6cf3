import QRRecords
import SigningRecords
import WalletCore
import WalletRecords
import WalletUR
import Zcash

/// PCZTs over QR, as Keystone and the wallets that pair with it pass them: `ur:zcash-pczt`
/// both ways (BBQr has no PCZT type).
public enum PCZTQR {
    /// Whether a message is a PCZT.
    public static func carries(_ message: QRInput.Message) -> Bool { message.transport == .ur(type: ZcashUR.pcztType) }

    /// The PCZT a `ur:zcash-pczt` message carries.
    public static func pczt(_ message: QRInput.Message) throws -> PCZT {
        try PCZT(parsing: try ZcashUR.pczt(from: try UR(type: ZcashUR.pcztType, cbor: message.payload)))
    }

    /// Whether a PCZT goes out as frames: with --qr-transport ur, or when signing one that came
    /// as frames. BBQr is refused: it has no PCZT type.
    public static func framed(_ options: QRFrameOptions, cameAsFrames: Bool, signing: Bool) throws(URError) -> Bool {
        switch options.qrTransport {
        case "ur"?: return true
        case "bbqr"?: throw .unsupported("BBQr has no type for a PCZT: use --qr-transport ur (ur:zcash-pczt)")
        default: return signing && cameAsFrames
        }
    }

    /// Shows `pczt` as `ur:zcash-pczt` frames (records, lines, terminal, images as the options say).
    public static func answer(_ pczt: PCZT, _ options: QRFrameOptions, emit: (JSONObject) throws(CLIError) -> Void) throws {
        let ur = try ZcashUR.pczt(try pczt.serialized())
        try options.answer(try QRFrames(ur.cbor, transport: .ur(type: ur.type), fragment: options.qrFragment), emit: emit)
    }

    /// --convert: the PCZT (it parses) passed on as a `pczt` record, unsigned, and as frames
    /// when `framed`.
    public static func relay(
        _ pczt: PCZT, record: JSONObject, framed: Bool, options: QRFrameOptions, emit: (JSONObject) throws(CLIError) -> Void
    ) throws {
        var out = SecretFields.removed(from: record)
        out["type"] = .string("pczt")
        out["pczt"] = .string(Base64.encode(try pczt.serialized()))
        try emit(out)
        if framed { try answer(pczt, options, emit: emit) }
    }
}
