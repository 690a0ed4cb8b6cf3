/// Sapling note commitments and nullifiers (Zcash protocol §5.4.1.7, §5.4.8.2, §5.4.2).
public enum PedersenHash {
    /// Generators I_i of "Zcash_PH", i from 1; a note commitment needs four (582 bits).
    static let generators: [JubjubPoint] = (1...6).map(SaplingGenerators.pedersen)

    /// PedersenHashToPoint("Zcash_PH", bits): the bits are padded to a multiple of 3; each
    /// segment of up to 63 three-bit chunks m_j gives the scalar Σ enc(m_j)·2^(4(j−1)), with
    /// enc(s0, s1, s2) = (1 − 2·s2)·(1 + s0 + 2·s1), times its own generator.
    public static func toPoint(bits: [UInt8]) -> JubjubPoint {
        var padded = bits
        while padded.count % 3 != 0 { padded.append(0) }
        let chunksPerSegment = 63
        let chunkCount = padded.count / 3
        precondition(chunkCount <= chunksPerSegment * generators.count, "longer than the generators prepared")
        var result = JubjubPoint.identity
        let sixteen = Fr(16)
        var segment = 0
        while segment * chunksPerSegment < chunkCount {
            var scalar = Fr.zero
            var weight = Fr.one
            for j in (segment * chunksPerSegment)..<min(chunkCount, (segment + 1) * chunksPerSegment) {
                // By arithmetic and a mask: the bits are a note's (its value, its address).
                let s0 = UInt64(padded[3 * j] & 1), s1 = UInt64(padded[3 * j + 1] & 1), s2 = UInt64(padded[3 * j + 2] & 1)
                let magnitude = weight * Fr(1 &+ s0 &+ 2 &* s1)
                scalar = scalar + Fr.select(mask: 0 &- s2, magnitude.negated, magnitude)
                weight = weight * sixteen
            }
            result = result + generators[segment].times(scalar)
            segment += 1
        }
        return result
    }

    /// The bits of bytes, least significant bit of each byte first (LEOS2BSP); diversifiers
    /// become FF1 inputs the same way.
    static func bits(_ bytes: [UInt8]) -> [UInt8] {
        bytes.flatMap { byte in (0..<8).map { UInt8(byte >> UInt8($0) & 1) } }
    }
}

/// A Sapling note: what a payment to an address carries.
public struct SaplingNote: Sendable {
    public let diversifier: [UInt8]
    /// pk_d, as its 32-byte encoding.
    public let transmissionKey: [UInt8]
    public let value: UInt64
    public let rcm: Fr

    public init(diversifier: [UInt8], transmissionKey: [UInt8], value: UInt64, rcm: Fr) {
        self.diversifier = diversifier; self.transmissionKey = transmissionKey; self.value = value; self.rcm = rcm
    }

    /// cm = NoteCommit_rcm(repr g_d, repr pk_d, v): the Pedersen hash of 1^6 ‖ v (64 bits,
    /// little-endian) ‖ g_d ‖ pk_d, plus [rcm] times the randomness base; nil for an invalid
    /// diversifier.
    public var commitment: JubjubPoint? {
        guard let gd = SaplingDiversifier.base(diversifier) else { return nil }
        let valueBits = (0..<64).map { UInt8(value >> UInt64($0) & 1) }
        let bits = [UInt8](repeating: 1, count: 6) + valueBits + PedersenHash.bits(gd.bytes) + PedersenHash.bits(transmissionKey)
        return PedersenHash.toPoint(bits: bits) + SaplingGenerators.noteCommitRandomness.times(rcm)
    }

    /// cmu = Extract_J(cm): the u-coordinate, 32 bytes little-endian.
    public var commitmentU: [UInt8]? { commitment.map(\.uBytes) }

    /// nf = BLAKE2s-256("Zcash_nf", repr nk ‖ repr ρ), ρ = cm + [position]·J. Needs nk, so a
    /// full viewing key: an incoming viewing key alone cannot see spends.
    public func nullifier(nk: JubjubPoint, position: UInt64) -> [UInt8]? {
        guard let cm = commitment else { return nil }
        var pos = [UInt8](repeating: 0, count: 32)
        for i in 0..<8 { pos[i] = UInt8(truncatingIfNeeded: position >> UInt64(8 * i)) }
        let rho = cm + SaplingGenerators.nullifierPosition.times(littleEndian: pos)
        return Blake2.s256(personal: Array("Zcash_nf".utf8), nk.bytes, rho.bytes)
    }
}

extension JubjubPoint {
    /// The affine u-coordinate, 32 bytes little-endian (Extract_J).
    public var uBytes: [UInt8] { (x * z.inverse).bytes }
}
