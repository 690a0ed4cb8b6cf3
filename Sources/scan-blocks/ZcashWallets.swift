import Foundation
import WalletCLI
import WalletCore
import WalletKeys
import WalletScan
import Zcash
import ZcashLightwalletd
#if canImport(Glibc)
import Glibc
#endif

extension ScanBlocksCommand {
    /// --chain zcash: Sapling notes in compact blocks, for wallets given as zec key-store
    /// entries or key records (ufvk, uivk, extended_full_viewing_key, or a BIP39 phrase or seed).
    func runZcash(_ pipeline: RecordPipeline) throws {
        let net: ZcashNetwork = ["mainnet", "main"].contains(network) ? .main : .test
        let given = try gatherZcashWallets(network: net)
        var source: (any BlockSource)? = try blocks.map { try CompactBlockFileSource(path: $0, transactionsPath: txs) }
        if let lightwalletd {
            var options = LightwalletdSource.Options()
            options.plaintext = plaintext
            options.trustRoots = caFile
            options.timeout = timeout
            source = try LightwalletdSource(address: lightwalletd, options: options)
        }
        try synchronize(pipeline, wallets: given.map { ($0.name, $0.birthday) }, scanners: given.map(\.scanner),
                        stateNames: given.map(\.scanner.stateName), source: source) {
            if let n = IronwoodActions.untold() {
                pipeline.warn("\(n) Ironwood action\(n == 1 ? " was" : "s were") not scanned (NU6.3's pool): this version finds Orchard and Sapling notes only, so a balance may miss Ironwood funds")
            }
        }
    }

    struct GivenZcashWallet {
        let name: String?
        let scanner: ZcashScanner
        let birthday: Int?
    }

    /// Full viewing keys when every pool the keys have comes with one (spends known), else
    /// incoming keys for all: a wallet's spends are known in all its pools or in none.
    static func zcashScanner(_ keys: ZcashAccountKeys) -> ZcashScanner {
        if (keys.incoming == nil || keys.fullViewing != nil) && (keys.orchardIncoming == nil || keys.orchardFullViewing != nil) {
            return ZcashScanner(fullViewingKey: keys.fullViewing, network: keys.network, account: keys.account ?? 0, orchard: keys.orchardFullViewing)
        }
        return ZcashScanner(incomingViewingKey: keys.incoming, network: keys.network, account: keys.account ?? 0, orchard: keys.orchardIncoming)
    }

    func gatherZcashWallets(network: ZcashNetwork) throws -> [GivenZcashWallet] {
        var given = [GivenZcashWallet]()
        var (names, records) = try walletsFile()
        if !names.isEmpty {
            for name in names { try keyStore.requireEntry(name) }
            let passphrase = try keyStore.passphrase(confirm: false)
            for name in names {
                let entry = try keyStore.store.load(name, passphrase: passphrase)
                guard case .zcash(let material) = try KeyStoreRecords.keySource(entry, bip39Passphrase: nil) else {
                    throw DerivationError.unsupported("entry '\(name)' is not a Zcash wallet")
                }
                let keys = try ZcashAccountKeys(material: material, network: network, account: 0)
                guard keys.network == network else { throw DerivationError.unsupported("entry '\(name)' is for the \(keys.network.rawValue) network") }
                given.append(GivenZcashWallet(name: name, scanner: Self.zcashScanner(keys), birthday: entry.metadata.birthdays["zec"]))
            }
        }
        if let record = try keyOptions.read() {
            records.append((nil, record, "the key record"))
        } else if names.isEmpty && records.isEmpty && isatty(0) == 0 && blocks != "-", let record = try SingleRecord.read() {
            records.append((nil, record, "the key record on stdin"))
        }
        let several = names.count + records.count > 1
        for (_, record, what) in records {
            let keys: ZcashAccountKeys
            do {
                if ZcashAccountKeys.hasViewingKey(record) {
                    keys = try ZcashAccountKeys(viewingKeyOf: record, network: network)
                } else {
                    var scratch = record
                    let seed = try RecordKeys(coin: "zec", accountPath: nil, sharedPassphrase: nil).seed(record, out: &scratch)
                    // ZIP-32 accounts are hardened indexes: below 2^31.
                    let account = try record.optionalInt("account", in: 0...Int(Int32.max)) ?? 0
                    keys = try ZcashAccountKeys(seed: seed, network: network, account: UInt32(account))
                }
            } catch let error as any WalletError where several {
                throw ScanError.malformed(what: what, reason: error.message)
            }
            let scanner = Self.zcashScanner(keys)
            let label = try record.optionalString("name") ?? (several ? scanner.address(account: 0, index: 0) ?? scanner.stateName : nil)
            given.append(GivenZcashWallet(name: label, scanner: scanner, birthday: try record.optionalInt("birthday", in: 0...Self.maxHeight)))
        }
        return given
    }
}
