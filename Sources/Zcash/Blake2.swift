import CBlake2
import WalletCore

/// BLAKE2b and BLAKE2s with a personalization string (RFC 7693 parameter block), over libb2.
///
/// Zcash keys every hash it uses by a 16-byte (BLAKE2b) or 8-byte (BLAKE2s) personalization,
/// and F4Jumble asks for BLAKE2b outputs shorter than 16 bytes, which libsodium refuses; libb2
/// takes any output length from 1 to 64 (32 for BLAKE2s).
public enum Blake2 {
    /// BLAKE2b of the concatenated `parts`, unkeyed, no salt. `personal` is exactly 16 bytes.
    public static func b(_ outputLength: Int, personal: [UInt8], _ parts: [UInt8]...) -> [UInt8] {
        precondition((1...64).contains(outputLength) && personal.count == 16)
        var p = blake2b_param()
        p.digest_length = UInt8(outputLength)
        p.fanout = 1
        p.depth = 1
        withUnsafeMutableBytes(of: &p.personal) { $0.copyBytes(from: personal) }
        var state = blake2b_state()
        defer { withUnsafeMutableBytes(of: &state) { SecureBytes.wipe($0) } }
        precondition(blake2b_init_param(&state, &p) == 0)
        for part in parts { part.withUnsafeBufferPointer { _ = blake2b_update(&state, $0.baseAddress, $0.count) } }
        var out = [UInt8](repeating: 0, count: outputLength)
        precondition(blake2b_final(&state, &out, outputLength) == 0)
        return out
    }

    /// BLAKE2s-256 of the concatenated `parts`. `personal` is exactly 8 bytes.
    public static func s256(personal: [UInt8], _ parts: [UInt8]...) -> [UInt8] {
        precondition(personal.count == 8)
        var p = blake2s_param()
        p.digest_length = 32
        p.fanout = 1
        p.depth = 1
        withUnsafeMutableBytes(of: &p.personal) { $0.copyBytes(from: personal) }
        var state = blake2s_state()
        defer { withUnsafeMutableBytes(of: &state) { SecureBytes.wipe($0) } }
        precondition(blake2s_init_param(&state, &p) == 0)
        for part in parts { part.withUnsafeBufferPointer { _ = blake2s_update(&state, $0.baseAddress, $0.count) } }
        var out = [UInt8](repeating: 0, count: 32)
        precondition(blake2s_final(&state, &out, 32) == 0)
        return out
    }

    /// PRF^expand(sk, t) = BLAKE2b-512("Zcash_ExpandSeed", sk ‖ t) (Zcash protocol §5.4.2).
    public static func prfExpand(_ key: [UInt8], _ t: [UInt8]) -> [UInt8] {
        b(64, personal: Array("Zcash_ExpandSeed".utf8), key, t)
    }
}
