import WalletCore

/// An unsigned 256-bit integer: Ethereum's amounts, fees and EIP-712's uint256, parsed exactly
/// from JSON numbers, decimal strings or 0x hex and never rounded. Four 64-bit limbs, least
/// significant first; every operation that could overflow says so instead.
public struct UInt256: Sendable, Hashable, Comparable, CustomStringConvertible {
    var limbs: [UInt64]  // 4

    public static let zero = UInt256(limbs: [0, 0, 0, 0])
    public init(_ value: UInt64) { limbs = [value, 0, 0, 0] }
    init(limbs: [UInt64]) { self.limbs = limbs }

    /// From big-endian bytes (at most 32).
    public init?(bigEndian bytes: some Collection<UInt8>) {
        guard bytes.count <= 32 else { return nil }
        var l = [UInt64](repeating: 0, count: 4)
        for (i, b) in bytes.reversed().enumerated() { l[i / 8] |= UInt64(b) << (8 * UInt64(i % 8)) }
        limbs = l
    }

    /// Decimal digits, or 0x and hex digits; no sign, no exponent, no fraction. nil when the
    /// text is not such a number or the value needs more than 256 bits.
    public init?(parsing text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        var value = UInt256.zero
        if utf8.count > 2, utf8[0] == 0x30, utf8[1] | 0x20 == 0x78 {
            for c in utf8[2...] {
                guard let d = Hex.nibble(c), let shifted = value.multiplied(by: 16), let next = shifted.adding(UInt256(UInt64(d))) else {
                    return nil
                }
                value = next
            }
        } else {
            guard !utf8.isEmpty else { return nil }
            for c in utf8 {
                guard c >= 0x30 && c <= 0x39, let shifted = value.multiplied(by: 10), let next = shifted.adding(UInt256(UInt64(c - 0x30)))
                else { return nil }
                value = next
            }
        }
        self = value
    }

    public var isZero: Bool { limbs.allSatisfy { $0 == 0 } }

    /// The value if it fits in 64 bits.
    public var uint64: UInt64? { limbs[1] == 0 && limbs[2] == 0 && limbs[3] == 0 ? limbs[0] : nil }

    /// The number of significant bits.
    public var bitWidth: Int {
        for i in stride(from: 3, through: 0, by: -1) where limbs[i] != 0 { return 64 * i + 64 - limbs[i].leadingZeroBitCount }
        return 0
    }

    /// 32 bytes, big-endian.
    public var bytes32: [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 { out[31 - i] = UInt8(truncatingIfNeeded: limbs[i / 8] >> (8 * UInt64(i % 8))) }
        return out
    }

    /// Big-endian without leading zeros (zero is empty): RLP's integers.
    public var minimalBytes: [UInt8] { Array(bytes32.drop { $0 == 0 }) }

    public func adding(_ other: UInt256) -> UInt256? {
        var out = [UInt64](repeating: 0, count: 4)
        var carry: UInt64 = 0
        for i in 0..<4 {
            let (a, o1) = limbs[i].addingReportingOverflow(other.limbs[i])
            let (b, o2) = a.addingReportingOverflow(carry)
            out[i] = b
            carry = (o1 ? 1 : 0) + (o2 ? 1 : 0)
        }
        return carry == 0 ? UInt256(limbs: out) : nil
    }

    public func multiplied(by m: UInt64) -> UInt256? {
        var out = [UInt64](repeating: 0, count: 4)
        var carry: UInt64 = 0
        for i in 0..<4 {
            let (high, low) = limbs[i].multipliedFullWidth(by: m)
            let (sum, o) = low.addingReportingOverflow(carry)
            out[i] = sum
            carry = high &+ (o ? 1 : 0)
        }
        return carry == 0 ? UInt256(limbs: out) : nil
    }

    /// Divides by a small number, returning the quotient and remainder.
    func divided(by d: UInt64) -> (UInt256, UInt64) {
        var out = [UInt64](repeating: 0, count: 4)
        var rem: UInt64 = 0
        for i in stride(from: 3, through: 0, by: -1) {
            let (q, r) = d.dividingFullWidth((high: rem, low: limbs[i]))
            out[i] = q
            rem = r
        }
        return (UInt256(limbs: out), rem)
    }

    /// Decimal digits.
    public var description: String {
        if isZero { return "0" }
        var digits = [UInt8]()
        var v = self
        while !v.isZero {
            let (q, r) = v.divided(by: 10)
            digits.append(UInt8(r) + 0x30)
            v = q
        }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }

    /// The value as a decimal with `decimals` places, trailing zeros dropped: wei in ether.
    public func decimalString(decimals: Int) -> String {
        var digits = Array(description.utf8)
        if digits.count <= decimals { digits = [UInt8](repeating: 0x30, count: decimals + 1 - digits.count) + digits }
        var whole = digits[..<(digits.count - decimals)], fraction = digits[(digits.count - decimals)...]
        while fraction.last == 0x30 { fraction = fraction.dropLast() }
        if whole.isEmpty { whole = [0x30] }
        return String(decoding: whole, as: UTF8.self) + (fraction.isEmpty ? "" : "." + String(decoding: fraction, as: UTF8.self))
    }

    public static func < (a: UInt256, b: UInt256) -> Bool {
        for i in stride(from: 3, through: 0, by: -1) where a.limbs[i] != b.limbs[i] { return a.limbs[i] < b.limbs[i] }
        return false
    }
}
