import WalletCore
import WalletCrypto
import WalletKeys

/// What a Signer adds to a PCZT (the crate's `roles/signer`): signatures, and the
/// `tx_modifiable` bits they fix.
extension PCZT {
    /// Signs transparent input `index` with its private key: ECDSA (RFC 6979, low S, DER) over
    /// the input's ZIP 244 sighash for its `sighash_type`, with that byte, under the compressed
    /// public key in `partial_signatures`. The key must be the one the input's P2PKH script pays.
    public mutating func signTransparent(input index: Int, privateKey: SecureBytes) throws(PCZTError) {
        guard let inputs = transparent?.inputs, inputs.indices.contains(index) else {
            throw .unsupported("there is no transparent input \(index)")
        }
        let publicKey: [UInt8]
        do { publicKey = try Secp256k1.publicKey(of: privateKey).compressed } catch { throw .unsupported("not a secp256k1 private key") }
        guard inputs[index].scriptPubKey == [0x76, 0xA9, 0x14] + Hash.hash160(publicKey) + [0x88, 0xAC] else {
            throw .unsupported("transparent input \(index) is not paid to this key's P2PKH script")
        }
        let sighash = try transparentSighash(input: index)
        let hashType = inputs[index].sighashType
        let der: [UInt8]
        do { der = try Secp256k1.signECDSA(hash: sighash, privateKey: privateKey).der } catch { throw .unsupported("ECDSA signing failed") }
        var entries = transparent!.inputs[index].partialSignatures.entries.filter { $0.key != publicKey }
        entries.append(.init(key: publicKey, value: der + [hashType]))
        transparent!.inputs[index].partialSignatures.entries = entries.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        fixModifiable(transparentHashType: hashType)
    }

    /// ZIP 374's updates: a signature without ANYONECANPAY fixes the inputs, one that is not
    /// SIGHASH_NONE the outputs, SIGHASH_SINGLE marks its pairing; every signature fixes the
    /// shielded parts (nil: a shielded signature, which commits to all).
    mutating func fixModifiable(transparentHashType hashType: UInt8?) {
        let inputsModifiable: UInt8 = 0b0000_0001, outputsModifiable: UInt8 = 0b0000_0010
        let hasSighashSingle: UInt8 = 0b0000_0100, shieldedModifiable: UInt8 = 0b1000_0000
        guard let hashType else {
            global.txModifiable &= ~(inputsModifiable | outputsModifiable | shieldedModifiable)
            return
        }
        let base = hashType & ~SighashType.anyoneCanPay
        if hashType & SighashType.anyoneCanPay == 0 { global.txModifiable &= ~inputsModifiable }
        if base != SighashType.none { global.txModifiable &= ~outputsModifiable }
        if base == SighashType.single { global.txModifiable |= hasSighashSingle }
        global.txModifiable &= ~shieldedModifiable
    }
}

extension PCZT {
    /// NU6.3's consensus branch: from it on, a zero-value spend of ours is a real spend and is
    /// signed (ZIP 374); before it, such a spend is a dummy's.
    public static let nu63BranchID: UInt32 = 0x37A5_165B

    /// Signs every Orchard and Ironwood spend of `seed`'s (its ZIP 32 fingerprint and a path
    /// m/32'/coinType'/account' in the spend's derivation) over the shielded sighash: rsk = ask +
    /// alpha, checked to give the spend's rk first. Returns how many it signed.
    ///
    /// Refused: a PCZT that still carries a dummy_sk or dummy_ask (ZIP 374), and a spend whose
    /// derivation names this seed but whose rk our key does not give.
    public mutating func signShielded(seed: [UInt8], coinType: UInt32 = 133) throws(PCZTError) -> Int {
        // The fingerprint is what the PCZT names the seed by: public by design.
        guard let fingerprint = zip32SeedFingerprint(seed).map(ConstantTime.declassified) else {
            throw .unsupported("a seed of \(seed.count) bytes (ZIP 32: 32 to 252)")
        }
        try refuseDummies()
        let sighash = try shieldedSighash()
        let zeroValueIsReal = isV6 || global.consensusBranchID == Self.nu63BranchID
        var signed = 0
        for (name, path) in [("orchard", \PCZT.orchard), ("ironwood", \PCZT.ironwood)] {
            guard var bundle = self[keyPath: path] else { continue }
            for index in bundle.actions.indices {
                let spend = bundle.actions[index].spend
                guard spend.spendAuthSig == nil, let derivation = spend.derivation, derivation.seedFingerprint == fingerprint else {
                    continue
                }
                guard spend.value != 0 || zeroValueIsReal, spend.value != nil else { continue }
                let hardened: UInt32 = 1 << 31
                guard derivation.path.count == 3, derivation.path[0] == 32 | hardened, derivation.path[1] == coinType | hardened,
                    derivation.path[2] >= hardened
                else {
                    throw .refused(
                        "\(name).actions[\(index)] names our seed at \(DerivationPath(derivation.path)), not at ZIP 32's m/32'/\(coinType)'/account'"
                    )
                }
                let account = OrchardExtendedSpendingKey.account(seed: seed, coinType: coinType, account: derivation.path[2] & ~hardened)
                var sk = account.spendingKey.withUnsafeBytes { Array($0) }
                defer { SecureBytes.wipe(&sk) }
                let ask = OrchardFullViewingKey.ask(spendingKey: sk)
                guard let alphaBytes = spend.alpha, let alpha = PallasScalar(secretBytes: alphaBytes) else {
                    throw .unsupported("\(name).actions[\(index)] has no alpha to sign with")
                }
                let rsk = ask + alpha
                // rk is in the PCZT: [rsk]G is public by design.
                guard ConstantTime.declassified(RedPallas.verificationKey(rsk)) == spend.rk else {
                    throw .refused("\(name).actions[\(index)] names our seed, but its rk is not our key's")
                }
                bundle.actions[index].spend.spendAuthSig = RedPallas.sign(sighash, key: rsk)
                signed += 1
            }
            self[keyPath: path] = bundle
        }
        if signed > 0 { fixModifiable(transparentHashType: nil) }
        return signed
    }
}
