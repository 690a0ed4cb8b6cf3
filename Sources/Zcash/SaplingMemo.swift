import CSodium
import WalletCore

/// A Sapling output as a full transaction carries it (the compact form keeps 52 bytes of the
/// 580-byte note ciphertext; the rest holds the memo).
public struct FullSaplingOutput: Sendable, Equatable {
    public let cmu: [UInt8]
    public let ephemeralKey: [UInt8]
    public let encCiphertext: [UInt8]
}

/// An Orchard action as a full transaction carries it.
public struct FullOrchardAction: Sendable, Equatable {
    public let nullifier: [UInt8]
    public let cmx: [UInt8]
    public let ephemeralKey: [UInt8]
    public let encCiphertext: [UInt8]
}

/// The shielded outputs of a v5 transaction (ZIP-225) or a v6 one (NU6.3's: v5's layout with an
/// Ironwood bundle, Orchard's encoding, after the Orchard bundle), read up to the end of the
/// last bundle's actions; what follows them (flags, proofs, signatures) is skipped where a
/// later bundle needs it, and not read otherwise.
public enum ZcashTransactionParser {
    /// v5's version group id (ZIP-225) and v6's (NU6.3).
    static let v5VersionGroup: UInt32 = 0x26A7_270A
    static let v6VersionGroup: UInt32 = 0xD884_B698

    public static func saplingOutputs(_ raw: [UInt8]) throws(ZcashDataError) -> [FullSaplingOutput] {
        try shieldedBundles(raw).sapling
    }

    public static func shieldedBundles(_ raw: [UInt8]) throws(ZcashDataError)
        -> (sapling: [FullSaplingOutput], orchard: [FullOrchardAction], ironwood: [FullOrchardAction]) {
        var r = raw[...]
        func take(_ n: Int) throws(ZcashDataError) -> ArraySlice<UInt8> {
            guard r.count >= n else { throw .badBlock(height: nil, reason: "a full transaction ends early") }
            defer { r = r.dropFirst(n) }
            return r.prefix(n)
        }
        func compactSize() throws(ZcashDataError) -> Int {
            let first = try take(1).first!
            let width = first == 0xFD ? 2 : first == 0xFE ? 4 : first == 0xFF ? 8 : 0
            if width == 0 { return Int(first) }
            let value = try take(width).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard value <= 1 << 24 else { throw .badBlock(height: nil, reason: "a count of \(value) in a full transaction") }
            return Int(value)
        }
        func uint32() throws(ZcashDataError) -> UInt32 { try take(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        let version = try uint32()
        guard version & 0x8000_0000 != 0, [5, 6].contains(version & 0x7FFF_FFFF) else {
            throw .badBlock(height: nil, reason: "only v5 and v6 transactions are read for memos (version \(version & 0x7FFF_FFFF))")
        }
        let v6 = version & 0x7FFF_FFFF == 6
        let group = try uint32()
        guard group == (v6 ? v6VersionGroup : v5VersionGroup) else {
            throw .badBlock(height: nil, reason: "a v\(v6 ? 6 : 5) transaction with the version group id \(String(group, radix: 16))")
        }
        _ = try take(12)  // branch id, lock time, expiry height
        for _ in 0..<(try compactSize()) {  // transparent inputs
            _ = try take(36)
            _ = try take(try compactSize())
            _ = try take(4)
        }
        for _ in 0..<(try compactSize()) {  // transparent outputs
            _ = try take(8)
            _ = try take(try compactSize())
        }
        let spends = try compactSize()
        for _ in 0..<spends { _ = try take(96) }  // Sapling spends: cv, nullifier, rk
        var outputs = [FullSaplingOutput]()
        let outputCount = try compactSize()
        for _ in 0..<outputCount {
            _ = try take(32)  // cv
            outputs.append(FullSaplingOutput(cmu: Array(try take(32)), ephemeralKey: Array(try take(32)), encCiphertext: Array(try take(580))))
            _ = try take(80)  // outCiphertext
        }
        if spends + outputCount > 0 { _ = try take(8) }  // valueBalanceSapling
        if spends > 0 { _ = try take(32) }  // anchorSapling
        _ = try take(spends * (192 + 64) + outputCount * 192)  // spend proofs and signatures, output proofs
        if spends + outputCount > 0 { _ = try take(64) }  // bindingSigSapling
        // An Orchard-encoded bundle's actions (Orchard's, and in v6 Ironwood's after it).
        func actions() throws(ZcashDataError) -> [FullOrchardAction] {
            var actions = [FullOrchardAction]()
            for _ in 0..<(try compactSize()) {
                _ = try take(32)  // cv
                let nullifier = Array(try take(32))
                _ = try take(32)  // rk
                actions.append(FullOrchardAction(nullifier: nullifier, cmx: Array(try take(32)), ephemeralKey: Array(try take(32)),
                                                 encCiphertext: Array(try take(580))))
                _ = try take(80)  // outCiphertext
            }
            return actions
        }
        let orchard = try actions()
        guard v6 else { return (outputs, orchard, []) }
        if !orchard.isEmpty {
            _ = try take(1 + 8 + 32)  // flags, valueBalance, anchor
            _ = try take(try compactSize())  // proofs
            _ = try take(orchard.count * 64 + 64)  // spend authorization signatures, binding signature
        }
        return (outputs, orchard, try actions())
    }
}

/// A Sapling memo (ZIP-302): 512 bytes.
public enum SaplingMemo {
    /// The full note plaintext: ChaCha20-Poly1305 (IETF, zero nonce, no associated data) of the
    /// 580-byte ciphertext under the note key; nil when the tag does not verify.
    public static func plaintext(encCiphertext: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard encCiphertext.count == 580, key.count == 32 else { return nil }
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: 564)
        var length: UInt64 = 0
        let nonce = [UInt8](repeating: 0, count: 12)
        let rc = crypto_aead_chacha20poly1305_ietf_decrypt(&out, &length, nil, encCiphertext, 580, nil, 0, nonce, key)
        return rc == 0 && length == 564 ? out : nil
    }

    /// The memo's text when it is one (first byte ≤ 0xF4: UTF-8, trailing zeros dropped); nil
    /// for "no memo" (0xF6 then zeros), arbitrary data (0xFF) and the reserved forms.
    public static func text(_ memo: [UInt8]) -> String? {
        guard let first = memo.first, first <= 0xF4 else { return nil }
        var end = memo.count
        while end > 0 && memo[end - 1] == 0 { end -= 1 }
        return String(validating: memo[0..<end], as: UTF8.self)
    }

    /// Whether the memo says "no memo" (0xF6 followed by zeros).
    public static func isEmpty(_ memo: [UInt8]) -> Bool {
        memo.first == 0xF6 && memo.dropFirst().allSatisfy { $0 == 0 }
    }
}
