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

/// An Orchard-protocol output the account's keys recover: to whom and how much (from the
/// note itself, its commitment checked), the memo, and which key found it.
public struct RecoveredOrchardOutput: Sendable {
    public enum Key: Sendable, Equatable {
        /// An incoming viewing key: the output pays the account (external scope: a payment to
        /// it; internal: its change).
        case incoming(change: Bool)
        /// An outgoing viewing key: the account sent it, to someone.
        case outgoing(change: Bool)
    }

    public let note: OrchardNote
    /// 512 bytes; nil when the full ciphertext does not open (a memo-less PCZT).
    public let memo: [UInt8]?
    public let key: Key
}

extension PCZTAction {
    /// The output's note, recovered with `fvk`'s incoming keys (paid to us) or outgoing keys
    /// (sent by us): decrypted, its ephemeral key and commitment recomputed and equal to the
    /// action's. nil when no key of `fvk` opens it.
    public func recoverOutput(_ fvk: OrchardFullViewingKey, version: OrchardNoteVersion = .v2) -> RecoveredOrchardOutput? {
        guard let nullifier = spend.nullifier, let cmx = output.cmx, let cvNet, case .encrypted(let ciphertext) = output.encCiphertext,
            ciphertext.count == 580
        else { return nil }
        let compact = CompactOrchardAction(
            nullifier: nullifier, cmx: cmx, ephemeralKey: output.ephemeralKey, ciphertext: Array(ciphertext[0..<52]))
        for change in [false, true] {
            if let found = OrchardDecryptor(key: fvk.incomingViewingKey(change: change)).tryDecrypt(compact, version: version) {
                return RecoveredOrchardOutput(
                    note: found.note, memo: Self.memo(ciphertext, key: found.key), key: .incoming(change: change))
            }
        }
        for change in [false, true] {
            if let (note, key) = recoverWithOutgoingKey(fvk.outgoingViewingKey(change: change), compact, cvNet: cvNet, version: version) {
                return RecoveredOrchardOutput(note: note, memo: Self.memo(ciphertext, key: key), key: .outgoing(change: change))
            }
        }
        return nil
    }

    static func memo(_ ciphertext: [UInt8], key: [UInt8]) -> [UInt8]? {
        SaplingMemo.plaintext(encCiphertext: ciphertext, key: key).map { Array($0[52..<564]) }
    }

    /// §4.20.3: ock = PRF^ock(ovk, cv, cmx, epk) opens out_ciphertext to pk_d ‖ esk, which
    /// give the note key; the note's esk, epk and cmx must be the action's.
    func recoverWithOutgoingKey(
        _ ovk: [UInt8], _ action: CompactOrchardAction, cvNet: [UInt8], version: OrchardNoteVersion
    ) -> (OrchardNote, [UInt8])? {
        guard output.outCiphertext.count == 80, let rho = PallasBase(bytes: action.nullifier) else { return nil }
        let ock = Blake2.b(32, personal: Array("Zcash_Orchardock".utf8), ovk, cvNet, action.cmx, action.ephemeralKey)
        guard let opened = SaplingMemo.open(output.outCiphertext, key: ock), let pkd = PallasPoint(bytes: Array(opened[0..<32])),
            let esk = PallasScalar(bytes: opened[32..<64])
        else { return nil }
        let key = OrchardDecryptor.key(sharedSecret: pkd.times(esk).bytes, ephemeralKey: action.ephemeralKey)
        let p = SaplingDecryptor.plaintext52(key: key, ciphertext: action.ciphertext)
        guard p[0] == version.leadByte else { return nil }
        let (d, value, rseed) = OrchardDecryptor.noteFields(p)
        guard OrchardNote.esk(rseed: rseed, rho: rho) == esk, OrchardAddress.diversifyHash(d).times(esk).bytes == action.ephemeralKey
        else { return nil }
        let note = OrchardNote(
            address: OrchardAddress(diversifier: d, transmissionKey: pkd.bytes), value: value, rho: rho, rseed: rseed, version: version)
        guard note.cmx?.bytes == action.cmx else { return nil }
        return (note, key)
    }
}
