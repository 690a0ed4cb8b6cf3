import Bitcoin
import QRRecords
import WalletCore
import WalletRecords
import SigningRecords
import WalletUR

/// PSBTs over QR: which transport answers, its frames, and --convert's pass-through (the
/// online side of an air gap: a wallet's PSBT into frames, the signed frames back into a PSBT).
public enum PSBTQR {
    /// The transport a PSBT goes out in: --qr-transport when given; else, when signing, the one
    /// it came in; else none (a record only).
    public static func transport(_ options: QRFrameOptions, cameAs: QRTransport?, signing: Bool) -> QRTransport? {
        switch options.qrTransport {
        case "ur"?: return .ur(type: options.urType)
        case "bbqr"?: return .bbqr(.psbt)
        default:
            guard signing, let cameAs else { return nil }
            if case .bbqr = cameAs { return .bbqr(.psbt) }
            return .ur(type: options.urType)
        }
    }

    /// Shows `psbt` in `transport` (records, lines, terminal, images as the options say).
    public static func answer(
        _ psbt: PSBT, _ transport: QRTransport, _ options: QRFrameOptions, emit: (JSONObject) throws(CLIError) -> Void
    )
        throws
    {
        let bytes = psbt.serialized()
        let payload = transport == .bbqr(.psbt) ? bytes : try PSBTPayload.ur(bytes, type: options.urType).cbor
        try options.answer(try QRFrames(payload, transport: transport, fragment: options.qrFragment), emit: emit)
    }

    /// --convert: the PSBT checked (it parses, its previous transactions match their
    /// outpoints) and passed on as a `psbt` record, unsigned, and in `transport` when given.
    public static func relay(
        _ psbt: PSBT, record: JSONObject, transport: QRTransport?, options: QRFrameOptions, emit: (JSONObject) throws(CLIError) -> Void
    ) throws {
        var out = SecretFields.removed(from: record)
        out["type"] = .string("psbt")
        out["psbt"] = .string(psbt.base64)
        try emit(out)
        if let transport { try answer(psbt, transport, options, emit: emit) }
    }
}

extension QRInput.Message {
    /// The PSBT it carries (ur:crypto-psbt, ur:psbt, a BBQr P set), or an error that
    /// names what it is instead.
    public func psbt() throws(URError) -> [UInt8] {
        switch transport {
        case .ur(let type) where type == "crypto-psbt" || type == "psbt":
            return try PSBTPayload.psbt(from: try UR(type: type, cbor: payload))
        case .bbqr(.psbt): return payload
        case .ur("eth-sign-request"):
            throw .unsupported("a ur:eth-sign-request is not a PSBT (sign-tx signs it; --convert passes PSBTs and PCZTs only)")
        case .ur(let type):
            throw .unsupported("a ur:\(type) is not a PSBT (sign-tx reads ur:crypto-psbt, ur:psbt, ur:zcash-pczt and BBQr P)")
        case .bbqr(let type): throw .unsupported("a BBQr \(type.rawValue) set is not a PSBT (sign-tx reads BBQr P)")
        }
    }
}
