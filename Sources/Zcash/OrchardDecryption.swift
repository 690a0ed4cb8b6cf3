import CSodium
import WalletCore
import WalletCrypto

/// An Orchard-protocol action as a compact block carries it (CompactTx `actions` in the
/// Orchard pool, `ironwoodActions` in NU6.3's Ironwood pool: the same message): the nullifier of
/// the note it spends (which is rho of the note it makes), the new note's cmx, its ephemeral
/// key and the first 52 bytes of its ciphertext.
public struct CompactOrchardAction: Sendable {
    public let nullifier: [UInt8]
    public let cmx: [UInt8]
    public let ephemeralKey: [UInt8]
    public let ciphertext: [UInt8]

    public init(nullifier: [UInt8], cmx: [UInt8], ephemeralKey: [UInt8], ciphertext: [UInt8]) {
        self.nullifier = nullifier; self.cmx = cmx; self.ephemeralKey = ephemeralKey; self.ciphertext = ciphertext
    }
}

/// An Orchard note found by trial decryption, and the key that decrypts its full ciphertext.
public struct DecryptedOrchardNote: Sendable {
    public let note: OrchardNote
    public let key: [UInt8]
}

/// ZIP-307 trial decryption of compact Orchard-protocol actions with one incoming viewing key
/// (§4.19 with Orchard's KA and KDF), in either pool: the same keys, KA, KDF and esk; each
/// pool accepts only its own note version's lead byte (Orchard 0x02, Ironwood 0x03, ZIP 2005)
/// and checks cmx with that version's rcm. A note counts only when its ephemeral key and cmx
/// recompute from the plaintext (the 52 bytes carry no MAC).
public struct OrchardDecryptor: Sendable {
    public let key: OrchardIncomingViewingKey
    /// ivk split for the GLV endomorphism, once per key.
    let ivk: PallasGLVScalar

    public init(key: OrchardIncomingViewingKey) {
        self.key = key
        // ivk < p < q: a scalar as it is.
        ivk = PallasGLVScalar(PallasScalar(bytes: key.ivk.bytes)!)
        Sodium.ensureInitialized()
    }

    /// epk of an action of the compact form's sizes: nil when it is not, or its ephemeral key
    /// is no point or the identity. Decoded once for every key that tries the action.
    public static func ephemeralPoint(_ action: CompactOrchardAction) -> PallasPoint? {
        guard hasCompactSizes(action), let epk = PallasPoint(bytes: action.ephemeralKey), !epk.isIdentity else { return nil }
        return epk
    }

    /// `ephemeralPoint` of every action, the square roots batched (`PallasBatch.decodeAll`).
    public static func ephemeralPoints(_ actions: [CompactOrchardAction], path: CurveBatchPath = .inUse) -> [PallasPoint?] {
        let sized = actions.map(hasCompactSizes)
        let decoded = PallasBatch.decodeAll(zip(actions, sized).map { $1 ? $0.ephemeralKey : [] }, path: path)
        return decoded.map { epk in epk.flatMap { $0.isIdentity ? nil : $0 } }
    }

    private static func hasCompactSizes(_ action: CompactOrchardAction) -> Bool {
        action.ciphertext.count == 52 && action.cmx.count == 32 && action.nullifier.count == 32
    }

    /// KA^Orchard: repr_P([ivk]epk) (no cofactor on Pallas).
    public func sharedSecret(_ epk: PallasPoint) -> [UInt8] { epk.times(ivk).bytes }

    /// KA^Orchard for many ephemeral keys and this one ivk: the hot path of a scan, batched
    /// (`PallasBatch`: 8 epks per vector ladder where the CPU has AVX-512 IFMA, one field
    /// inversion for all).
    public func sharedSecrets(_ epks: [PallasPoint], path: CurveBatchPath = .inUse) -> [[UInt8]] {
        PallasBatch.encodedMultiples(epks, by: ivk, path: path)
    }

    /// KDF^Orchard: BLAKE2b-256("Zcash_OrchardKDF", repr(shared secret) ‖ ephemeral key).
    public static func key(sharedSecret: [UInt8], ephemeralKey: [UInt8]) -> [UInt8] {
        Blake2.b(32, personal: Array("Zcash_OrchardKDF".utf8), sharedSecret, ephemeralKey)
    }

    /// A compact note plaintext's fields after its lead byte: the diversifier, the value and rseed.
    static func noteFields(_ p: [UInt8]) -> (d: [UInt8], value: UInt64, rseed: [UInt8]) {
        (Array(p[1..<12]), p[12..<20].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, Array(p[20..<52]))
    }

    /// `version`: the pool's note version (.v2 for an Orchard action, .v3 for an Ironwood one).
    public func tryDecrypt(_ action: CompactOrchardAction, version: OrchardNoteVersion = .v2) -> DecryptedOrchardNote? {
        Self.ephemeralPoint(action).flatMap { tryDecrypt(action, ephemeralPoint: $0, version: version) }
    }

    /// The note, if this action pays this key.
    public func tryDecrypt(
        _ action: CompactOrchardAction, ephemeralPoint epk: PallasPoint, version: OrchardNoteVersion = .v2
    ) -> DecryptedOrchardNote? {
        tryDecrypt(action, sharedSecret: sharedSecret(epk), version: version)
    }

    /// The note, if this action pays this key, given KA^Orchard's result for it.
    public func tryDecrypt(
        _ action: CompactOrchardAction, sharedSecret: [UInt8], version: OrchardNoteVersion = .v2
    ) -> DecryptedOrchardNote? {
        let k = Self.key(sharedSecret: sharedSecret, ephemeralKey: action.ephemeralKey)
        let p = SaplingDecryptor.plaintext52(key: k, ciphertext: action.ciphertext)
        guard p[0] == version.leadByte, let rho = PallasBase(bytes: action.nullifier) else { return nil }
        let (d, value, rseed) = Self.noteFields(p)
        let gd = OrchardAddress.diversifyHash(d)
        // The epk check first: a lead byte of 0x02 by chance (1 in 256 of the actions tried)
        // then costs one scalar multiplication, not also the one pk_d needs.
        let esk = OrchardNote.esk(rseed: rseed, rho: rho)
        guard !esk.isZero, gd.times(esk).bytes == action.ephemeralKey else { return nil }
        let address = OrchardAddress(diversifier: d, transmissionKey: gd.times(ivk).bytes)
        let note = OrchardNote(address: address, value: value, rho: rho, rseed: rseed, version: version)
        guard let cmx = note.cmx, cmx.bytes == action.cmx else { return nil }
        return DecryptedOrchardNote(note: note, key: k)
    }
}
