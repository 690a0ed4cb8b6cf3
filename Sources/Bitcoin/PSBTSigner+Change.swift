import WalletCore
import WalletKeys
import WalletCrypto

/// Which outputs are change: ours by keys the signer derived itself, in an account it signs for.
extension PSBTSigner {
    /// The highest change index (chain 1) an output may have to be shown as change: a wallet
    /// finds its addresses by walking each chain with a gap limit, and an output at an index
    /// far past any it walks is money it would never see.
    public static let changeIndexLimit: UInt32 = 100_000

    /// The account a path of ours is in: every step but the chain and index (purpose, coin
    /// type, account and, for BIP48, the script type), all hardened; nil for a path of another shape.
    static func account(_ path: [UInt32]) -> [UInt32]? {
        let h = DerivationPath.hardened
        guard path.count >= 5, path.dropLast(2).allSatisfy({ $0 >= h }) else { return nil }
        return Array(path.dropLast(2))
    }

    /// Each wallet holds a key of ours, and every key under our fingerprint is the one our seed
    /// gives at its origin (else its "change" could be a stranger's).
    func checkWallets(keys: PSBTKeyring) throws {
        for wallet in wallets {
            var ours = 0
            for c in wallet.cosigners where keys.owns(fingerprint: c.fingerprint, path: c.path.components) {
                guard try keys.publicKey(at: c.path.components).compressed == c.key.publicKey.compressed else {
                    throw PSBTSignError.notOurWallet("names our fingerprint at \(c.path) with another key")
                }
                ours += 1
            }
            guard ours > 0 else { throw PSBTSignError.notOurWallet("holds no key of ours (no key origin with our fingerprint)") }
        }
    }

    /// The wallet whose change a multisig output is: a wallet whose key of ours (at whose
    /// origin one of `paths`, our verified derivations in the output, lies) places it at chain 1
    /// below the index bound in an account this run signs for, and gives exactly this script there.
    func walletChange(paths: [[UInt32]], script: [UInt8], keys: PSBTKeyring, accounts: Set<[UInt32]>) throws -> Int? {
        for path in paths {
            guard let account = Self.account(path), accounts.contains(account) else { continue }
            for (w, wallet) in wallets.enumerated() {
                for c in wallet.cosigners where keys.owns(fingerprint: c.fingerprint, path: path) {
                    guard let place = wallet.place(fingerprint: c.fingerprint, path: path), place.chain == 1,
                        place.index < Self.changeIndexLimit
                    else { continue }
                    if try wallet.script(chain: 1, index: place.index).scriptPubKey == script { return w }
                }
            }
        }
        return nil
    }

    /// Whether a path of ours in an output is a change address of an account this run signs
    /// for: that account's chain 1, an unhardened index below `changeIndexLimit`.
    static func isChangePath(_ path: [UInt32], accounts: Set<[UInt32]>) -> Bool {
        guard let account = account(path), accounts.contains(account) else { return false }
        return path[path.count - 2] == 1 && path.last! < changeIndexLimit
    }

    /// Whether an output is ours alone to spend: its script built again from keys derived here,
    /// each at a change path of an account this run signs for, and no set of other keys able to
    /// spend it. When in doubt, a payment.
    func change(
        output o: Int, map: PSBT.Map, script: [UInt8], amount: UInt64, keys: PSBTKeyring, accounts: Set<[UInt32]>
    ) throws -> PSBTReport.Output {
        let (allECDSA, allTaproot) = try Self.ourKeys(
            map, type: PSBTField.outBIP32Derivation, tapType: PSBTField.outTapBIP32Derivation, name: "output \(o)", keys: keys)
        let paths = allECDSA.map { DerivationPath($0.1).description } + allTaproot.map { DerivationPath($0.path).description }
        // Keys of ours at any other path (another account, a receive address, m itself) are
        // not counted as ours here: what they pay is shown as a payment.
        let ecdsa = allECDSA.filter { Self.isChangePath($0.1, accounts: accounts) }
        let taproot = allTaproot.filter { Self.isChangePath($0.path, accounts: accounts) }
        let ours = Set(ecdsa.map(\.0))
        func keyHashIsOurs(_ h: [UInt8], segwit: Bool) -> Bool { ours.contains { Hash.hash160($0) == h && (!segwit || $0.count == 33) } }
        /// A multisig whose threshold our keys meet alone, and other keys cannot.
        func scriptIsOurs(_ s: [UInt8]) -> Bool {
            guard let (m, keys) = Script.multisig(s) else { return false }
            let mine = keys.filter(ours.contains).count
            return mine >= m && keys.count - mine < m
        }
        let redeem = map.value(PSBTField.outRedeemScript), ws = map.value(PSBTField.outWitnessScript)
        func witnessIsOurs(_ h: [UInt8]) -> Bool { ws.map { Hash.sha256($0) == h && scriptIsOurs($0) } ?? false }
        var change = false
        switch ScriptTemplate(script) {
        case .p2pkh(let h): change = keyHashIsOurs(h, segwit: false)
        case .p2wpkh(let h): change = keyHashIsOurs(h, segwit: true)
        case .p2wsh(let h): change = witnessIsOurs(h)
        case .p2sh(let h):
            if let redeem, Hash.hash160(redeem) == h {
                switch ScriptTemplate(redeem) {
                case .p2wpkh(let kh): change = keyHashIsOurs(kh, segwit: true)
                case .p2wsh(let sh): change = witnessIsOurs(sh)
                default: change = scriptIsOurs(redeem)
                }
            }
        case .p2tr(let outputKey):
            // Key path only: a script tree could let others spend it.
            if map.value(PSBTField.outTapTree) == nil, let internalKey = map.value(PSBTField.outTapInternalKey),
                taproot.contains(where: { $0.xOnly == internalKey }),
                let tweaked = try? Secp256k1.PublicKey(parsing: [0x02] + internalKey).taprootOutputKey()
            {
                change = tweaked == outputKey
            }
        case .other: break
        }
        var wallet: Int?
        if !change, !wallets.isEmpty, let w = try walletChange(paths: allECDSA.map(\.1), script: script, keys: keys, accounts: accounts) {
            (change, wallet) = (true, w)
        }
        return PSBTReport.Output(index: o, amount: amount, script: script, change: change, paths: paths, wallet: wallet)
    }
}
