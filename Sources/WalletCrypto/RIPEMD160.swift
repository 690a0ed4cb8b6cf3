import COpenSSL

/// RIPEMD-160 (Bitcoin's HASH160 needs it) from libcrypto, which has it in its default
/// provider since OpenSSL 3.0.7. The hand-written version it replaced was measured slower
/// (satchel-bench xpub_p2wpkh_address: libcrypto 0.89× its time per address). Checked against
/// the algorithm authors' test vectors in WalletCoreTests. Public data only.
public enum RIPEMD160 {
    nonisolated(unsafe) private static let md = EVP_MD_fetch(nil, "RIPEMD160", nil)

    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &out, &length, md, nil) }
        precondition(ok == 1 && length == 20, "RIPEMD-160 is not available in libcrypto")
        return out
    }
}

extension Hash {
    /// RIPEMD-160(SHA-256(data)): Bitcoin's HASH160 of a public key or script.
    public static func hash160<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 {
        RIPEMD160.hash(sha256(data))
    }

    /// SHA-256(SHA-256(data)).
    public static func sha256d<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 {
        sha256(sha256(data))
    }

    /// BIP340 tagged hash: SHA-256(SHA-256(tag) ‖ SHA-256(tag) ‖ data).
    public static func tagged(_ tag: String, _ data: [UInt8]) -> [UInt8] {
        let t = sha256(Array(tag.utf8))
        return sha256(t + t + data)
    }
}
