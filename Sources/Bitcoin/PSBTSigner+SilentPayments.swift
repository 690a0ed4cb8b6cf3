import WalletCore
import WalletKeys
import WalletCrypto

/// BIP375's Signer inside `sign`: a PSBT paying silent payment addresses gets our inputs' ECDH
/// shares first, and is signed only once every such output has its script.
extension PSBTSigner {
    /// The PSBT with our shares, proofs and (once all are in) the scripts: each key the one the
    /// input's plan signs with, so a share is made only by a key that also signs.
    func contributeSilentPayments(_ psbt: PSBT, keys: PSBTKeyring) throws -> PSBT {
        try SilentPaymentPSBT.validate(psbt)
        let utxos = try spentOutputs(psbt)
        var inputKeys = [Int: SilentPaymentSender.InputKey]()
        for (i, map) in psbt.inputs.enumerated() {
            let planned = try plan(input: i, map: map, utxo: utxos[i], outputCount: psbt.outputs.count, keys: keys)
            guard let task = planned.tasks.first else { continue }
            switch task {
            case .ecdsa(let publicKey, let path, _):
                // A key-hash input's one key; a multisig input is not eligible (BIP352).
                guard let hash = Self.keyHash(utxos[i].script, map: map), Hash.hash160(publicKey) == hash else { continue }
                inputKeys[i] = .init(key: try keys.privateKey(at: path), taproot: false)
            case .schnorr(let path, .taproot(let merkleRoot)):
                inputKeys[i] = .init(
                    key: try Self.taprootOutputPrivateKey(try keys.privateKey(at: path), merkleRoot: merkleRoot), taproot: true)
            case .schnorr(let path, .silentPayment(let tweak)):
                inputKeys[i] = .init(
                    key: try SilentPayment.outputPrivateKey(spendKey: try keys.privateKey(at: path), tweak: tweak), taproot: true)
            }
        }
        return try SilentPaymentPSBT.contribute(psbt, keys: inputKeys)
    }

    /// BIP341's key-path private key: d (negated when d·G has an odd y, as the x-only internal
    /// key stands for the even point) plus H_TapTweak(x(P) ‖ merkleRoot). The parity is public:
    /// P is the input's internal key.
    static func taprootOutputPrivateKey(_ d: SecureBytes, merkleRoot: [UInt8]?) throws -> SecureBytes {
        let P = try Secp256k1.publicKey(of: d).declassified
        let even = P.compressed[0] == 3 ? try Secp256k1.negate(d) : d
        return try Secp256k1.add(tweak: Hash.tagged("TapTweak", P.xOnly + (merkleRoot ?? [])), to: even)
    }

    /// Whether a silent payment output is our own change: label 0 (BIP352's change label), and
    /// its scan and spend keys ours by derivations checked here, the spend key with label 0's
    /// point giving the output's. Anything else is a payment.
    func silentPaymentChange(_ output: SilentPaymentPSBT.Output, map: PSBT.Map, keys: PSBTKeyring) throws -> [String]? {
        guard output.label == 0 else { return nil }
        let (ecdsa, _) = try Self.ourKeys(
            map, type: PSBTField.outBIP32Derivation, tapType: PSBTField.outTapBIP32Derivation, name: "output \(output.index)", keys: keys)
        guard let scan = ecdsa.first(where: { $0.0 == output.scanKey.compressed }) else { return nil }
        for (key, path) in ecdsa where key != output.scanKey.compressed && key.count == 33 {
            let receiver = try SilentPaymentKeys(
                scanPrivateKey: try keys.privateKey(at: scan.1), spendPublicKey: try Secp256k1.PublicKey(parsing: key))
            if try receiver.labeledSpendKey(0) == output.spendKey {
                return [DerivationPath(scan.1).description, DerivationPath(path).description]
            }
        }
        return nil
    }
}
