import WalletCore

/// One part of a multipart UR (BCR-2024-001): a fragment of the message, or the XOR of several,
/// which ones decided by the part's sequence number and the message's checksum alone.
public struct FountainPart: Equatable, Sendable {
    public let sequence: UInt32
    public let sequenceLength: Int
    public let messageLength: Int
    public let checksum: UInt32
    public let data: [UInt8]

    public init(sequence: UInt32, sequenceLength: Int, messageLength: Int, checksum: UInt32, data: [UInt8]) {
        (self.sequence, self.sequenceLength, self.messageLength, self.checksum, self.data) =
            (sequence, sequenceLength, messageLength, checksum, data)
    }

    /// [seq_num, seq_len, message_len, checksum, data].
    public var cbor: [UInt8] {
        CBOR.array([
            .unsigned(UInt64(sequence)), .unsigned(UInt64(sequenceLength)), .unsigned(UInt64(messageLength)),
            .unsigned(UInt64(checksum)), .bytes(data),
        ]).encoded
    }

    public init(cbor bytes: [UInt8]) throws(URError) {
        guard case .array(let items) = try CBOR(decoding: bytes), items.count == 5,
            case .unsigned(let seq) = items[0], case .unsigned(let len) = items[1], case .unsigned(let messageLength) = items[2],
            case .unsigned(let checksum) = items[3], case .bytes(let data) = items[4]
        else { throw .part("its body is not [seq_num, seq_len, message_len, checksum, data]") }
        guard seq >= 1, seq <= UInt64(UInt32.max), checksum <= UInt64(UInt32.max) else {
            throw .part("a sequence number or checksum out of range")
        }
        guard (1...UInt64(FountainDecoder.maxFragments)).contains(len) else {
            throw .tooLarge("a message of \(len) fragments (at most \(FountainDecoder.maxFragments) are read)")
        }
        guard (1...UInt64(FountainDecoder.maxMessageLength)).contains(messageLength) else {
            throw .tooLarge("a message of \(messageLength) bytes (at most \(FountainDecoder.maxMessageLength) are read)")
        }
        guard !data.isEmpty, UInt64(data.count) * len >= messageLength, UInt64(data.count) * (len - 1) < messageLength else {
            throw .part("a fragment of \(data.count) bytes cannot make \(len) fragments of a \(messageLength)-byte message")
        }
        self.init(
            sequence: UInt32(seq), sequenceLength: Int(len), messageLength: Int(messageLength), checksum: UInt32(checksum), data: data)
    }

    /// The fragments a part mixes: part n ≤ seq_len is fragment n-1 alone; a later one XORs the
    /// first `degree` of a shuffle, both drawn from Xoshiro256** seeded by (seq_num, checksum).
    public static func fragmentIndexes(sequence: UInt32, sequenceLength: Int, checksum: UInt32) -> [Int] {
        fragmentIndexes(sequence: sequence, sequenceLength: sequenceLength, checksum: checksum, degrees: DegreeSampler(sequenceLength))
    }

    /// The same with the degree table of seq_len made once (a decoder reuses it for every part).
    static func fragmentIndexes(sequence: UInt32, sequenceLength: Int, checksum: UInt32, degrees: DegreeSampler) -> [Int] {
        if sequence <= UInt32(clamping: sequenceLength) { return [Int(sequence) - 1] }
        var rng = Xoshiro256(sequence: sequence, checksum: checksum)
        let degree = degrees.sampler.next(&rng) + 1
        return rng.shuffledPrefix(of: sequenceLength, taking: degree).sorted()
    }
}

/// The degree distribution of a message of seq_len fragments (weights 1/1 … 1/seq_len).
struct DegreeSampler: Sendable {
    let sequenceLength: Int
    let sampler: RandomSampler

    init(_ sequenceLength: Int) {
        self.sequenceLength = sequenceLength
        sampler = RandomSampler((1...sequenceLength).map { 1 / Double($0) })
    }
}

/// Splits a message into fountain parts: the first seq_len parts are its fragments in order,
/// each later one a mix, so a reader that missed some frames completes from any others.
public struct FountainEncoder: Sendable {
    public let messageLength: Int
    public let checksum: UInt32
    public let fragmentLength: Int
    let fragments: [[UInt8]]
    let degrees: DegreeSampler
    /// The last part's sequence number (0 before the first).
    public private(set) var sequence: UInt32

    public var sequenceLength: Int { fragments.count }

    /// The fragment length bc-ur chooses: the fewest fragments of at most `maximum` bytes, no
    /// fragment shorter than `minimum` when the message allows; equal lengths, the last padded.
    public static func fragmentLength(messageLength: Int, minimum: Int, maximum: Int) -> Int {
        let most = max(1, messageLength / max(minimum, 1))
        var length = messageLength
        for count in 1...most {
            length = (messageLength + count - 1) / count
            if length <= maximum { break }
        }
        return length
    }

    public init(message: [UInt8], maxFragmentLength: Int, minFragmentLength: Int = 10, firstSequence: UInt32 = 0) {
        precondition(!message.isEmpty && maxFragmentLength >= 1)
        messageLength = message.count
        checksum = Bytewords.crc32(message)
        let length = Self.fragmentLength(messageLength: message.count, minimum: minFragmentLength, maximum: maxFragmentLength)
        let padded = message + [UInt8](repeating: 0, count: (length - message.count % length) % length)
        fragmentLength = length
        fragments = stride(from: 0, to: padded.count, by: length).map { Array(padded[$0..<$0 + length]) }
        sequence = firstSequence
        degrees = DegreeSampler(fragments.count)
    }

    public mutating func nextPart() -> FountainPart {
        sequence &+= 1
        let indexes = FountainPart.fragmentIndexes(
            sequence: sequence, sequenceLength: sequenceLength, checksum: checksum, degrees: degrees)
        var data = fragments[indexes[0]]
        for i in indexes.dropFirst() { xor(&data, fragments[i]) }
        return FountainPart(
            sequence: sequence, sequenceLength: sequenceLength, messageLength: messageLength, checksum: checksum, data: data)
    }
}

func xor(_ a: inout [UInt8], _ b: [UInt8]) {
    for i in a.indices { a[i] ^= b[i] }
}

/// Reassembles a message from fountain parts in any order, with duplicates: a peeling
/// decoder. Pure fragments are kept; a mixed part is kept with the count of its fragments not
/// yet known, each new fragment lowers the counts of the parts that mix it, and a part with one
/// left gives that one (its data XOR the others) — so each part costs its degree to take in
/// and at most its degree of fragment XORs once, whatever came before: a stream of hostile
/// parts cannot make the work quadratic. The mixed parts kept are bounded (count and the
/// fragments they wait for); a part past the bound is dropped (later parts bring what it
/// would have). The message is returned only when its CRC-32 is the parts' checksum.
public struct FountainDecoder: Sendable {
    /// Bounds on what a stream of parts may make this reader hold (the man pages say them).
    public static let maxMessageLength = 4 << 20
    public static let maxFragments = 10_000

    private struct Pending: Sendable {
        let indexes: [Int]
        let data: [UInt8]
        var unknown: Int
    }

    /// seq_len, message_len, checksum and fragment length of the message in progress.
    public private(set) var expected: (sequenceLength: Int, messageLength: Int, checksum: UInt32, fragmentLength: Int)?
    private var degrees: DegreeSampler?
    private var fragments: [[UInt8]?] = []
    public private(set) var fragmentsKnown = 0
    /// Mixed parts waiting for fragments, by sequence number; and for each fragment not yet
    /// known, the parts that wait for it (a part leaves `pending` when it resolves; its entry
    /// here goes with the fragment it gave).
    private var pending: [UInt32: Pending] = [:]
    private var waiting: [Int: [UInt32]] = [:]
    /// The fragments the pending parts wait for, counted once per part.
    private var waits = 0
    public private(set) var partsReceived = 0
    public private(set) var message: [UInt8]?
    /// Work done so far, in units of a fragment index drawn, looked up or counted down, or a
    /// fragment XORed: what a test holds to the bound above.
    public private(set) var work = 0

    public init() {}

    /// Mixed parts kept at most: four times seq_len, and 64 more.
    public var maxPending: Int { 4 * (expected?.sequenceLength ?? 0) + 64 }
    /// Fragments the kept parts may wait for in all: 32 per fragment of the message, and 1024 more.
    public var maxWaits: Int { 32 * (expected?.sequenceLength ?? 0) + 1024 }
    public var pendingCount: Int { pending.count }

    /// Takes a part; a part of another message (other seq_len, length, checksum or fragment
    /// size) is an error and leaves the message in progress as it was.
    public mutating func receive(_ part: FountainPart) throws(URError) {
        guard message == nil else { return }
        if let expected {
            guard
                expected.sequenceLength == part.sequenceLength, expected.messageLength == part.messageLength,
                expected.checksum == part.checksum, expected.fragmentLength == part.data.count
            else {
                throw .otherMessage(
                    "part \(part.sequence) belongs to another message (\(part.messageLength) bytes, checksum "
                        + "\(Hex.encode(Bytewords.bigEndian(part.checksum)))) than the one in progress (\(expected.messageLength) bytes, checksum "
                        + "\(Hex.encode(Bytewords.bigEndian(expected.checksum))))")
            }
        } else {
            expected = (part.sequenceLength, part.messageLength, part.checksum, part.data.count)
            if degrees?.sequenceLength != part.sequenceLength { degrees = DegreeSampler(part.sequenceLength) }
            fragments = [[UInt8]?](repeating: nil, count: part.sequenceLength)
        }
        partsReceived += 1
        if part.sequence <= UInt32(part.sequenceLength) {
            work += 1
            try learn(Int(part.sequence) - 1, part.data)
            return
        }
        guard pending[part.sequence] == nil, let degrees else { return }
        let indexes = FountainPart.fragmentIndexes(
            sequence: part.sequence, sequenceLength: part.sequenceLength, checksum: part.checksum, degrees: degrees)
        let unknown = indexes.filter { fragments[$0] == nil }
        work += 2 * indexes.count
        switch unknown.count {
        case 0: return  // nothing new in it
        case 1: try learn(unknown[0], resolve(indexes, part.data, unknown: unknown[0]))
        default:
            guard pending.count < maxPending, waits + unknown.count <= maxWaits else { return }
            pending[part.sequence] = Pending(indexes: indexes, data: part.data, unknown: unknown.count)
            waits += unknown.count
            for i in unknown { waiting[i, default: []].append(part.sequence) }
        }
    }

    /// A part's data XOR every fragment it mixes but `unknown`: that fragment.
    private mutating func resolve(_ indexes: [Int], _ data: [UInt8], unknown: Int) -> [UInt8] {
        var data = data
        for i in indexes where i != unknown { xor(&data, fragments[i]!) }
        work += indexes.count
        return data
    }

    /// Keeps a fragment, then what it resolves, until nothing more does.
    private mutating func learn(_ index: Int, _ data: [UInt8]) throws(URError) {
        var learnt = [(index, data)]
        while let (i, d) = learnt.popLast() {
            guard fragments[i] == nil, let expected else { continue }
            fragments[i] = d
            fragmentsKnown += 1
            if fragmentsKnown == expected.sequenceLength { return try assemble() }
            for sequence in waiting.removeValue(forKey: i) ?? [] {
                work += 1
                guard var p = pending[sequence] else { continue }
                p.unknown -= 1
                waits -= 1
                if p.unknown > 1 {
                    pending[sequence] = p
                    continue
                }
                pending[sequence] = nil
                waits -= 1
                guard let last = p.indexes.first(where: { fragments[$0] == nil }) else { continue }
                learnt.append((last, resolve(p.indexes, p.data, unknown: last)))
            }
        }
    }

    private mutating func assemble() throws(URError) {
        guard let expected else { return }
        var whole: [UInt8] = []
        whole.reserveCapacity(expected.sequenceLength * expected.fragmentLength)
        for f in fragments { whole += f! }
        let candidate = Array(whole.prefix(expected.messageLength))
        (fragments, pending, waiting, waits) = ([], [:], [:], 0)
        guard Bytewords.crc32(candidate) == expected.checksum else {
            // Every fragment is in and the whole does not check: the parts lied (each part's
            // own checksum held). Nothing is returned; start over. An error, not a misread
            // frame to skip: no rescan of one frame mends it.
            (self.expected, fragmentsKnown, partsReceived) = (nil, 0, 0)
            throw .part("its parts assembled into a message that fails the message checksum; the message was dropped")
        }
        message = candidate
    }
}
