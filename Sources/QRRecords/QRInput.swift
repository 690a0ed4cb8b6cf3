import WalletCore
import WalletRecords
import WalletUR
import WalletCrypto

/// How a message came (and so how its answer goes): a UR of a type, or a BBQr set of a file type.
public enum QRTransport: Equatable, Sendable {
    case ur(type: String)
    case bbqr(BBQr.FileType)

    public var name: String {
        switch self {
        case .ur: "ur"
        case .bbqr: "bbqr"
        }
    }
}

/// QR texts among a tool's input lines (`zbarcam --raw` prints one per line), assembled into
/// the messages they carry, one message after another.
public final class QRInput {
    private var ur = URDecoder()
    private var bbqr = BBQrJoiner()
    /// The messages already complete, by what identifies them: a camera keeps reading an
    /// animation after the last part it needed, and those parts must not make the message
    /// again. A UR is its type, length and CRC-32 (whole or in parts alike); a BBQr set is its
    /// file type and file, and its parts' texts say which parts a camera may still replay.
    private var finishedUR: Set<String> = []
    private var finishedBBQr: Set<String> = []
    private var finishedBBQrTexts: Set<String> = []
    /// The texts of the BBQr set in progress, and whether every one of them is a finished set's
    /// (a replay, which a new set's first other text replaces).
    private var bbqrTexts: [String] = []
    private var bbqrReplayOnly = false

    public init() {}

    /// The record a QR text line becomes, {"qr": text}; nil for any other line.
    public static func record(_ line: String) -> JSONObject? {
        UR.isUR(line) || BBQrJoiner.isBBQr(line) ? JSONObject(["qr": .string(line)]) : nil
    }

    /// A message complete: its bytes (a UR's CBOR, a BBQr set's file) and how it came.
    public struct Message: Sendable {
        public let payload: [UInt8]
        public let transport: QRTransport
    }

    /// `take`, with a misread frame skipped and the progress said on `diagnostics`.
    public func take(_ text: String, tool: String, diagnostics: OutputStream) throws(URError) -> Message? {
        do {
            let (message, progress) = try take(text)
            try? diagnostics.write("\(tool): \(progress)\n")
            return message
        } catch  where Self.isMisread(error) {
            try? diagnostics.write("\(tool): warning: skipped a misread QR part (\(error.message)); the message in progress is kept\n")
            return nil
        }
    }

    /// Takes one text. Returns the message when this text completed it, and says how far the
    /// message in progress is. A text that fails its own checksum is `skipped` (a misread frame:
    /// the next pass of the animation brings it again); other bad texts throw, and the message
    /// in progress is kept either way.
    public func take(_ text: String) throws(URError) -> (message: Message?, progress: String) {
        if BBQrJoiner.isBBQr(text) { return try takeBBQr(text) }
        let parsed = try URText(text)
        if finishedUR.contains(Self.identity(parsed)) { return (nil, "a part of a UR already signed, skipped") }
        try ur.receive(parsed)
        if let result = ur.result {
            finishedUR.insert(Self.identity(parsed))
            ur = URDecoder()
            return (Message(payload: result.cbor, transport: .ur(type: result.type)), "ur:\(result.type) complete")
        }
        let p = ur.progress
        let percent = p.needed == 0 ? 0 : 100 * p.known / p.needed
        return (nil, "ur:\(ur.type ?? "?"): \(p.parts) parts read, \(p.known) of \(p.needed) fragments (\(percent)%)")
    }

    /// A BBQr text. A finished set's text is no proof of a replay: a new set (a fee bump of the
    /// same size) may have a part of the same text. So the texts are joined as any are, a
    /// joiner that holds only replayed texts gives way to the first other text, a replayed
    /// text that does not fit the new set in progress is skipped, and a set that completes as
    /// one already signed is skipped whole.
    private func takeBBQr(_ text: String) throws(URError) -> (message: Message?, progress: String) {
        let replayed = finishedBBQrTexts.contains(text)
        if bbqr.count == 0 {
            bbqrReplayOnly = replayed
        } else if bbqrReplayOnly && !replayed {
            (bbqr, bbqrTexts, bbqrReplayOnly) = (BBQrJoiner(), [], false)
        } else if replayed && !bbqrReplayOnly {
            var trial = bbqr
            guard (try? trial.receive(text)) != nil else { return (nil, "BBQr: a part of a set already signed, skipped") }
        }
        do { try bbqr.receive(text) } catch {
            if bbqr.count == 0 { bbqrTexts = [] }  // the set was dropped
            throw error
        }
        if let result = bbqr.result, let type = bbqr.type {
            let identity = "\(type.rawValue)/" + Hex.encode(Hash.sha256(result))
            let texts = bbqrTexts + [text]
            (bbqr, bbqrTexts, bbqrReplayOnly) = (BBQrJoiner(), [], false)
            if finishedBBQr.contains(identity) { return (nil, "BBQr: a set already signed, skipped") }
            finishedBBQr.insert(identity)
            finishedBBQrTexts.formUnion(texts)
            return (Message(payload: result, transport: .bbqr(type)), "BBQr set complete")
        }
        bbqrTexts.append(text)
        let percent = bbqr.count == 0 ? 0 : 100 * bbqr.received / bbqr.count
        return (nil, "BBQr: \(bbqr.received) of \(bbqr.count) parts (\(percent)%)")
    }

    /// A UR's message: its type, length and CRC-32, whether it came whole or in parts.
    static func identity(_ text: URText) -> String {
        switch text {
        case .single(let ur): "\(ur.type)/\(ur.cbor.count)/\(Bytewords.crc32(ur.cbor))"
        case .part(let type, let part): "\(type)/\(part.messageLength)/\(part.checksum)"
        }
    }

    /// Whether an error is a misread frame, to be skipped with a warning rather than reported.
    public static func isMisread(_ error: URError) -> Bool {
        switch error {
        case .checksum, .bytewords: true
        default: false
        }
    }

    /// What is still missing when the input ended, or nil when nothing was in progress.
    public var unfinished: String? {
        if bbqr.count > 0 {
            // At most 20 named: a set of up to 1,295 parts would make one line of thousands.
            let missing = bbqr.missing
            let more = missing.count > 20 ? " and \(missing.count - 20) more" : ""
            return "a BBQr set of \(bbqr.count) parts lacks part(s) " + missing.prefix(20).map { "\($0 + 1)" }.joined(separator: ", ")
                + more
        }
        if let type = ur.type {
            let p = ur.progress
            return "ur:\(type) has \(p.known) of its \(p.needed) fragments after \(p.parts) parts"
        }
        return nil
    }
}
