import CSecp256k1
import CCurveBatch
import WalletCore

/// Errors of curve arithmetic: an operation whose result BIP32 calls invalid.
public enum CurveError: WalletError, Equatable {
    case invalidPrivateKey
    case invalidPublicKey
    case invalidTweak

    public var code: String {
        switch self {
        case .invalidPrivateKey: "curve.invalid_private_key"
        case .invalidPublicKey: "curve.invalid_public_key"
        case .invalidTweak: "curve.invalid_tweak"
        }
    }

    public var message: String {
        switch self {
        case .invalidPrivateKey: "not a valid secp256k1 private key (zero or not below the group order)"
        case .invalidPublicKey: "not a valid secp256k1 public key (not a point on the curve)"
        case .invalidTweak: "the derived key is invalid (IL ≥ n or the result is zero)"
        }
    }
}

/// The libsecp256k1 operations Satchel uses, over one randomized context for the whole process.
public enum Secp256k1 {
    /// One context for the process: creating and randomizing one costs about a signature.
    nonisolated(unsafe) public static let context: OpaquePointer = {
        let ctx = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE))!
        let seed = Sodium.randomBytes(32)
        _ = seed.withUnsafeBytes { secp256k1_context_randomize(ctx, $0.uint8Pointer) }
        return ctx
    }()

    /// A parsed public key; parse once, derive many (parsing costs a square root).
    public struct PublicKey: Sendable, Equatable {
        var raw: secp256k1_pubkey

        public init(parsing bytes: [UInt8]) throws(CurveError) {
            var key = secp256k1_pubkey()
            guard secp256k1_ec_pubkey_parse(Secp256k1.context, &key, bytes, bytes.count) == 1 else { throw .invalidPublicKey }
            raw = key
        }

        init(raw: secp256k1_pubkey) { self.raw = raw }

        public var compressed: [UInt8] { serialize(flags: UInt32(SECP256K1_EC_COMPRESSED), length: 33) }
        public var uncompressed: [UInt8] { serialize(flags: UInt32(SECP256K1_EC_UNCOMPRESSED), length: 65) }

        private func serialize(flags: UInt32, length: Int) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: length)
            var n = length
            var key = raw
            _ = secp256k1_ec_pubkey_serialize(Secp256k1.context, &out, &n, &key, flags)
            return out
        }

        /// P + tweak·G (BIP32 CKDpub).
        public func adding(tweak: [UInt8]) throws(CurveError) -> PublicKey {
            var key = raw
            guard secp256k1_ec_pubkey_tweak_add(Secp256k1.context, &key, tweak) == 1 else { throw .invalidTweak }
            return PublicKey(raw: key)
        }

        /// BIP341 output key: the x-only key of P + H_TapTweak(x(P) ‖ merkleRoot)·G (BIP86: no
        /// script tree, no merkle root).
        public func taprootOutputKey(merkleRoot: [UInt8]? = nil) throws(CurveError) -> [UInt8] {
            guard merkleRoot == nil || merkleRoot!.count == 32 else { throw .invalidTweak }
            var key = raw
            var xonly = secp256k1_xonly_pubkey()
            _ = secp256k1_xonly_pubkey_from_pubkey(Secp256k1.context, &xonly, nil, &key)
            var internalKey = [UInt8](repeating: 0, count: 32)
            _ = secp256k1_xonly_pubkey_serialize(Secp256k1.context, &internalKey, &xonly)
            let tweak = Hash.tagged("TapTweak", internalKey + (merkleRoot ?? []))
            var output = secp256k1_pubkey()
            guard secp256k1_xonly_pubkey_tweak_add(Secp256k1.context, &output, &xonly, tweak) == 1 else { throw .invalidTweak }
            var outputXonly = secp256k1_xonly_pubkey()
            _ = secp256k1_xonly_pubkey_from_pubkey(Secp256k1.context, &outputXonly, nil, &output)
            var result = [UInt8](repeating: 0, count: 32)
            _ = secp256k1_xonly_pubkey_serialize(Secp256k1.context, &result, &outputXonly)
            return result
        }

        public static func == (a: PublicKey, b: PublicKey) -> Bool { a.compressed == b.compressed }

        /// The same point, told to memcheck to be public (the constant-time checks): for a point
        /// computed from a secret that is public by design, as the caller's comment argues.
        public var declassified: PublicKey {
            var key = raw
            withUnsafeBytes(of: &key) { satchel_declassify($0.baseAddress, $0.count) }
            return PublicKey(raw: key)
        }

        /// The even-y point with this x coordinate (BIP340's lift_x): a taproot output key.
        public init(xOnly x: [UInt8]) throws(CurveError) {
            guard x.count == 32 else { throw .invalidPublicKey }
            try self.init(parsing: [0x02] + x)
        }

        /// x(P), the 32 bytes a taproot output or BIP340 signature names the key by.
        public var xOnly: [UInt8] { Array(compressed[1...]) }

        /// −P.
        public var negated: PublicKey {
            var key = raw
            _ = secp256k1_ec_pubkey_negate(Secp256k1.context, &key)
            return PublicKey(raw: key)
        }

        /// scalar·P for a public scalar: libsecp256k1's tweak multiplication, which is variable
        /// time in the scalar. For a secret one, `Secp256k1.ecdhPoint` (constant time).
        public func multiplied(by scalar: [UInt8]) throws(CurveError) -> PublicKey {
            var key = raw
            guard secp256k1_ec_pubkey_tweak_mul(Secp256k1.context, &key, scalar) == 1 else { throw .invalidTweak }
            return PublicKey(raw: key)
        }

        /// The sum of the keys; nil when it is the point at infinity (or the list is empty).
        public static func sum(_ keys: [PublicKey]) -> PublicKey? {
            guard !keys.isEmpty else { return nil }
            var raws = keys.map(\.raw)
            var out = secp256k1_pubkey()
            let ok = raws.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var pointers: [UnsafePointer<secp256k1_pubkey>?] = (0..<buffer.count).map { UnsafePointer(buffer.baseAddress! + $0) }
                return secp256k1_ec_pubkey_combine(Secp256k1.context, &out, &pointers, pointers.count)
            }
            return ok == 1 ? PublicKey(raw: out) : nil
        }
    }

    /// The x coordinate of privateKey·publicKey, unhashed (Keycard's ECDH: ALG_EC_SVDP_DH_PLAIN).
    public static func ecdhX(privateKey: SecureBytes, publicKey: PublicKey) throws(CurveError) -> SecureBytes {
        try ecdh(privateKey: privateKey, publicKey: publicKey, count: 32) { output, x, _, _ in
            output!.update(from: x!, count: 32)
            return 1
        }
    }

    /// privateKey·publicKey as 33 bytes, ser_P (BIP352's shared secret), constant-time in the
    /// private key: through libsecp256k1's ECDH, whose point is normalized in constant time
    /// (serializing a secret point as a public key would normalize it in variable time).
    public static func ecdhPoint(privateKey: SecureBytes, publicKey: PublicKey) throws(CurveError) -> SecureBytes {
        try ecdh(privateKey: privateKey, publicKey: publicKey, count: 33) { output, x, y, _ in
            // 0x02 or 0x03 by y's parity, without a branch on it.
            output![0] = 0x02 | (y![31] & 1)
            (output! + 1).update(from: x!, count: 32)
            return 1
        }
    }

    /// libsecp256k1's ECDH with `encode` writing the point's `count` bytes.
    private static func ecdh(
        privateKey: SecureBytes, publicKey: PublicKey, count: Int, encode: secp256k1_ecdh_hash_function
    ) throws(CurveError) -> SecureBytes {
        guard privateKey.count == 32 else { throw .invalidPrivateKey }
        var out = [UInt8](repeating: 0, count: count)
        defer { SecureBytes.wipe(&out) }
        var key = publicKey.raw
        let ok = privateKey.withUnsafeBytes { secret in secp256k1_ecdh(context, &out, &key, secret.uint8Pointer, encode, nil) }
        // Whether the key is valid (nonzero, below n) is public: every key in use is.
        guard ConstantTime.declassified(ok == 1) else { throw .invalidPrivateKey }
        return SecureBytes(out)
    }

    /// n, the group order, big-endian.
    public static let order: [UInt8] = try! Hex.decode("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")

    public static func isValidPrivateKey(_ key: SecureBytes) -> Bool {
        key.count == 32 && key.withUnsafeBytes { secp256k1_ec_seckey_verify(context, $0.uint8Pointer) } == 1
    }

    /// k·G. Constant-time in k (libsecp256k1).
    public static func publicKey(of privateKey: SecureBytes) throws(CurveError) -> PublicKey {
        guard privateKey.count == 32 else { throw .invalidPrivateKey }
        var key = secp256k1_pubkey()
        let ok = privateKey.withUnsafeBytes { secp256k1_ec_pubkey_create(context, &key, $0.uint8Pointer) }
        // Whether the key is valid is public: every key in use is.
        guard ConstantTime.declassified(ok == 1) else { throw .invalidPrivateKey }
        return PublicKey(raw: key)
    }

    /// −k mod n.
    public static func negate(_ privateKey: SecureBytes) throws(CurveError) -> SecureBytes {
        try modified(privateKey, tweak: nil, error: .invalidPrivateKey) { key, _ in secp256k1_ec_seckey_negate(context, key) }
    }

    /// (k · tweak) mod n, refused when tweak is zero or ≥ n.
    public static func multiply(_ privateKey: SecureBytes, by tweak: [UInt8]) throws(CurveError) -> SecureBytes {
        try modified(privateKey, tweak: tweak, error: .invalidTweak) { secp256k1_ec_seckey_tweak_mul(context, $0, $1!) }
    }

    /// (k + tweak) mod n, refused when tweak ≥ n or the sum is zero (BIP32 CKDpriv).
    public static func add(tweak: [UInt8], to privateKey: SecureBytes) throws(CurveError) -> SecureBytes {
        try modified(privateKey, tweak: tweak, error: .invalidTweak) { secp256k1_ec_seckey_tweak_add(context, $0, $1!) }
    }

    /// A copy of the key changed in place by one of libsecp256k1's seckey functions; the
    /// lengths are checked before it reads either.
    private static func modified(
        _ privateKey: SecureBytes, tweak: [UInt8]?, error: CurveError,
        _ change: (UnsafeMutablePointer<UInt8>, UnsafePointer<UInt8>?) -> Int32
    ) throws(CurveError) -> SecureBytes {
        guard privateKey.count == 32 else { throw .invalidPrivateKey }
        guard tweak == nil || tweak!.count == 32 else { throw .invalidTweak }
        let out = privateKey.prefixed()
        let ok = out.withUnsafeMutableBytes { key in
            if let tweak {
                tweak.withUnsafeBufferPointer { change(key.uint8Pointer, $0.baseAddress) }
            } else {
                change(key.uint8Pointer, nil)
            }
        }
        // Public by design: whether a key, a tweak or a result is valid (nonzero, below n) holds
        // for every key in use (a failure is a 2^-128 event, and reported anyway).
        guard ConstantTime.declassified(ok == 1) else { throw error }
        return out
    }
}
