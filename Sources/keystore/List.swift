import ArgumentParser
import KeySources
import WalletCore
import WalletRecords

extension KeyStoreCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One record per entry: name, kind, birthdays, creation time. No passphrase needed, no secret shown.")
        @OptionGroup var keyStore: KeyStoreOptions

        func run() throws {
            try RecordPipeline.reporting(tool: "keystore") { pipeline in
                // A bad entry is an error record among the good ones, and sets the exit status.
                for entry in try keyStore.store.list() {
                    switch entry.metadata {
                    case .success(let metadata): try pipeline.emit(KeyStoreRecords.listing(metadata))
                    case .failure(let error): try pipeline.report(error)
                    }
                }
                // Not an entry any more, not an error: said, with the command that ends it.
                for name in keyStore.store.interruptedDestroys() {
                    try? OutputStream.standardError.write(
                        "keystore: warning: the destroy of '\(name)' was interrupted; run keystore destroy \(name) to finish it\n")
                }
            }
        }
    }
}
