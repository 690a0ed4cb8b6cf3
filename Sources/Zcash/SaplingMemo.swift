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

/// The shielded outputs of a v5 transaction (ZIP-225), read up to the end of its Orchard
/// actions; what follows (flags, proofs, signatures) is not needed for memos.
public enum ZcashTransactionParser {
    public static func saplingOutputs(_ raw: [UInt8]) throws(ZcashDataError) -> [FullSaplingOutput] {
        try shieldedBundles(raw).sapling
    }

    public static func shieldedBundles(_ raw: [UInt8]) throws(ZcashDataError) -> (sapling: [FullSaplingOutput], orchard: [FullOrchardAction]) {
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
        let header = try take(4)
        let version = header.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard version & 0x7FFF_FFFF == 5, version & 0x8000_0000 != 0 else {
            throw .badBlock(height: nil, reason: "only v5 transactions are read for memos (version \(version & 0x7FFF_FFFF))")
        }
        _ = try take(16)  // version group, branch id, lock time, expiry height
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
        var actions = [FullOrchardAction]()
        for _ in 0..<(try compactSize()) {
            _ = try take(32)  // cv
            let nullifier = Array(try take(32))
            _ = try take(32)  // rk
            actions.append(FullOrchardAction(nullifier: nullifier, cmx: Array(try take(32)), ephemeralKey: Array(try take(32)),
                                             encCiphertext: Array(try take(580))))
            _ = try take(80)  // outCiphertext
        }
        return (outputs, actions)
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
