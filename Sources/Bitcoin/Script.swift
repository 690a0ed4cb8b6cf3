import WalletCore
import WalletCrypto

/// The standard output scripts a signer recognizes, read from a scriptPubKey (or a P2SH redeem
/// script). Anything else is `.other`: Satchel signs no script it cannot name.
public enum ScriptTemplate: Sendable, Equatable {
    case p2pkh(keyHash: [UInt8])
    case p2sh(scriptHash: [UInt8])
    case p2wpkh(keyHash: [UInt8])
    case p2wsh(scriptHash: [UInt8])
    case p2tr(outputKey: [UInt8])
    case other

    public init(_ s: [UInt8]) {
        switch s.count {
        case 25 where s[0] == 0x76 && s[1] == 0xA9 && s[2] == 0x14 && s[23] == 0x88 && s[24] == 0xAC:
            self = .p2pkh(keyHash: Array(s[3..<23]))
        case 23 where s[0] == 0xA9 && s[1] == 0x14 && s[22] == 0x87: self = .p2sh(scriptHash: Array(s[2..<22]))
        case 22 where s[0] == 0x00 && s[1] == 0x14: self = .p2wpkh(keyHash: Array(s[2...]))
        case 34 where s[0] == 0x00 && s[1] == 0x20: self = .p2wsh(scriptHash: Array(s[2...]))
        case 34 where s[0] == 0x51 && s[1] == 0x20: self = .p2tr(outputKey: Array(s[2...]))
        default: self = .other
        }
    }

    public static func p2pkh(_ keyHash: [UInt8]) -> [UInt8] { [0x76, 0xA9, 0x14] + keyHash + [0x88, 0xAC] }
    public static func p2sh(_ script: [UInt8]) -> [UInt8] { [0xA9, 0x14] + Hash.hash160(script) + [0x87] }
    public static func p2wpkh(_ key: [UInt8]) -> [UInt8] { [0x00, 0x14] + Hash.hash160(key) }
}

/// Reading and writing script pushes, as a signer and finalizer need them.
public enum Script {
    /// The data pushes of a script, in order, with the opcodes between them left out; nil when a
    /// push runs past the end.
    public static func pushes(_ s: [UInt8]) -> [[UInt8]]? {
        var out = [[UInt8]](), i = 0
        while i < s.count {
            let op = Int(s[i]); i += 1
            var n: Int
            switch op {
            case 0x01...0x4B: n = op
            case 0x4C: guard i + 1 <= s.count else { return nil }; n = Int(s[i]); i += 1
            case 0x4D: guard i + 2 <= s.count else { return nil }; n = Int(s[i]) | Int(s[i + 1]) << 8; i += 2
            case 0x4E: guard i + 4 <= s.count else { return nil }; n = (0..<4).reduce(0) { $0 | Int(s[i + $1]) << (8 * $1) }; i += 4
            default: continue
            }
            guard n <= s.count - i else { return nil }
            out.append(Array(s[i..<i + n])); i += n
        }
        return out
    }

    /// A bare `m` of `n` CHECKMULTISIG script: OP_m, n public keys, OP_n, OP_CHECKMULTISIG.
    public static func multisig(_ s: [UInt8]) -> (required: Int, keys: [[UInt8]])? {
        guard s.count >= 3, s.last == 0xAE, (0x51...0x60).contains(s[0]), (0x51...0x60).contains(s[s.count - 2]) else { return nil }
        let m = Int(s[0]) - 0x50, n = Int(s[s.count - 2]) - 0x50
        var keys = [[UInt8]](), i = 1
        while i < s.count - 2 {
            let size = Int(s[i])
            guard size == 33 || size == 65, i + 1 + size <= s.count - 2 else { return nil }
            keys.append(Array(s[i + 1..<i + 1 + size])); i += 1 + size
        }
        guard keys.count == n, m <= n else { return nil }
        return (m, keys)
    }

    /// The shortest push of `data` (BIP62's minimal pushes, as a scriptSig is written).
    public static func push(_ data: [UInt8]) -> [UInt8] {
        switch data.count {
        case 0: return [0x00]
        case 1...0x4B: return [UInt8(data.count)] + data
        case 0x4C...0xFF: return [0x4C, UInt8(data.count)] + data
        case 0x100...0xFFFF: return [0x4D, UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + data
        default: return [0x4E] + withUnsafeBytes(of: UInt32(data.count).littleEndian) { Array($0) } + data
        }
    }
}
