import WalletCore
import WalletCrypto

/// A Bitcoin-family chain's proof of work: the header hash that must not exceed the target its
/// nBits encodes, and the work a block adds to its chain (what a node follows: the most
/// cumulative work, never the most blocks — test networks have minimum-difficulty blocks).
public enum ProofOfWork: Sendable {
    /// Bitcoin: SHA256d of the 80-byte header.
    case sha256d
    /// Litecoin: scrypt(header, header, N = 1024, r = 1, p = 1), 32 bytes.
    case scrypt

    /// The header's proof-of-work hash, as the header's own bytes are (little-endian).
    public func hash(_ header: [UInt8]) -> [UInt8] {
        switch self {
        case .sha256d: Bitcoin.sha256d(header)
        case .scrypt: Sodium.scrypt(password: header, salt: header, n: 1024, r: 1, p: 1, length: 32)
        }
    }

    /// Whether a header's hash meets the target its nBits encodes (an invalid nBits never does).
    public func isValid(_ header: [UInt8]) -> Bool {
        guard header.count == 80, let target = Work.target(compact: Self.bits(header)) else { return false }
        return Work(littleEndian: hash(header)) <= target
    }

    static func bits(_ header: [UInt8]) -> UInt32 {
        header[72..<76].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
}

/// A 256-bit unsigned number (four 64-bit limbs, most significant first): a target, or a
/// chain's work, which sums past 2^64.
public struct Work: Comparable, Hashable, Sendable {
    var limbs: [UInt64]

    public static let zero = Work(limbs: [0, 0, 0, 0])

    init(limbs: [UInt64]) { self.limbs = limbs }

    /// From 32 bytes in little-endian order (a hash as Bitcoin compares it to a target).
    init(littleEndian bytes: [UInt8]) {
        limbs = (0..<4).map { limb in (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[31 - limb * 8 - $1]) } }
    }

    /// The target a compact nBits encodes; nil when it is negative, zero or past 2^256 (a
    /// header no proof of work can meet, as Bitcoin Core's GetBlockProof gives it no work).
    static func target(compact: UInt32) -> Work? {
        let exponent = Int(compact >> 24), mantissa = UInt64(compact & 0x007F_FFFF)
        guard compact & 0x0080_0000 == 0, mantissa != 0 else { return nil }
        var t = Work.zero
        if exponent <= 3 {
            t.limbs[3] = mantissa >> (8 * UInt64(3 - exponent))
        } else {
            let shift = 8 * (exponent - 3)
            // The mantissa's 23 bits must fit below 2^256.
            guard shift + (64 - mantissa.leadingZeroBitCount) <= 256 else { return nil }
            t = Work(limbs: [0, 0, 0, mantissa]).shiftedLeft(shift)
        }
        return t == .zero ? nil : t
    }

    /// The work a block of this nBits adds: 2^256 / (target + 1), as Bitcoin Core's
    /// GetBlockProof computes it (~target / (target + 1) + 1); zero for an invalid nBits.
    public static func proof(compact: UInt32) -> Work {
        guard let target = target(compact: compact) else { return .zero }
        let inverted = Work(limbs: target.limbs.map { ~$0 })
        return inverted.divided(by: target.adding(Work(limbs: [0, 0, 0, 1]))).adding(Work(limbs: [0, 0, 0, 1]))
    }

    public func adding(_ other: Work) -> Work {
        var out = Work.zero, carry: UInt64 = 0
        for i in (0..<4).reversed() {
            let (a, o1) = limbs[i].addingReportingOverflow(other.limbs[i])
            let (b, o2) = a.addingReportingOverflow(carry)
            out.limbs[i] = b
            carry = (o1 ? 1 : 0) + (o2 ? 1 : 0)
        }
        // Past 2^256 no real chain goes: saturate rather than wrap.
        return carry == 0 ? out : Work(limbs: [.max, .max, .max, .max])
    }

    func subtracting(_ other: Work) -> Work {
        var out = Work.zero, borrow: UInt64 = 0
        for i in (0..<4).reversed() {
            let (a, o1) = limbs[i].subtractingReportingOverflow(other.limbs[i])
            let (b, o2) = a.subtractingReportingOverflow(borrow)
            out.limbs[i] = b
            borrow = (o1 ? 1 : 0) + (o2 ? 1 : 0)
        }
        return out
    }

    func shiftedLeft(_ n: Int) -> Work {
        var out = Work.zero
        for bit in 0..<256 where bit + n < 256 && self.bit(bit) { out.setBit(bit + n) }
        return out
    }

    func bit(_ i: Int) -> Bool { limbs[3 - i / 64] >> UInt64(i % 64) & 1 == 1 }
    mutating func setBit(_ i: Int) { limbs[3 - i / 64] |= 1 << UInt64(i % 64) }

    /// Long division, a bit at a time (cached by nBits: a chain has few).
    func divided(by d: Work) -> Work {
        var quotient = Work.zero, remainder = Work.zero
        for i in (0..<256).reversed() {
            remainder = remainder.shiftedLeftByOne()
            if bit(i) { remainder.limbs[3] |= 1 }
            if remainder >= d {
                remainder = remainder.subtracting(d)
                quotient.setBit(i)
            }
        }
        return quotient
    }

    func shiftedLeftByOne() -> Work {
        var out = Work.zero
        for i in 0..<4 { out.limbs[i] = limbs[i] << 1 | (i < 3 ? limbs[i + 1] >> 63 : 0) }
        return out
    }

    public static func < (a: Work, b: Work) -> Bool {
        for i in 0..<4 where a.limbs[i] != b.limbs[i] { return a.limbs[i] < b.limbs[i] }
        return false
    }
}
