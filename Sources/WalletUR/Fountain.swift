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
        if sequence <= UInt32(clamping: sequenceLength) { return [Int(sequence) - 1] }
        var rng = Xoshiro256(sequence: sequence, checksum: checksum)
        let degree = RandomSampler((1...sequenceLength).map { 1 / Double($0) }).next(&rng) + 1
        return rng.shuffled(Array(0..<sequenceLength)).prefix(degree).sorted()
    }
}

/// Splits a message into fountain parts: the first seq_len parts are its fragments in order,
/// each later one a mix, so a reader that missed some frames completes from any others.
public struct FountainEncoder: Sendable {
    public let messageLength: Int
    public let checksum: UInt32
    public let fragmentLength: Int
    let fragments: [[UInt8]]
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
    }

    public mutating func nextPart() -> FountainPart {
        sequence &+= 1
        let indexes = FountainPart.fragmentIndexes(sequence: sequence, sequenceLength: sequenceLength, checksum: checksum)
        var data = fragments[indexes[0]]
        for i in indexes.dropFirst() { xor(&data, fragments[i]) }
        return FountainPart(
            sequence: sequence, sequenceLength: sequenceLength, messageLength: messageLength, checksum: checksum, data: data)
    }
}

func xor(_ a: inout [UInt8], _ b: [UInt8]) {
    for i in a.indices { a[i] ^= b[i] }
}

/// Reassembles a message from fountain parts in any order, with duplicates: pure fragments are
/// kept, mixed parts reduced by what is known until they are pure. The message is returned only
/// when its CRC-32 is the parts' checksum.
public struct FountainDecoder: Sendable {
    /// Bounds on what a stream of parts may make this reader hold (the man pages say them).
    public static let maxMessageLength = 4 << 20
    public static let maxFragments = 10_000

    private struct Mixed: Sendable {
        var indexes: [Int]
        var data: [UInt8]
    }

    /// seq_len, message_len, checksum and fragment length of the message in progress.
    public private(set) var expected: (sequenceLength: Int, messageLength: Int, checksum: UInt32, fragmentLength: Int)?
    private var simple: [Int: [UInt8]] = [:]
    private var mixed: [[Int]: [UInt8]] = [:]
    private var queue: [Mixed] = []
    public private(set) var partsReceived = 0
    public private(set) var message: [UInt8]?

    public init() {}

    /// Fragments known out of seq_len.
    public var fragmentsKnown: Int { simple.count }

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
        }
        partsReceived += 1
        let indexes = FountainPart.fragmentIndexes(sequence: part.sequence, sequenceLength: part.sequenceLength, checksum: part.checksum)
        queue.append(Mixed(indexes: indexes, data: part.data))
        while message == nil, !queue.isEmpty {
            let next = queue.removeFirst()
            if next.indexes.count == 1 { try learn(next) } else { reduceAndKeep(next) }
        }
    }

    private mutating func learn(_ part: Mixed) throws(URError) {
        let index = part.indexes[0]
        guard simple[index] == nil, let expected else { return }
        simple[index] = part.data
        if simple.count == expected.sequenceLength {
            var whole: [UInt8] = []
            whole.reserveCapacity(expected.sequenceLength * expected.fragmentLength)
            for i in 0..<expected.sequenceLength { whole += simple[i]! }
            let candidate = Array(whole.prefix(expected.messageLength))
            guard Bytewords.crc32(candidate) == expected.checksum else {
                // Every fragment is in and the whole does not check: the parts lied (each part's
                // own checksum held). Nothing is returned; start over. An error, not a misread
                // frame to skip: no rescan of one frame mends it.
                (self.expected, simple, mixed, queue) = (nil, [:], [:], [])
                throw .part("its parts assembled into a message that fails the message checksum; the message was dropped")
            }
            message = candidate
            (simple, mixed, queue) = ([:], [:], [])
        } else {
            reduceMixed(by: part)
        }
    }

    /// `a` less `b` when b's fragments are a strict subset of a's.
    private static func reduce(_ a: Mixed, by b: Mixed) -> Mixed {
        guard b.indexes.count < a.indexes.count, Set(b.indexes).isSubset(of: a.indexes) else { return a }
        var data = a.data
        xor(&data, b.data)
        return Mixed(indexes: a.indexes.filter { !b.indexes.contains($0) }, data: data)
    }

    private mutating func reduceMixed(by part: Mixed) {
        var kept: [[Int]: [UInt8]] = [:]
        for (indexes, data) in mixed {
            let reduced = Self.reduce(Mixed(indexes: indexes, data: data), by: part)
            if reduced.indexes.count == 1 { queue.append(reduced) } else { kept[reduced.indexes] = reduced.data }
        }
        mixed = kept
    }

    private mutating func reduceAndKeep(_ part: Mixed) {
        guard mixed[part.indexes] == nil else { return }
        var p = part
        for (index, data) in simple { p = Self.reduce(p, by: Mixed(indexes: [index], data: data)) }
        for (indexes, data) in mixed { p = Self.reduce(p, by: Mixed(indexes: indexes, data: data)) }
        if p.indexes.count == 1 {
            queue.append(p)
        } else {
            reduceMixed(by: p)
            // Mixed parts are kept up to a few times seq_len: a stream of them cannot grow memory without bound.
            if mixed.count < 4 * (expected?.sequenceLength ?? 0) + 64 { mixed[p.indexes] = p.data }
        }
    }
}
