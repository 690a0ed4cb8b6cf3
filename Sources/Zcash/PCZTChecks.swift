/// What a signer recomputes of an Orchard action before it believes the PCZT (the crate's
/// and Keystone's `check`): the value commitment from the values and rcv, and for a spend of
/// ours the randomized key and the nullifier from our own viewing key.
extension OrchardBases {
    /// V^Orchard and R^Orchard, the value commitment's bases (§5.4.8.3).
    static let valueCommitValue = PallasGroupHash.hash(domain: "z.cash:Orchard-cv", message: Array("v".utf8))
    static let valueCommitRandomness = PallasGroupHash.hash(domain: "z.cash:Orchard-cv", message: Array("r".utf8))
}

public enum OrchardValueCommitment {
    /// ValueCommit^Orchard_rcv(v) = [v mod q]V + [rcv]R, v the net value (what is spent less
    /// what is created, negative for an output alone), encoded.
    public static func commit(spent: UInt64, created: UInt64, rcv: PallasScalar) -> [UInt8] {
        let v = PallasScalar(spent) - PallasScalar(created)
        return (OrchardBases.valueCommitValue.times(v) + OrchardBases.valueCommitRandomness.times(rcv)).bytes
    }
}

extension PCZTAction {
    /// Whether cv_net is the commitment of the action's values under its rcv; nil when the PCZT
    /// leaves out a value, rcv or cv_net (nothing to check).
    public var valueCommitmentHolds: Bool? {
        guard let cvNet, let spent = spend.value, let created = output.value, let bytes = rcv, let rcv = PallasScalar(bytes: bytes) else {
            return nil
        }
        return OrchardValueCommitment.commit(spent: spent, created: created, rcv: rcv) == cvNet
    }
}

extension PCZTActionSpend {
    /// The note this spend consumes, when the PCZT carries it (recipient, value, rho, rseed).
    public func note(version: OrchardNoteVersion = .v2) -> OrchardNote? {
        guard let recipient, recipient.count == 43, let value, let rhoBytes = rho, let rho = PallasBase(bytes: rhoBytes), let rseed
        else { return nil }
        let address = OrchardAddress(diversifier: Array(recipient[0..<11]), transmissionKey: Array(recipient[11..<43]))
        return OrchardNote(address: address, value: value, rho: rho, rseed: rseed, version: version)
    }

    /// Whether rk is ak + [alpha]G for `fvk`'s ak: the spend is authorized by that key.
    public func randomizedKeyHolds(_ fvk: OrchardFullViewingKey) -> Bool {
        guard let rk, let alphaBytes = alpha, let alpha = PallasScalar(bytes: alphaBytes),
            let ak = PallasPoint(bytes: fvk.ak.bytes)  // ak's ỹ is 0 by construction
        else { return false }
        return (ak + OrchardBases.spendAuth.times(alpha)).bytes == rk
    }

    /// Whether the nullifier is the note's under `fvk`'s nk (so the note spent is the one
    /// described, and ours).
    public func nullifierHolds(_ fvk: OrchardFullViewingKey, version: OrchardNoteVersion = .v2) -> Bool {
        guard let nullifier, let note = note(version: version), let derived = note.nullifier(nk: fvk.nk) else { return false }
        return derived.bytes == nullifier
    }
}
