import ArgumentParser
import WalletCore
import WalletKeys
import WalletUR

/// `derive account --ur`: the account as the UR a watch-only wallet pairs with.
public enum AccountURType: String, CaseIterable, Sendable {
    /// BCR-2020-015: every script type of the coin at once (Sparrow, Keystone-style wallets).
    case cryptoAccount = "crypto-account"
    /// BCR-2020-007: the account key with source fingerprint and path (MetaMask at m/44'/60'/0').
    case cryptoHDKey = "crypto-hdkey"
    /// BCR-2020-010: the receive descriptor.
    case cryptoOutput = "crypto-output"
    /// Keystone's zcash-accounts (tag 49201): the seed's ZIP 32 fingerprint and the account's
    /// UFVK and index, what Zashi/Zodl and zcash-devtool read to pair with a signer.
    case zcashAccounts = "zcash-accounts"
}

/// The registry items of an account, built from keys derived here.
enum AccountUR {
    static func fingerprint(_ bytes: [UInt8]) -> UInt32 { bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }

    /// The account key placed by its origin; use-info only when not Bitcoin's mainnet (the
    /// registry's default), as BCR-2020-015's example writes it.
    static func hdkey(_ account: ExtendedKey, path: DerivationPath, master: [UInt8]?, chain: CoinNetwork, children: KeyPath? = nil) -> HDKey
    {
        let info = CoinInfo(type: chain.testnet ? 1 : chain.slip44, network: chain.testnet ? 1 : 0)
        var key = HDKey(
            keyData: account.publicKey.compressed, chainCode: account.chainCode,
            origin: KeyPath(path: path.components, sourceFingerprint: master.map(fingerprint)),
            parentFingerprint: account.depth == 0 ? nil : fingerprint(account.parentFingerprint),
            useInfo: info == CoinInfo() ? nil : info, children: children)
        if chain.scripts == [.ethereum] {
            // What MetaMask's QR keyring reads: a name, and the note that says its addresses are
            // m/44'/60'/0'/0/i (children 0/*), not Ledger Live's layout.
            key.name = "Satchel"
            key.note = "account.standard"
        }
        return key
    }

    static func output(_ script: ScriptKind, _ key: OutputKey) -> OutputDescriptor? {
        switch script {
        case .p2pkh: .pkh(key)
        case .p2shP2wpkh: .sh(.wpkh(key))
        case .p2wpkh: .wpkh(key)
        case .p2tr: .tr(key)
        case .ethereum: nil
        }
    }

    /// BCR-2020-015's account: single-key scripts at 44'/49'/84'/86', and the cosigner keys
    /// at 45' and 48'/coin'/account'/1' and 2', as far as the coin has those scripts — the order
    /// of the BCR's example.
    static func account(master: ExtendedKey, chain: CoinNetwork, coinType: UInt32, account: UInt32) throws -> Account {
        let h = DerivationPath.hardened
        let fp = master.fingerprint
        func key(_ path: [UInt32]) throws -> OutputKey {
            let p = DerivationPath(path)
            return .hd(hdkey(try master.derive(path), path: p, master: fp, chain: chain))
        }
        let single = [coinType + h, account + h]
        var outputs: [OutputDescriptor] = []
        if chain.scripts.contains(.p2pkh) { outputs.append(.pkh(try key([44 + h] + single))) }
        if chain.scripts.contains(.p2shP2wpkh) { outputs.append(.sh(.wpkh(try key([49 + h] + single)))) }
        if chain.scripts.contains(.p2wpkh) { outputs.append(.wpkh(try key([84 + h] + single))) }
        if chain.scripts.contains(.p2pkh) { outputs.append(.sh(.cosigner(try key([45 + h])))) }
        if chain.scripts.contains(.p2wpkh) {
            outputs.append(.sh(.wsh(.cosigner(try key([48 + h] + single + [1 + h])))))
            outputs.append(.wsh(.cosigner(try key([48 + h] + single + [2 + h]))))
        }
        if chain.scripts.contains(.p2tr) { outputs.append(.tr(try key([86 + h] + single))) }
        guard !outputs.isEmpty else { throw DerivationError.unsupported("\(chain.coin) has no script type a crypto-account holds") }
        return Account(masterFingerprint: fingerprint(fp), outputs: outputs)
    }
}

extension AccountURType: ExpressibleByArgument {}
