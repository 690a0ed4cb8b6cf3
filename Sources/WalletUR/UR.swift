/// A Uniform Resource (BCR-2020-005): a registry type and the CBOR of one item, untagged at
/// the top level.
public struct UR: Equatable, Sendable {
    public let type: String
    public let cbor: [UInt8]

    public init(type: String, cbor: [UInt8]) throws(URError) {
        guard Self.isValidType(type) else { throw .syntax("\"\(type.prefix(32))\" is not a UR type (a-z, 0-9 and -)") }
        (self.type, self.cbor) = (type, cbor)
    }

    static func isValidType(_ type: String) -> Bool {
        !type.isEmpty && type.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    /// `ur:type/body`, the body in minimal Bytewords, lower case.
    public var text: String { "ur:\(type)/" + Bytewords.encode(cbor, style: .minimal) }

    /// Whether a line is a UR at all (any case), before it is parsed.
    public static func isUR(_ line: some StringProtocol) -> Bool { line.prefix(3).lowercased() == "ur:" }
}

/// One UR text taken apart: a whole UR, or a part of a multipart one.
public enum URText: Equatable, Sendable {
    case single(UR)
    case part(type: String, FountainPart)

    /// Parses `ur:type/body` or `ur:type/seq-len/body`, in any letter case (QR codes carry
    /// URs in upper case, alphanumeric mode).
    public init(_ text: String) throws(URError) {
        let lower = text.lowercased()
        guard lower.hasPrefix("ur:") else { throw .syntax("not a UR (no \"ur:\" at the start)") }
        let components = lower.dropFirst(3).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard components.count == 2 || components.count == 3 else {
            throw .syntax("a UR is ur:type/body or ur:type/seq-len/body (this one has \(components.count) parts)")
        }
        let type = components[0]
        guard UR.isValidType(type) else { throw .syntax("\"\(type.prefix(32))\" is not a UR type (a-z, 0-9 and -)") }
        let body = try Bytewords.decode(components.last!, style: .minimal)
        if components.count == 2 {
            self = .single(try UR(type: type, cbor: body))
            return
        }
        let numbers = components[1].split(separator: "-", omittingEmptySubsequences: false)
        guard numbers.count == 2, let seq = UInt32(numbers[0]), let len = Int(numbers[1]) else {
            throw .syntax("\"\(components[1].prefix(24))\" is not a part's seq-len")
        }
        let part = try FountainPart(cbor: body)
        guard part.sequence == seq, part.sequenceLength == len else {
            throw .part("its path says part \(seq) of \(len), its body part \(part.sequence) of \(part.sequenceLength)")
        }
        self = .part(type: type, part)
    }
}

/// The texts of a UR to show one after another: one text when the UR fits a fragment,
/// else an endless run of fountain parts (the fragments first, then mixes).
public struct UREncoder: Sendable {
    public let ur: UR
    private var fountain: FountainEncoder

    public init(_ ur: UR, maxFragmentLength: Int, minFragmentLength: Int = 10, firstSequence: UInt32 = 0) {
        self.ur = ur
        fountain = FountainEncoder(
            message: ur.cbor, maxFragmentLength: maxFragmentLength, minFragmentLength: minFragmentLength, firstSequence: firstSequence)
    }

    public var isSinglePart: Bool { fountain.sequenceLength == 1 }
    /// How many parts make every fragment once.
    public var sequenceLength: Int { fountain.sequenceLength }

    public mutating func nextPart() -> String {
        if isSinglePart { return ur.text }
        let part = fountain.nextPart()
        return "ur:\(ur.type)/\(part.sequence)-\(part.sequenceLength)/" + Bytewords.encode(part.cbor, style: .minimal)
    }
}

/// Reassembles one UR from its texts, in any order, with duplicates; a text of another UR is an
/// error that leaves the one in progress as it was.
public struct URDecoder: Sendable {
    public private(set) var type: String?
    private var fountain = FountainDecoder()
    public private(set) var result: UR?

    public init() {}

    public var isComplete: Bool { result != nil }
    /// Parts taken, fragments known and needed: the progress a user is shown.
    public var progress: (parts: Int, known: Int, needed: Int) {
        (fountain.partsReceived, fountain.fragmentsKnown, fountain.expected?.sequenceLength ?? 0)
    }

    /// Takes one text; a text after the UR is complete changes nothing.
    public mutating func receive(_ text: String) throws(URError) { try receive(try URText(text)) }

    /// The same for a text already parsed.
    public mutating func receive(_ text: URText) throws(URError) {
        guard result == nil else { return }
        switch text {
        case .single(let ur):
            if let type, type != ur.type || fountain.partsReceived > 0 {
                throw .otherMessage("a whole ur:\(ur.type) arrived while parts of a ur:\(type) are being assembled")
            }
            result = ur
            type = ur.type
        case .part(let partType, let part):
            if let type, type != partType {
                throw .otherMessage("a part of a ur:\(partType) arrived while a ur:\(type) is being assembled")
            }
            do { try fountain.receive(part) } catch {
                // A message that failed its checksum is dropped whole: nothing is in progress.
                if fountain.expected == nil { type = nil }
                throw error
            }
            type = partType
            if let message = fountain.message { result = try UR(type: partType, cbor: message) }
        }
    }
}
