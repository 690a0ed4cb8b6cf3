import ArgumentParser
import KeySources
import WalletCore
#if canImport(Glibc)
    import Glibc
    import WalletRecords
#endif

extension KeyStoreCommand {
    struct Destroy: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Overwrite an entry's file with random bytes, then delete it.",
            discussion:
                "Asks you to type the name on the terminal unless --yes is given. Without another copy of the phrase the funds are gone.")
        @Argument var name: String
        @Flag(help: "Do not ask for confirmation.")
        var yes = false
        @OptionGroup var keyStore: KeyStoreOptions

        func run() throws {
            try RecordPipeline.reporting(tool: "keystore") { pipeline in
                // A destroy that was interrupted is finished without asking again (unless an
                // entry of that name was added since: that one is asked for as always).
                let finishing = try keyStore.store.interruptedDestroys().contains(name) && !keyStore.store.exists(name)
                if !finishing { try keyStore.requireEntry(name) }
                if !yes && !finishing {
                    let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
                    guard tty >= 0 else {
                        throw CLIError.usage("destroy asks you to type the entry's name on a terminal; without one, add --yes")
                    }
                    close(tty)
                    let typed = try SecretInput.read(.prompt(label: "Type the entry name to destroy '\(name)': ", confirm: false))
                    guard typed.bytes == Array(name.utf8) else {
                        throw CLIError.usage("the name typed does not match; nothing was destroyed")
                    }
                }
                try keyStore.store.destroy(name)
                try pipeline.emit(JSONObject(["type": .string("destroyed"), "name": .string(name), "destroyed": .bool(true)]))
            }
        }
    }
}
