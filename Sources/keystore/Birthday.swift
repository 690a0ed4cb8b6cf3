import ArgumentParser
import KeySources
import WalletRecords

extension KeyStoreCommand {
    struct Birthday: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set birthday heights of an entry (chain=height).")
        @Argument var name: String
        @Argument(help: ArgumentHelp("chain=height pairs", valueName: "chain=height"))
        var heights: [String]
        @OptionGroup var keyStore: KeyStoreOptions

        func validate() throws { _ = try KeyStoreRecords.parseBirthdays(heights) }

        func run() throws {
            try RecordPipeline.reporting(tool: "keystore") { pipeline in
                let store = keyStore.store
                try keyStore.requireEntry(name)
                try store.setBirthdays(
                    name, try KeyStoreRecords.parseBirthdays(heights), passphrase: try keyStore.passphrase(confirm: false))
                if case .success(let metadata)? = try store.list().first(where: { $0.name == name })?.metadata {
                    try pipeline.emit(KeyStoreRecords.listing(metadata))
                }
            }
        }
    }
}
