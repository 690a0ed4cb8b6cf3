import CSodium
import WalletCore
import WalletCrypto

/// Which note-plaintext lead bytes a height allows (ZIP-212): 0x01 before Canopy, either during
/// the grace period of 32,256 blocks after it, 0x02 from then on.
public struct SaplingConsensus: Sendable {
    public let canopyActivation: UInt64
    public static let gracePeriod: UInt64 = 32_256

    public static let main = SaplingConsensus(canopyActivation: 1_046_400)
    public static let test = SaplingConsensus(canopyActivation: 1_028_500)

    public static func of(_ network: ZcashNetwork) -> SaplingConsensus { network == .main ? .main : .test }

    public func allows(leadByte: UInt8, height: UInt64) -> Bool {
        if height < canopyActivation { return leadByte == 0x01 }
        if height < canopyActivation + Self.gracePeriod { return leadByte == 0x01 || leadByte == 0x02 }
        return leadByte == 0x02
    }
}

/// A Sapling output as a compact block carries it: the note commitment's u-coordinate, the
/// ephemeral key and the first 52 bytes of the note ciphertext.
public struct CompactSaplingOutput: Sendable {
    public let cmu: [UInt8]
    public let ephemeralKey: [UInt8]
    public let ciphertext: [UInt8]

    public init(cmu: [UInt8], ephemeralKey: [UInt8], ciphertext: [UInt8]) {
        self.cmu = cmu; self.ephemeralKey = ephemeralKey; self.ciphertext = ciphertext
    }
}

/// A note found by trial decryption, with what proved it the wallet's.
public struct DecryptedNote: Sendable {
    public let note: SaplingNote
    public let leadByte: UInt8
    /// The 32 bytes after the value: rseed (lead byte 2) or rcm (lead byte 1).
    public let rseed: [UInt8]
    /// The note-encryption key, for decrypting the full ciphertext (the memo) later.
    public let key: [UInt8]
}

/// ZIP-307 trial decryption of compact Sapling outputs with one incoming viewing key.
///
/// A wrong key gives a random plaintext whose lead byte passes with probability 1/256, and
/// the 52-byte prefix has no MAC; so a note counts only when its commitment and (for lead
/// byte 2) its ephemeral key recompute from the plaintext.
public struct SaplingDecryptor: Sendable {
    public let ivk: Fr
    public let consensus: SaplingConsensus
    /// ivk as `JubjubBatch` reads it, once per key.
    let scalar: JubjubBatch.Scalar

    public init(ivk: Fr, consensus: SaplingConsensus) {
        self.ivk = ivk
        self.consensus = consensus
        scalar = JubjubBatch.Scalar(ivk)
        Sodium.ensureInitialized()
    }

    /// KA^Sapling.Agree for many ephemeral keys (decoded, the cofactor not yet cleared) and this
    /// one ivk: the hot path of a scan, batched (`JubjubBatch`: 8 epks per vector ladder where
    /// the CPU has AVX-512 IFMA, one field inversion per lane for all).
    public func sharedSecrets(_ epks: [JubjubPoint], path: CurveBatchPath = .inUse) -> [[UInt8]] {
        JubjubBatch.encodedMultiples(epks, by: scalar, cofactor: true, path: path)
    }

    /// The note, if this output is the wallet's at `height`, given KA^Sapling's result for it.
    public func tryDecrypt(_ output: CompactSaplingOutput, sharedSecret: [UInt8], height: UInt64) -> DecryptedNote? {
        let k = Self.key(sharedSecret: sharedSecret, ephemeralKey: output.ephemeralKey)
        return check(plaintext: Self.plaintext52(key: k, ciphertext: output.ciphertext), key: k, output: output, height: height)
    }

    /// KA^Sapling.Agree: [8·ivk]epk, as its encoding; nil for an ephemeral key that is no
    /// canonical point.
    public func sharedSecret(_ ephemeralKey: [UInt8]) -> [UInt8]? {
        guard let epk = JubjubPoint(bytes: ephemeralKey) else { return nil }
        return epk.timesCofactor().times(ivk).bytes
    }

    /// 8·epk of an output of the compact form's sizes, nil if it is not; decoded once for all
    /// the keys that try the output (the decoding costs a square root).
    public static func ephemeralPoint(_ output: CompactSaplingOutput) -> JubjubPoint? {
        guard output.ciphertext.count == 52, output.cmu.count == 32, let epk = JubjubPoint(bytes: output.ephemeralKey) else { return nil }
        return epk.timesCofactor()
    }

    /// KDF^Sapling: BLAKE2b-256("Zcash_SaplingKDF", repr(shared secret) ‖ epk).
    public static func key(sharedSecret: [UInt8], ephemeralKey: [UInt8]) -> [UInt8] {
        Blake2.b(32, personal: Array("Zcash_SaplingKDF".utf8), sharedSecret, ephemeralKey)
    }

    /// The first 52 plaintext bytes: ChaCha20 (IETF, zero nonce) from block 1, since block 0's
    /// keystream is the Poly1305 key of the full encryption.
    public static func plaintext52(key: [UInt8], ciphertext: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: ciphertext.count)
        let nonce = [UInt8](repeating: 0, count: 12)
        _ = crypto_stream_chacha20_ietf_xor_ic(&out, ciphertext, UInt64(ciphertext.count), nonce, 1, key)
        return out
    }

    /// The note, if this output is the wallet's at `height`.
    public func tryDecrypt(_ output: CompactSaplingOutput, height: UInt64) -> DecryptedNote? {
        Self.ephemeralPoint(output).flatMap { tryDecrypt(output, ephemeralPoint: $0, height: height) }
    }

    /// The same with `ephemeralPoint(output)` given.
    public func tryDecrypt(_ output: CompactSaplingOutput, ephemeralPoint epk8: JubjubPoint, height: UInt64) -> DecryptedNote? {
        let k = Self.key(sharedSecret: epk8.times(ivk).bytes, ephemeralKey: output.ephemeralKey)
        let p = Self.plaintext52(key: k, ciphertext: output.ciphertext)
        return check(plaintext: p, key: k, output: output, height: height)
    }

    /// The ZIP-212 and commitment checks on a plaintext (its first 52 bytes).
    func check(plaintext p: [UInt8], key: [UInt8], output: CompactSaplingOutput, height: UInt64) -> DecryptedNote? {
        let lead = p[0]
        guard consensus.allows(leadByte: lead, height: height) else { return nil }
        let d = Array(p[1..<12])
        guard let gd = SaplingDiversifier.base(d) else { return nil }
        let value = p[12..<20].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let rseed = Array(p[20..<52])
        let rcm: Fr
        if lead == 0x02 {
            rcm = Fr(wide: Blake2.prfExpand(rseed, [0x04]))
            let esk = Fr(wide: Blake2.prfExpand(rseed, [0x05]))
            guard gd.times(esk).bytes == output.ephemeralKey else { return nil }
        } else {
            guard let r = Fr(bytes: rseed) else { return nil }
            rcm = r
        }
        let note = SaplingNote(diversifier: d, transmissionKey: gd.times(ivk).bytes, value: value, rcm: rcm)
        guard let cmu = note.commitmentU, cmu == output.cmu else { return nil }
        return DecryptedNote(note: note, leadByte: lead, rseed: rseed, key: key)
    }
}
