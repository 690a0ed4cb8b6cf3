import WalletCore
import WalletCrypto

import WalletCrypto

/// EIP-55 mixed-case checksummed Ethereum addresses.
public enum EIP55 {
    /// "0x" + the 20 bytes in hex, a letter uppercase where the Keccak-256 of the lowercase
    /// hex has a nibble ≥ 8 at that position.
    public static func encode(_ address: [UInt8]) -> String {
        let lower = Array(Hex.encode(address).utf8)
        let hash = Keccak256.hash(lower)
        var out = [UInt8]()
        for (i, c) in lower.enumerated() {
            let nibble = (hash[i / 2] >> (i % 2 == 0 ? 4 : 0)) & 0xF
            out.append(c >= 97 && nibble >= 8 ? c - 32 : c)
        }
        return "0x" + String(decoding: out, as: UTF8.self)
    }

    /// Whether a mixed-case address carries a correct checksum (all-lower and all-upper
    /// addresses carry none and pass).
    public static func isValid(_ text: String) -> Bool {
        guard text.hasPrefix("0x"), text.utf8.count == 42, let bytes = try? Hex.decode(String(text.dropFirst(2))) else { return false }
        let body = text.dropFirst(2)
        if body == body.lowercased() || body == body.uppercased() { return true }
        return encode(bytes) == text
    }
}
