import ArgumentParser
import Foundation
import WalletCardCLI
import MnemonicRecords
import WalletCore
import WalletKeys
import KeySources
import WalletRecords

extension MnemonicCommand {
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make new phrases from the operating system's CSPRNG (libsodium).",
            discussion: """
                Writes {"scheme","language","mnemonic","entropy"} per phrase. For entropy you make \
                yourself (hex, dice or coins), use from-entropy.
                """)

        @OptionGroup var schemeOptions: SchemeOptions

        @Option(
            help: "Words per phrase: 12, 15, 18, 21 or 24 for BIP39 (default 24); 25 for Monero.",
            completion: .list(["12", "15", "18", "21", "24", "25"]))
        var words: Int?

        @Option(help: "How many phrases to write.")
        var count: Int = 1

        @Option(
            help: ArgumentHelp(
                "Store the new phrase in the key store under this name first, and print it only once that write has succeeded.",
                valueName: "name"))
        var store: String?

        @Flag(help: "With --store: then ask for a few words at random positions on the terminal, to check the written copy.")
        var confirm = false

        @Flag(help: "With --store: mark the entry as used with a BIP39 passphrase (never stored).")
        var bip39Passphrase = false

        @Option(help: ArgumentHelp("With --store: a birthday height, chain=height (repeatable).", valueName: "chain=height"))
        var birthday: [String] = []

        @OptionGroup var keyStore: KeyStoreOptions
        @OptionGroup var cardOptions: CardKeyOptions

        func validate() throws {
            guard count >= 1 else { throw ValidationError("--count must be at least 1") }
            if cardOptions.card && schemeOptions.parsedScheme == .monero { throw ValidationError("the Keycard makes BIP39 phrases only") }
            if store != nil && count != 1 { throw ValidationError("--store keeps one phrase: drop --count") }
            if store == nil && (confirm || bip39Passphrase || !birthday.isEmpty) {
                throw ValidationError("--confirm, --bip39-passphrase and --birthday go with --store")
            }
            _ = try KeyStoreRecords.parseBirthdays(birthday)
            let handler = MnemonicSchemes.handler(for: schemeOptions.parsedScheme ?? .bip39)
            if let words, handler.entropyBytes(forWordCount: words) == nil {
                let allowed = handler.entropyLengths.map { String(handler.wordCount(forEntropyBytes: $0)) }
                throw ValidationError("a \(handler.scheme.rawValue) phrase has \(allowed.joined(separator: ", ")) words, not \(words)")
            }
        }

        func run() throws {
            let handler = MnemonicSchemes.handler(for: schemeOptions.parsedScheme ?? .bip39)
            let wordCount = words ?? handler.wordCount(forEntropyBytes: handler.entropyLengths.last!)
            let language = schemeOptions.language ?? handler.languages[0]
            let pipeline = RecordPipeline(tool: "mnemonic")
            do {
                // --card: the words come from the card's random number generator.
                let card = try cardOptions.channel(keyStore)
                for _ in 0..<count {
                    let mnemonic =
                        try card?.generateMnemonic(words: wordCount, language: language)
                        ?? handler.generate(wordCount: wordCount, language: language)
                    var record = PhraseRecords.generated(mnemonic, handler: handler)
                    if let store {
                        // KeyStorer: the phrase is shown only after it is safely stored.
                        try storeFirst(record, name: store)
                        record["stored_as"] = .string(store)
                    }
                    try pipeline.emit(record)
                    if confirm {
                        try pipeline.flush()  // the phrase is on screen before the questions
                        try PhraseRecords.confirmWords(mnemonic)
                    }
                }
                try pipeline.flush()
            } catch let error as any WalletError {
                try pipeline.fail(error).exitIfFailed()
            }
        }

        private func storeFirst(_ record: JSONObject, name: String) throws {
            let entry = try KeyStoreRecords.entry(
                from: record, name: name, birthdays: try KeyStoreRecords.parseBirthdays(birthday),
                passphraseProtected: bip39Passphrase, now: Int(Date().timeIntervalSince1970))
            try keyStore.store.store(entry, passphrase: try keyStore.passphrase(confirm: true))
        }
    }
}
