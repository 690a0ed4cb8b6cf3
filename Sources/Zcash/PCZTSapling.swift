import WalletCore
import WalletCrypto
import WalletKeys

/// What a signer recomputes of a PCZT's Sapling spends and outputs (as `PCZTChecks` does for
/// Orchard): value commitments, and for the account's keys the randomized key, the nullifier,
/// and each output's note recovered with its viewing keys.
public enum SaplingValueCommitment {
    /// ValueCommit^Sapling_rcv(v) = [v]V + [rcv]R (§5.4.8.3), encoded: a spend and an output
    /// each commit to their own value.
    public static func commit(value: UInt64, rcv: Fr) -> [UInt8] {
        (SaplingGenerators.valueCommitValue.times(Fr(value)) + SaplingGenerators.valueCommitRandomness.times(rcv)).bytes
    }

    static func holds(_ cv: [UInt8], value: UInt64?, rcv: [UInt8]?) -> Bool? {
        guard let value, let bytes = rcv, let rcv = Fr(bytes: bytes) else { return nil }
        return commit(value: value, rcv: rcv) == cv
    }
}

extension PCZTSaplingSpend {
    /// Whether cv commits to the spend's value under its rcv; nil when either is left out.
    public var valueCommitmentHolds: Bool? { SaplingValueCommitment.holds(cv, value: value, rcv: rcv) }

    /// The note spent, when the PCZT carries it: rcm from rseed (ZIP 212) or given.
    public var note: SaplingNote? {
        guard let recipient, recipient.count == 43, let value else { return nil }
        let rcm: Fr
        if let rseed, rseed.count == 32 {
            rcm = Fr(wide: Blake2.prfExpand(rseed, [0x04]))
        } else if let bytes = self.rcm, let given = Fr(bytes: bytes) {
            rcm = given
        } else {
            return nil
        }
        return SaplingNote(diversifier: Array(recipient[0..<11]), transmissionKey: Array(recipient[11..<43]), value: value, rcm: rcm)
    }

    /// Whether rk is ak + [alpha]G for the key's ak.
    public func randomizedKeyHolds(_ fvk: SaplingFullViewingKey) -> Bool {
        guard let bytes = alpha, let alpha = Fr(bytes: bytes) else { return false }
        return (fvk.ak + SaplingGenerators.spendAuth.times(alpha)).bytes == rk
    }

    /// Whether the nullifier is the note's at its witness's position under the key's nk.
    public func nullifierHolds(_ fvk: SaplingFullViewingKey) -> Bool {
        guard let note, let position = witness?.position else { return false }
        return note.nullifier(nk: fvk.nk, position: UInt64(position)) == nullifier
    }
}

/// A Sapling output the account's keys recover: the note (its commitment checked), the memo,
/// and which key found it.
public struct RecoveredSaplingOutput: Sendable {
    public let note: SaplingNote
    public let memo: [UInt8]?
    public let key: RecoveredOrchardOutput.Key
}

extension PCZTSaplingOutput {
    /// Whether cv commits to the output's value under its rcv; nil when either is left out.
    public var valueCommitmentHolds: Bool? { SaplingValueCommitment.holds(cv, value: value, rcv: rcv) }

    /// The output's note, with `external`'s or `change`'s (the internal key's) incoming keys (paid to us) or
    /// outgoing keys (sent by us); nil when none opens it.
    public func recover(external: SaplingFullViewingKey, change: SaplingFullViewingKey) -> RecoveredSaplingOutput? {
        guard encCiphertext.count == 580, cmu.count == 32, ephemeralKey.count == 32 else { return nil }
        let compact = CompactSaplingOutput(cmu: cmu, ephemeralKey: ephemeralKey, ciphertext: Array(encCiphertext[0..<52]))
        for (change, fvk) in [(false, external), (true, change)] {
            let decryptor = SaplingDecryptor(ivk: fvk.incomingViewingKey.ivk, consensus: .main)
            // Past every activation height: only ZIP 212's lead byte 2 opens, as for any new transaction.
            if let found = decryptor.tryDecrypt(compact, height: .max) {
                return RecoveredSaplingOutput(note: found.note, memo: memo(found.key), key: .incoming(change: change))
            }
        }
        for (change, fvk) in [(false, external), (true, change)] {
            if let (note, key) = recoverWithOutgoingKey(fvk.ovk, compact) {
                return RecoveredSaplingOutput(note: note, memo: memo(key), key: .outgoing(change: change))
            }
        }
        return nil
    }

    func memo(_ key: [UInt8]) -> [UInt8]? {
        SaplingMemo.plaintext(encCiphertext: encCiphertext, key: key).map { Array($0[52..<564]) }
    }

    /// §4.20.3: ock = PRF^ock(ovk, cv, cmu, epk) opens out_ciphertext to pk_d ‖ esk; the
    /// note's esk (ZIP 212), epk and cmu must be the output's.
    func recoverWithOutgoingKey(_ ovk: [UInt8], _ output: CompactSaplingOutput) -> (SaplingNote, [UInt8])? {
        guard outCiphertext.count == 80 else { return nil }
        let ock = Blake2.b(32, personal: Array("Zcash_Derive_ock".utf8), ovk, cv, cmu, ephemeralKey)
        guard let opened = SaplingMemo.open(outCiphertext, key: ock), let pkd = JubjubPoint(bytes: Array(opened[0..<32])),
            let esk = Fr(bytes: opened[32..<64])
        else { return nil }
        let key = SaplingDecryptor.key(sharedSecret: pkd.timesCofactor().times(esk).bytes, ephemeralKey: ephemeralKey)
        let p = SaplingDecryptor.plaintext52(key: key, ciphertext: output.ciphertext)
        guard p[0] == 0x02, let gd = SaplingDiversifier.base(Array(p[1..<12])) else { return nil }
        let value = p[12..<20].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let rseed = Array(p[20..<52])
        guard Fr(wide: Blake2.prfExpand(rseed, [0x05])) == esk, gd.times(esk).bytes == ephemeralKey else { return nil }
        let note = SaplingNote(
            diversifier: Array(p[1..<12]), transmissionKey: Array(opened[0..<32]), value: value,
            rcm: Fr(wide: Blake2.prfExpand(rseed, [0x04])))
        guard note.commitmentU == cmu else { return nil }
        return (note, key)
    }
}

extension PCZTKeys {
    /// The Sapling keys of `account` (external, and internal for change), made once.
    mutating func sapling(account: UInt32) -> (external: SaplingFullViewingKey, internal: SaplingFullViewingKey) {
        if let keys = saplingAccounts[account] { return keys }
        let key = SaplingExtendedSpendingKey.account(seed: seed, network: network, account: account)
        let keys = (key.fullViewingKey, key.internal.fullViewingKey)
        saplingAccounts[account] = keys
        return keys
    }

    /// A Sapling spend's path and viewing key when its derivation names our seed.
    mutating func saplingSpendKey(_ derivation: PCZTDerivation?, _ name: String) throws(PCZTError) -> ([UInt32], SaplingFullViewingKey)? {
        guard let account = try zip32Account(derivation, name) else { return nil }
        return (derivation!.path, sapling(account: account).external)
    }

    /// ask + alpha for a Sapling spend of ours at `path`.
    func saplingSigningKey(_ path: [UInt32], alpha: Fr) -> Fr {
        SaplingExtendedSpendingKey.account(seed: seed, network: network, account: path[2] - Self.hardened).ask + alpha
    }

    /// A Sapling output as the accounts' keys recover it (checked against the PCZT's value,
    /// recipient and user_address), none for a zero-value output nobody decrypts.
    mutating func saplingOutput(_ output: PCZTSaplingOutput, name: String, index: Int) throws(PCZTError) -> [PCZTReport.Output] {
        for account in accounts.sorted() {
            let keys = sapling(account: account)
            guard let found = output.recover(external: keys.external, change: keys.internal) else { continue }
            let note = found.note, address = SaplingPaymentAddress(diversifier: note.diversifier, transmissionKey: note.transmissionKey)
            if let stated = output.value, stated != note.value {
                throw .refused("\(name): the output says \(stated) zatoshi, its note \(note.value)")
            }
            if let recipient = output.recipient, recipient != address.bytes {
                throw .refused("\(name): the output's recipient is not its note's")
            }
            var shown = address.encoded(network)
            if let claimed = output.userAddress {
                let inUnified =
                    (try? UnifiedEncoding.decode(claimed, kind: .address, network: network))?
                    .first { $0.typecode == UnifiedEncoding.Typecode.sapling }?.value == address.bytes
                guard claimed == shown || inUnified else { throw .refused("\(name): its recipient is not in its user_address \(claimed)") }
                shown = claimed
            }
            return PCZTKeys.output(
                pool: "sapling", index: index, value: note.value, address: shown, key: found.key, memo: found.memo)
        }
        guard output.value == 0, output.valueCommitmentHolds == true else {
            throw .refused(
                "\(name): an output of \(output.value.map { "\($0) zatoshi" } ?? "unknown value") that none of our keys decrypts (where it goes cannot be shown)"
            )
        }
        return []
    }
}

extension PCZT {
    /// The Sapling bundle's part of a review: spends checked and listed, outputs recovered,
    /// the value sum checked; returns the bundle's value sum (what it adds to the fee).
    func reviewSapling(
        _ keys: inout PCZTKeys, spends: inout [PCZTReport.Spend], outputs: inout [PCZTReport.Output], toSign: inout Int
    ) throws(PCZTError) -> Int128 {
        guard let sapling else { return 0 }
        let zeroValueIsReal = isV6 || global.consensusBranchID == Self.nu63BranchID
        var net: Int128 = 0, allValuesKnown = true
        for (index, spend) in sapling.spends.enumerated() {
            let name = "sapling.spends[\(index)]"
            if spend.valueCommitmentHolds == false {
                throw .refused("\(name): cv is not the commitment of its value (changed after it was made?)")
            }
            if let (path, fvk) = try keys.saplingSpendKey(spend.derivation, name) {
                guard spend.randomizedKeyHolds(fvk) else {
                    throw .refused("\(name) names our seed at \(DerivationPath(path)), but its rk is not our key's")
                }
                guard spend.nullifierHolds(fvk) else {
                    throw .refused("\(name) names our seed, but its nullifier is not of the note it describes under our key")
                }
                let value = spend.value!  // the nullifier check read it
                if value != 0 {
                    spends.append(.init(pool: "sapling", index: index, value: value, path: path, txid: nil, vout: nil, address: nil))
                }
                if spend.spendAuthSig == nil && (value != 0 || zeroValueIsReal) { toSign += 1 }
            } else if spend.value != 0 {
                spends.append(.init(pool: "sapling", index: index, value: spend.value, path: nil, txid: nil, vout: nil, address: nil))
            }
            if let value = spend.value { net += Int128(value) } else { allValuesKnown = false }
        }
        for (index, output) in sapling.outputs.enumerated() {
            let name = "sapling.outputs[\(index)]"
            if output.valueCommitmentHolds == false {
                throw .refused("\(name): cv is not the commitment of its value (changed after it was made?)")
            }
            outputs += try keys.saplingOutput(output, name: name, index: index)
            if let value = output.value { net -= Int128(value) } else { allValuesKnown = false }
        }
        if allValuesKnown, net != sapling.valueSum {
            throw .refused("sapling value_sum is \(sapling.valueSum), but its spends' and outputs' values give \(net)")
        }
        return sapling.valueSum
    }

    /// Signs every Sapling spend of ours with RedJubjub over `sighash` (rsk = ask + alpha,
    /// checked to give rk). Returns how many it signed.
    mutating func signSapling(_ keys: inout PCZTKeys, sighash: [UInt8]) throws(PCZTError) -> Int {
        guard var bundle = sapling else { return 0 }
        let zeroValueIsReal = isV6 || global.consensusBranchID == Self.nu63BranchID
        var signed = 0
        for index in bundle.spends.indices {
            let spend = bundle.spends[index], name = "sapling.spends[\(index)]"
            guard spend.spendAuthSig == nil, let (path, _) = try keys.saplingSpendKey(spend.derivation, name),
                let value = spend.value, value != 0 || zeroValueIsReal
            else { continue }
            guard let bytes = spend.alpha, let alpha = Fr(secretBytes: bytes) else { throw .refused("\(name) has no alpha to sign with") }
            let rsk = keys.saplingSigningKey(path, alpha: alpha)
            // rk is in the PCZT: [rsk]G is public by design.
            guard ConstantTime.declassified(RedJubjub.verificationKey(rsk)) == spend.rk else {
                throw .refused("\(name) names our seed, but its rk is not our key's")
            }
            bundle.spends[index].spendAuthSig = RedJubjub.sign(sighash, key: rsk)
            signed += 1
        }
        sapling = bundle
        return signed
    }
}
