import CZlib
import WalletCore

/// Bytewords (BCR-2020-012): each byte a four-letter word, the bytes followed by their CRC-32
/// (big-endian) so a mistyped or misread word is caught. Three styles: words with spaces, with
/// dashes (URIs), or each word's first and last letter (UR bodies and QR codes).
public enum Bytewords {
    public enum Style: Sendable { case standard, uri, minimal }

    /// BCR-2020-012's word list, index = byte value.
    static let words: [String] = [
        "able acid also apex aqua arch atom aunt away axis back bald barn belt beta bias",
        "blue body brag brew bulb buzz calm cash cats chef city claw code cola cook cost",
        "crux curl cusp cyan dark data days deli dice diet door down draw drop drum dull",
        "duty each easy echo edge epic even exam exit eyes fact fair fern figs film fish",
        "fizz flap flew flux foxy free frog fuel fund gala game gear gems gift girl glow",
        "good gray grim guru gush gyro half hang hard hawk heat help high hill holy hope",
        "horn huts iced idea idle inch inky into iris iron item jade jazz join jolt jowl",
        "judo jugs jump junk jury keep keno kept keys kick kiln king kite kiwi knob lamb",
        "lava lazy leaf legs liar limp lion list logo loud love luau luck lung main many",
        "math maze memo menu meow mild mint miss monk nail navy need news next noon note",
        "numb obey oboe omit onyx open oval owls paid part peck play plus poem pool pose",
        "puff puma purr quad quiz race ramp real redo rich road rock roof ruby ruin runs",
        "rust safe saga scar sets silk skew slot soap solo song stub surf swan taco task",
        "taxi tent tied time tiny toil tomb toys trip tuna twin ugly undo unit urge user",
        "vast very veto vial vibe view visa void vows wall wand warm wasp wave waxy webs",
        "what when whiz wolf work yank yawn yell yoga yurt zaps zero zest zinc zone zoom",
    ].joined(separator: " ").split(separator: " ").map(String.init)

    /// Word → byte; minimal pair (first and last letter) → byte.
    private static let byWord: [String: UInt8] = Dictionary(uniqueKeysWithValues: words.enumerated().map { ($1, UInt8($0)) })
    private static let byPair: [String: UInt8] = Dictionary(
        uniqueKeysWithValues: words.enumerated().map { (String([$1.first!, $1.last!]), UInt8($0)) })

    /// CRC-32 (ISO-HDLC, zlib's).
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        UInt32(bytes.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, uInt($0.count)) })
    }

    /// The four big-endian bytes of a checksum or fingerprint.
    public static func bigEndian(_ n: UInt32) -> [UInt8] { (0..<4).map { UInt8(n >> (24 - 8 * UInt32($0)) & 0xFF) } }

    public static func encode(_ bytes: [UInt8], style: Style) -> String {
        let all = bytes + bigEndian(crc32(bytes))
        switch style {
        case .standard: return all.map { words[Int($0)] }.joined(separator: " ")
        case .uri: return all.map { words[Int($0)] }.joined(separator: "-")
        case .minimal:
            return all.map {
                let w = words[Int($0)]; return String([w.first!, w.last!])
            }.joined()
        }
    }

    /// The bytes of a Bytewords text in `style`, any letter case, its checksum verified.
    public static func decode(_ text: String, style: Style) throws(URError) -> [UInt8] {
        let lower = text.lowercased()
        var bytes: [UInt8] = []
        switch style {
        case .standard, .uri:
            for word in lower.split(separator: style == .standard ? " " : "-", omittingEmptySubsequences: false) {
                guard let b = byWord[String(word)] else { throw .bytewords("\"\(word.prefix(12))\" is not a byteword") }
                bytes.append(b)
            }
        case .minimal:
            let letters = Array(lower)
            guard letters.count % 2 == 0 else { throw .bytewords("an odd number of letters") }
            bytes.reserveCapacity(letters.count / 2)
            for i in stride(from: 0, to: letters.count, by: 2) {
                guard let b = byPair[String(letters[i...i + 1])] else {
                    throw .bytewords("\"\(String(letters[i...i + 1]))\" (letters \(i + 1)-\(i + 2)) is no byteword's first and last letter")
                }
                bytes.append(b)
            }
        }
        guard bytes.count > 4 else { throw .bytewords("too short to hold a checksum") }
        let body = Array(bytes.dropLast(4))
        guard Array(bytes.suffix(4)) == bigEndian(crc32(body)) else { throw .checksum("its Bytewords checksum does not match") }
        return body
    }
}
