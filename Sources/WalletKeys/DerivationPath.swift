/// A BIP32 path such as m/84'/0'/0'/0/5. Hardened steps are written with ' on output;
/// ', h and H are accepted on input (BIP380).
public struct DerivationPath: Equatable, Sendable, CustomStringConvertible {
    public static let hardened: UInt32 = 0x8000_0000
    public var components: [UInt32]

    public init(_ components: [UInt32] = []) { self.components = components }

    public var description: String {
        (["m"] + components.map(Self.format)).joined(separator: "/")
    }

    public static func format(_ index: UInt32) -> String {
        index >= hardened ? "\(index - hardened)'" : "\(index)"
    }

    public func appending(_ index: UInt32) -> DerivationPath { DerivationPath(components + [index]) }
    public func appending(_ more: [UInt32]) -> DerivationPath { DerivationPath(components + more) }

    /// Parses a path; the last step may be a range `a-b` (both ends included), as in
    /// m/84'/0'/0'/0/0-19. Returns the paths in order.
    public static func parseRange(_ text: String) throws(DerivationError) -> [DerivationPath] {
        var parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.first == "m" else { throw .invalidPath("a path starts with m") }
        parts.removeFirst()
        var base = [UInt32]()
        for (i, part) in parts.enumerated() {
            if part.contains("-") {
                guard i == parts.count - 1 else { throw .invalidPath("only the last step may be a range") }
                let ends = part.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
                guard ends.count == 2 else { throw .invalidPath("a range is written a-b") }
                let hardenAll = ends[1].last.map { "'hH".contains($0) } ?? false
                var lo = try index(hardenAll && !(ends[0].last.map { "'hH".contains($0) } ?? false) ? ends[0] + "'" : ends[0])
                let hi = try index(ends[1])
                guard (lo >= hardened) == (hi >= hardened), lo <= hi else {
                    throw .invalidPath("range \(part) is empty or mixes hardened and normal")
                }
                guard hi - lo < 1_000_000 else { throw .invalidPath("range \(part) has more than 1,000,000 steps") }
                var out = [DerivationPath]()
                while true {
                    out.append(DerivationPath(base + [lo]))
                    if lo == hi { break }
                    lo += 1
                }
                return out
            }
            base.append(try index(part))
        }
        return [DerivationPath(base)]
    }

    public init(parsing text: String) throws(DerivationError) {
        let all = try Self.parseRange(text)
        guard all.count == 1, !text.contains("-") else { throw .invalidPath("a range is not allowed here") }
        self = all[0]
    }

    static func index(_ part: String) throws(DerivationError) -> UInt32 {
        var digits = Substring(part)
        var isHardened = false
        if let last = digits.last, "'hH".contains(last) { isHardened = true; digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            digits.count == 1 || digits.first != "0", let n = UInt32(digits), n < hardened
        else {
            throw .invalidPath("'\(part.prefix(12))' is not an index from 0 to 2147483647")
        }
        return isHardened ? n + hardened : n
    }
}
