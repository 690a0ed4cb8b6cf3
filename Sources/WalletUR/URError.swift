import WalletCore

/// Errors of the UR and BBQr codecs. They name the part and what is wrong with it; they never
/// quote more than a few letters of the text (which may carry a PSBT).
public enum URError: WalletError, Equatable {
    /// Not a UR or BBQr text at all, or a malformed one.
    case syntax(String)
    case bytewords(String)
    /// A checksum that does not match: a misread part, or a message that does not assemble.
    case checksum(String)
    case cbor(String)
    /// A fountain part whose fields do not fit together.
    case part(String)
    /// A part of another message than the one in progress.
    case otherMessage(String)
    /// Beyond the decoder's bounds on size and part count.
    case tooLarge(String)
    /// A UR type or registry item this version does not read.
    case unsupported(String)
    /// A message whose parts are not all there yet.
    case incomplete(String)

    public var code: String {
        switch self {
        case .syntax: "ur.syntax"
        case .bytewords: "ur.bytewords"
        case .checksum: "ur.checksum"
        case .cbor: "ur.cbor"
        case .part: "ur.part"
        case .otherMessage: "ur.other_message"
        case .tooLarge: "ur.too_large"
        case .unsupported: "ur.unsupported"
        case .incomplete: "ur.incomplete"
        }
    }

    public var message: String {
        switch self {
        case .syntax(let s), .bytewords(let s), .checksum(let s), .part(let s), .otherMessage(let s), .tooLarge(let s),
            .unsupported(let s), .incomplete(let s):
            s
        case .cbor(let s): "its CBOR is not read: \(s)"
        }
    }

    public var exitStatus: ExitStatus { .dataError }
}
