import ArgumentParser
import KeySources
import WalletCore
import WalletRecords

extension KeyStoreCommand {
    struct Passwd: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-encrypt an entry under a new key-store passphrase.")
        @Argument var name: String

        @Option(
            name: .customLong("new-pass-file"), help: ArgumentHelp("Read the new passphrase from this file (mode 0600).", valueName: "path")
        )
        var newPassFile: String?

        @Option(name: .customLong("new-pass-fd"), help: ArgumentHelp("Read the new passphrase from this descriptor.", valueName: "n"))
        var newPassFD: Int32?

        @OptionGroup var keyStore: KeyStoreOptions

        func run() throws {
            try RecordPipeline.reporting(tool: "keystore") { pipeline in
                try keyStore.requireEntry(name)
                let old = try keyStore.passphrase(confirm: false, label: "Current key-store passphrase: ")
                let new: SecureBytes
                if let newPassFile {
                    new = try SecretInput.read(.file(newPassFile))
                } else if let newPassFD {
                    new = try SecretInput.read(.fileDescriptor(newPassFD))
                } else {
                    new = try SecretInput.read(.prompt(label: "New key-store passphrase: ", confirm: true))
                }
                try keyStore.store.changePassphrase(name, from: old, to: new)
                try pipeline.emit(
                    JSONObject(["type": .string("passphrase_changed"), "name": .string(name), "passphrase_changed": .bool(true)]))
            }
        }
    }
}
