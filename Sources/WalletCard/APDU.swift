/// A short command APDU (ISO 7816-4): Keycard never needs extended length.
public struct CommandAPDU: Sendable, Equatable {
    public var cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8
    public var data: [UInt8]

    public init(cla: UInt8 = 0x80, ins: UInt8, p1: UInt8 = 0, p2: UInt8 = 0, data: [UInt8] = []) {
        (self.cla, self.ins, self.p1, self.p2, self.data) = (cla, ins, p1, p2, data)
    }

    /// CLA INS P1 P2 [Lc data]: case 1 or case 3. The reader layer adds Le where T=0 wants it.
    public var bytes: [UInt8] { [cla, ins, p1, p2] + (data.isEmpty ? [] : [UInt8(data.count)] + data) }
}

/// A response: data and the status word.
public struct ResponseAPDU: Sendable, Equatable {
    public let data: [UInt8]
    public let sw: UInt16

    public init(data: [UInt8], sw: UInt16) {
        self.data = data
        self.sw = sw
    }

    public init(bytes: [UInt8]) throws(CardError) {
        guard bytes.count >= 2 else { throw .malformedResponse("a response shorter than its status word") }
        data = Array(bytes.dropLast(2))
        sw = UInt16(bytes[bytes.count - 2]) << 8 | UInt16(bytes[bytes.count - 1])
    }

    public var bytes: [UInt8] { data + [UInt8(sw >> 8), UInt8(sw & 0xFF)] }
}

/// The one seam to a card: send an APDU, get its response. PC/SC, the in-process simulator and
/// tests' recorded transcripts all conform.
public protocol CardChannel: AnyObject {
    func transmit(_ apdu: [UInt8]) throws(CardError) -> [UInt8]
}

extension CardChannel {
    public func send(_ command: CommandAPDU) throws(CardError) -> ResponseAPDU {
        try ResponseAPDU(bytes: transmit(command.bytes))
    }
}

/// BER-TLV, as Keycard writes it: one- or multi-byte tags, lengths in short, 81 LL or 82 LLLL
/// form. Unknown fields are kept (and ignored by readers), as the protocol asks.
public struct TLV: Sendable, Equatable {
    public let tag: UInt32
    public let value: [UInt8]

    public init(tag: UInt32, value: [UInt8]) {
        self.tag = tag
        self.value = value
    }

    /// Every TLV in `bytes`, in order; an element that runs past the end is an error.
    public static func parse(_ bytes: [UInt8]) throws(CardError) -> [TLV] {
        var out = [TLV]()
        var i = 0
        while i < bytes.count {
            var tag = UInt32(bytes[i])
            i += 1
            if tag & 0x1F == 0x1F {
                repeat {
                    guard i < bytes.count, tag < 0x00FF_FFFF else { throw .malformedResponse("a TLV tag runs past the end") }
                    tag = tag << 8 | UInt32(bytes[i])
                    i += 1
                } while bytes[i - 1] & 0x80 != 0
            }
            guard i < bytes.count else { throw .malformedResponse("a TLV without a length") }
            var length = Int(bytes[i])
            i += 1
            if length == 0x81 || length == 0x82 {
                let size = length - 0x80
                guard i + size <= bytes.count else { throw .malformedResponse("a TLV length runs past the end") }
                length = bytes[i..<i + size].reduce(0) { $0 << 8 | Int($1) }
                i += size
                // Keycard writes the shortest form; another would give one answer two encodings.
                guard length >= (size == 1 ? 0x80 : 0x100) else { throw .malformedResponse("a TLV length not in its shortest form") }
            } else if length >= 0x80 {  // 0x80 is BER's indefinite length, never a length of 128
                throw .malformedResponse("a TLV length form Keycard does not use (0x\(String(length, radix: 16)))")
            }
            guard length <= bytes.count - i else { throw .malformedResponse("a TLV value runs past the end") }
            out.append(TLV(tag: tag, value: Array(bytes[i..<i + length])))
            i += length
        }
        return out
    }

    /// The encoding: tag, then the length in the shortest form.
    public var bytes: [UInt8] {
        var tagBytes = [UInt8]()
        var t = tag
        repeat { tagBytes.insert(UInt8(t & 0xFF), at: 0); t >>= 8 } while t > 0
        let n = value.count
        let length: [UInt8] = n < 0x80 ? [UInt8(n)] : n <= 0xFF ? [0x81, UInt8(n)] : [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
        return tagBytes + length + value
    }
}

extension Array where Element == TLV {
    /// The first element with this tag.
    public func first(_ tag: UInt32) -> TLV? { first { $0.tag == tag } }
}
