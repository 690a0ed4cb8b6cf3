import WalletCore
import WalletCrypto

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
