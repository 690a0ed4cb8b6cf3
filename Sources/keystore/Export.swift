import ArgumentParser
import KeySources
import WalletRecords

extension KeyStoreCommand {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an entry's secret as a record (mnemonic, seed, xpub or view key) for other tools.",
            discussion:
                "The record contains the secret: pipe it (keystore export w | derive …), do not leave it on a terminal or in a file others can read."
        )
        @Argument var name: String
        @OptionGroup var keyStore: KeyStoreOptions

        func run() throws {
            try RecordPipeline.reporting(tool: "keystore") { pipeline in
                try keyStore.requireEntry(name)
                let entry = try keyStore.store.load(name, passphrase: try keyStore.passphrase(confirm: false))
                try pipeline.emit(try KeyStoreRecords.record(of: entry))
            }
        }
    }
}
