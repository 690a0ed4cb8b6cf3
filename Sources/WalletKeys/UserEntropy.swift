import WalletCore

/// Entropy a person makes with dice or coins, turned into unbiased bits.
///
/// Dice: a roll of 1–4 gives two bits (1→00, 2→01, 3→10, 4→11) and a roll of 5 or 6 one bit
/// (5→0, 6→1). Given any history, each case is equally likely within itself, so every bit is
/// uniform and independent of the others for a fair die; no roll is reduced modulo anything.
/// On average a roll gives 5/3 bits: 128 bits need about 77 rolls, 256 about 154.
/// Coins: one flip is one bit (0/t = 0, 1/h = 1).
/// Spaces, commas and dashes between rolls are ignored; any other character is an error.
public enum UserEntropy {
    public enum Kind: String, Sendable { case dice, coins }

    /// Returns `byteCount` bytes and the number of rolls or flips used (the rest are ignored).
    public static func bytes(from text: String, kind: Kind, byteCount: Int) throws(MnemonicError) -> (entropy: SecureBytes, used: Int) {
        let needed = byteCount * 8
        var bits = [UInt8]()
        bits.reserveCapacity(needed + 1)
        defer { SecureBytes.wipe(&bits) }
        var used = 0
        var available = 0
        for (offset, c) in text.unicodeScalars.enumerated() {
            if c == " " || c == "," || c == "-" || c == "\t" { continue }
            let value: [UInt8]
            switch (kind, c) {
            case (.dice, "1"): value = [0, 0]
            case (.dice, "2"): value = [0, 1]
            case (.dice, "3"): value = [1, 0]
            case (.dice, "4"): value = [1, 1]
            case (.dice, "5"): value = [0]
            case (.dice, "6"): value = [1]
            case (.coins, "0"), (.coins, "t"), (.coins, "T"): value = [0]
            case (.coins, "1"), (.coins, "h"), (.coins, "H"): value = [1]
            default: throw .invalidUserEntropy(kind: kind.rawValue, position: offset + 1)
            }
            available += value.count
            if bits.count < needed {
                bits.append(contentsOf: value)
                used += 1
            }
        }
        guard bits.count >= needed else {
            throw .notEnoughUserEntropy(kind: kind.rawValue, neededBits: needed, gotBits: available)
        }
        let out = SecureBytes(count: byteCount)
        out.withUnsafeMutableBytes { raw in
            for i in 0..<needed where bits[i] == 1 { raw[i / 8] |= 0x80 >> UInt8(i % 8) }
        }
        return (out, used)
    }
}
