import CSecp256k1
import WalletCore

/// A recoverable ECDSA signature: r ‖ s (low-S) and the recovery id.
public struct ECDSASignature: Sendable, Equatable {
    public let compact: [UInt8]
    public let recoveryID: Int

    public init(compact: [UInt8], recoveryID: Int) {
        self.compact = compact
        self.recoveryID = recoveryID
    }

    /// The DER encoding (strict, as Bitcoin requires).
    public var der: [UInt8] {
        var sig = secp256k1_ecdsa_signature()
        _ = secp256k1_ecdsa_signature_parse_compact(Secp256k1.context, &sig, compact)
        var out = [UInt8](repeating: 0, count: 72)
        var length = 72
        _ = secp256k1_ecdsa_signature_serialize_der(Secp256k1.context, &out, &length, &sig)
        return Array(out.prefix(length))
    }
}

public enum SignatureError: WalletError, Equatable {
    case invalidSignature
    case verificationFailed
    case recoveryFailed
    case invalidHashLength(Int)

    public var code: String {
        switch self {
        case .invalidSignature: "sign.invalid_signature"
        case .verificationFailed: "sign.verification_failed"
        case .recoveryFailed: "sign.recovery_failed"
        case .invalidHashLength: "sign.invalid_hash_length"
        }
    }

    public var message: String {
        switch self {
        case .invalidSignature: "not a well-formed signature (64 bytes r‖s with r, s below n; recovery id 0–3)"
        case .verificationFailed: "the signature does not match this hash and key"
        case .recoveryFailed: "no public key can be recovered from this signature and hash"
        case .invalidHashLength(let n): "a hash to sign is 32 bytes, got \(n)"
        }
    }
}

extension Secp256k1 {
    /// ECDSA with RFC 6979 nonces (libsecp256k1's default) and low-S, recoverable.
    /// Constant-time in the key. The hash is used as is (a value ≥ n is reduced, as ECDSA says).
    public static func signECDSA(hash: [UInt8], privateKey: SecureBytes) throws(SignatureError) -> ECDSASignature {
        guard hash.count == 32 else { throw .invalidHashLength(hash.count) }
        var sig = secp256k1_ecdsa_recoverable_signature()
        let ok = privateKey.withUnsafeBytes { secp256k1_ecdsa_sign_recoverable(context, &sig, hash, $0.uint8Pointer, nil, nil) }
        guard ok == 1 else { throw .invalidSignature }
        var compact = [UInt8](repeating: 0, count: 64)
        var recid: Int32 = 0
        _ = secp256k1_ecdsa_recoverable_signature_serialize_compact(context, &compact, &recid, &sig)
        return ECDSASignature(compact: compact, recoveryID: Int(recid))
    }

    /// Bitcoin Core's ECDSA: RFC 6979 first, then again with a 32-bit counter as extra entropy
    /// (little-endian in 32 bytes) until r is below 2^255, so its DER encoding needs no padding
    /// byte. Signatures are then byte-identical to the node's own, and a byte shorter half of the
    /// time; about two tries on average.
    public static func signECDSALowR(hash: [UInt8], privateKey: SecureBytes) throws(SignatureError) -> ECDSASignature {
        guard hash.count == 32 else { throw .invalidHashLength(hash.count) }
        var counter: UInt32 = 0
        var sig = secp256k1_ecdsa_recoverable_signature()
        var compact = [UInt8](repeating: 0, count: 64)
        var recid: Int32 = 0
        // The extra entropy: the counter, little-endian, in 32 bytes (on the stack: a signer of
        // many inputs tries twice per signature on average).
        var entropy = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let ok = privateKey.withUnsafeBytes { key -> Bool in
            while true {
                entropy.0 = UInt64(counter).littleEndian
                let signed = withUnsafeBytes(of: &entropy) { e in
                    secp256k1_ecdsa_sign_recoverable(context, &sig, hash, key.uint8Pointer, nil, counter == 0 ? nil : e.baseAddress)
                }
                guard signed == 1 else { return false }
                _ = secp256k1_ecdsa_recoverable_signature_serialize_compact(context, &compact, &recid, &sig)
                if compact[0] < 0x80 { return true }
                counter += 1
            }
        }
        guard ok else { throw .invalidSignature }
        return ECDSASignature(compact: compact, recoveryID: Int(recid))
    }

    /// Verifies r ‖ s against a hash and key; a high-S signature is refused (libsecp256k1).
    public static func verifyECDSA(hash: [UInt8], compact: [UInt8], publicKey: PublicKey) throws(SignatureError) -> Bool {
        guard hash.count == 32 else { throw .invalidHashLength(hash.count) }
        guard compact.count == 64 else { throw .invalidSignature }
        var sig = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_parse_compact(context, &sig, compact) == 1 else { throw .invalidSignature }
        var key = publicKey.raw
        return secp256k1_ecdsa_verify(context, &sig, hash, &key) == 1
    }

    /// Verifies a DER signature (as Bitcoin scripts carry them) against a hash and key; a
    /// signature that does not parse, or is high-S, does not verify.
    public static func verifyECDSA(hash: [UInt8], der: [UInt8], publicKey: PublicKey) -> Bool {
        guard hash.count == 32 else { return false }
        var sig = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_parse_der(context, &sig, der, der.count) == 1 else { return false }
        var key = publicKey.raw
        return secp256k1_ecdsa_verify(context, &sig, hash, &key) == 1
    }

    /// r ‖ s with s replaced by n − s when it is in the upper half (BIP62 low-S).
    public static func lowS(compact: [UInt8]) throws(SignatureError) -> [UInt8] {
        guard compact.count == 64 else { throw .invalidSignature }
        var sig = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_parse_compact(context, &sig, compact) == 1 else { throw .invalidSignature }
        var normalized = secp256k1_ecdsa_signature()
        _ = secp256k1_ecdsa_signature_normalize(context, &normalized, &sig)
        var out = [UInt8](repeating: 0, count: 64)
        _ = secp256k1_ecdsa_signature_serialize_compact(context, &out, &normalized)
        return out
    }

    public static func recoverECDSA(hash: [UInt8], compact: [UInt8], recoveryID: Int) throws(SignatureError) -> PublicKey {
        guard hash.count == 32 else { throw .invalidHashLength(hash.count) }
        guard compact.count == 64, (0...3).contains(recoveryID) else { throw .invalidSignature }
        var sig = secp256k1_ecdsa_recoverable_signature()
        guard secp256k1_ecdsa_recoverable_signature_parse_compact(context, &sig, compact, Int32(recoveryID)) == 1 else {
            throw .invalidSignature
        }
        var key = secp256k1_pubkey()
        guard secp256k1_ecdsa_recover(context, &key, &sig, hash) == 1 else { throw .recoveryFailed }
        return PublicKey(raw: key)
    }

    /// A BIP340 key pair, built once per key and reused for every signature.
    public final class SchnorrKeyPair: @unchecked Sendable {
        var keypair = secp256k1_keypair()

        /// `taprootTweak`: tweak the key by H_TapTweak(x(P) ‖ merkleRoot) first (BIP341 key-path
        /// spend; no `merkleRoot` is a BIP86 output, with no script tree).
        public init(privateKey: SecureBytes, taprootTweak: Bool = false, merkleRoot: [UInt8]? = nil) throws(CurveError) {
            let ok = privateKey.withUnsafeBytes { secp256k1_keypair_create(Secp256k1.context, &keypair, $0.uint8Pointer) }
            guard ok == 1 else { throw .invalidPrivateKey }
            if taprootTweak {
                guard merkleRoot == nil || merkleRoot!.count == 32 else { throw .invalidTweak }
                let tweak = Hash.tagged("TapTweak", internalXOnly + (merkleRoot ?? []))
                guard secp256k1_keypair_xonly_tweak_add(Secp256k1.context, &keypair, tweak) == 1 else { throw .invalidTweak }
            }
        }

        deinit { withUnsafeMutableBytes(of: &keypair) { SecureBytes.wipe($0) } }

        private var internalXOnly: [UInt8] {
            var xonly = secp256k1_xonly_pubkey()
            _ = secp256k1_keypair_xonly_pub(Secp256k1.context, &xonly, nil, &keypair)
            var out = [UInt8](repeating: 0, count: 32)
            _ = secp256k1_xonly_pubkey_serialize(Secp256k1.context, &out, &xonly)
            return out
        }

        /// The 32-byte x-only public key that verifies this pair's signatures.
        public var xOnlyPublicKey: [UInt8] { internalXOnly }

        /// BIP340 signature of a message of any length; `auxRand` is BIP340's auxiliary
        /// randomness (fresh from the CSPRNG unless given, as BIP340 recommends).
        public func sign(_ message: [UInt8], auxRand: [UInt8]? = nil) throws(SignatureError) -> [UInt8] {
            var aux = auxRand ?? Sodium.randomBytes(32).bytes
            guard aux.count == 32 else { throw .invalidSignature }
            var extra = secp256k1_schnorrsig_extraparams()
            // SECP256K1_SCHNORRSIG_EXTRAPARAMS_INIT: the magic, default nonce function.
            extra.magic = (0xda, 0x6f, 0xb3, 0x8c)
            var signature = [UInt8](repeating: 0, count: 64)
            let ok = aux.withUnsafeMutableBytes { auxBytes -> Int32 in
                extra.ndata = UnsafeMutableRawPointer(auxBytes.baseAddress)
                return secp256k1_schnorrsig_sign_custom(Secp256k1.context, &signature, message, message.count, &keypair, &extra)
            }
            guard ok == 1 else { throw .invalidSignature }
            return signature
        }
    }

    public static func verifySchnorr(message: [UInt8], signature: [UInt8], xOnlyPublicKey: [UInt8]) -> Bool {
        guard signature.count == 64, xOnlyPublicKey.count == 32 else { return false }
        var key = secp256k1_xonly_pubkey()
        guard secp256k1_xonly_pubkey_parse(context, &key, xOnlyPublicKey) == 1 else { return false }
        return secp256k1_schnorrsig_verify(context, signature, message, message.count, &key) == 1
    }
}
