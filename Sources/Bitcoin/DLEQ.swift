import WalletCore
import WalletCrypto

/// BIP374's discrete log equality proofs over secp256k1 (revision 0.2.0: the message is in the
/// nonce): for A = a·G and C = a·B, 64 bytes e ‖ s showing that one a made both, without a.
/// BIP375 carries one beside each ECDH share of a PSBT that pays silent payment addresses, so
/// that whoever computes the outputs can check every share without the input keys. Built on
/// libsecp256k1's constant-time multiplications and scalar arithmetic; the one step it has no
/// call for, the nonce reduced mod n, is done here without a branch on the secret.
public enum DLEQ {
    public enum Failure: Error, Equatable, Sendable {
        /// a is 0 or not below the group order n.
        case invalidSecret
        /// The message is not 32 bytes, or the auxiliary data not 32.
        case invalidInput(String)
        /// The nonce reduced to 0, or the proof made does not verify (a 2^-128 event, or a fault).
        case failed
    }

    /// secp256k1's generator G.
    public static let generator = try! Secp256k1.PublicKey(
        parsing: try! Hex.decode("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"))

    /// GenerateProof(a, B, r, G, m): the proof that a·G and a·B share a. `auxiliary` should be
    /// 32 fresh random bytes for each proof, as BIP340's signing recommends. Constant-time in a.
    public static func proof(
        secret a: SecureBytes, point B: Secp256k1.PublicKey, auxiliary r: [UInt8], generator G: Secp256k1.PublicKey = generator,
        message m: [UInt8]? = nil
    ) throws(Failure) -> [UInt8] {
        guard r.count == 32 else { throw .invalidInput("the auxiliary data is \(r.count) bytes, not 32") }
        guard m == nil || m!.count == 32 else { throw .invalidInput("the message is \(m!.count) bytes, not 32") }
        // Whether a is a key at all is public: a caller's key in use is one. A is its public
        // key and C the share the proof is published beside: both public by design.
        guard a.count == 32, ConstantTime.declassified(Secp256k1.isValidPrivateKey(a)), let A = try? publicMultiple(a, G),
            let C = try? publicMultiple(a, B)
        else { throw .invalidSecret }
        let message = m ?? []
        // t = bytes(a) xor hash(r), then what the nonce hashes after it, in one buffer: no
        // reallocation leaves a copy of t behind.
        var t = [UInt8]()
        t.reserveCapacity(32 + 33 + 33 + message.count)
        t += Hash.tagged("BIP0374/aux", r)
        a.withUnsafeBytes { for i in 0..<32 { t[i] ^= $0[i] } }
        t += A.compressed + C.compressed + message
        var rand = Hash.tagged("BIP0374/nonce", t)
        SecureBytes.wipe(&t)
        let k = reducedModN(rand)
        SecureBytes.wipe(&rand)
        // k = 0 has probability 2^-256: public by design, as libsecp256k1's own nonce checks are.
        // R1 and R2 are public: anyone makes them from the proof (s·G − e·A, s·B − e·C).
        guard ConstantTime.declassified(Secp256k1.isValidPrivateKey(k)), let R1 = try? publicMultiple(k, G),
            let R2 = try? publicMultiple(k, B)
        else { throw .failed }
        let e = challenge(A, B, C, G, R1, R2, message)
        // s = k + e·a mod n (e below n but for 2^-128, then reduced: e is public).
        guard let ea = try? Secp256k1.multiply(a, by: reducedModN(e).bytes) else { throw .failed }
        var kBytes = k.bytes
        defer { SecureBytes.wipe(&kBytes) }
        guard let s = try? Secp256k1.add(tweak: kBytes, to: ea) else { throw .failed }
        let proof = e + ConstantTime.declassified(s.bytes)  // the proof is published
        guard verify(proof, A: A, B: B, C: C, generator: G, message: m) else { throw .failed }
        return proof
    }

    /// VerifyProof(A, B, C, proof, G, m). None of the points can be the point at infinity: a
    /// `Secp256k1.PublicKey` never is.
    public static func verify(
        _ proof: [UInt8], A: Secp256k1.PublicKey, B: Secp256k1.PublicKey, C: Secp256k1.PublicKey,
        generator G: Secp256k1.PublicKey = generator, message m: [UInt8]? = nil
    ) -> Bool {
        guard proof.count == 64, m == nil || m!.count == 32 else { return false }
        let e = Array(proof[0..<32]), s = Array(proof[32..<64])
        guard isBelowN(s) else { return false }
        guard let R1 = difference(s, G, e, A), let R2 = difference(s, B, e, C) else { return false }
        return challenge(A, B, C, G, R1, R2, m ?? []) == e
    }

    /// secret·P for a result that is public by design: libsecp256k1's ECDH, constant-time in
    /// the secret, gives ser_P (its pubkey tweak multiplication is variable time in the scalar),
    /// then declassified and parsed.
    private static func publicMultiple(_ secret: SecureBytes, _ P: Secp256k1.PublicKey) throws(CurveError) -> Secp256k1.PublicKey {
        try Secp256k1.PublicKey(parsing: ConstantTime.declassified(try Secp256k1.ecdhPoint(privateKey: secret, publicKey: P).bytes))
    }

    /// x·P − y·Q for public scalars below 2^256 (y reduced mod n): nil at infinity.
    private static func difference(_ x: [UInt8], _ P: Secp256k1.PublicKey, _ y: [UInt8], _ Q: Secp256k1.PublicKey) -> Secp256k1.PublicKey? {
        var terms = [Secp256k1.PublicKey]()
        // libsecp256k1 multiplies by nonzero scalars below n only; 0 contributes nothing.
        if x.contains(where: { $0 != 0 }) {
            guard let xP = try? P.multiplied(by: x) else { return nil }
            terms.append(xP)
        }
        let yn = reducedModN(y).bytes
        if yn.contains(where: { $0 != 0 }) {
            guard let yQ = try? Q.multiplied(by: yn) else { return nil }
            terms.append(yQ.negated)
        }
        return Secp256k1.PublicKey.sum(terms)
    }

    private static func challenge(
        _ A: Secp256k1.PublicKey, _ B: Secp256k1.PublicKey, _ C: Secp256k1.PublicKey, _ G: Secp256k1.PublicKey,
        _ R1: Secp256k1.PublicKey, _ R2: Secp256k1.PublicKey, _ message: [UInt8]
    ) -> [UInt8] {
        Hash.tagged(
            "BIP0374/challenge", A.compressed + B.compressed + C.compressed + G.compressed + R1.compressed + R2.compressed + message)
    }

    static func isBelowN(_ x: [UInt8]) -> Bool {
        for i in 0..<32 where x[i] != Secp256k1.order[i] { return x[i] < Secp256k1.order[i] }
        return false
    }

    /// x mod n for x below 2^256 < 2n: x − n where that does not borrow, else x, chosen by a
    /// mask: no branch or address depends on x (a secret nonce).
    static func reducedModN(_ x: [UInt8]) -> SecureBytes {
        precondition(x.count == 32)
        var difference = [UInt8](repeating: 0, count: 32)
        var borrow: UInt16 = 0
        for i in (0..<32).reversed() {
            let d = UInt16(x[i]) &- UInt16(Secp256k1.order[i]) &- borrow
            difference[i] = UInt8(truncatingIfNeeded: d)
            borrow = (d >> 8) & 1
        }
        // borrow 1: x < n, keep x.
        let keep = UInt8(truncatingIfNeeded: 0 &- borrow)
        let out = SecureBytes(count: 32)
        out.withUnsafeMutableBytes { o in
            for i in 0..<32 { o[i] = (x[i] & keep) | (difference[i] & ~keep) }
        }
        SecureBytes.wipe(&difference)
        return out
    }
}
