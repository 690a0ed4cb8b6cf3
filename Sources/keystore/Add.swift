import ArgumentParser
import Foundation
import KeySources
import WalletKeyStore
import WalletRecords

extension KeyStoreCommand {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store the key of one record read from stdin under NAME.",
            discussion:
                "The record holds a mnemonic (BIP39 or Monero), a seed, an extended public key, Monero view_key and public_spend_key, or a Zcash key (a phrase or seed with \"coin\":\"zec\", or ufvk, uivk, extended_full_viewing_key); the same record `mnemonic` or `derive account` writes."
        )

        @Argument(help: "The entry's name: 1–64 of A–Z a–z 0–9 . _ -")
        var name: String

        @Option(help: ArgumentHelp("A birthday height, chain=height; repeat for more chains.", valueName: "chain=height"))
        var birthday: [String] = []

        @Flag(help: "The phrase is used with a BIP39 passphrase (it is not stored; tools ask for it).")
        var bip39Passphrase = false

        @OptionGroup var keyStore: KeyStoreOptions

        func validate() throws {
            do { try FileKeyStore.validate(name: name) } catch { throw ValidationError(error.message) }
            _ = try KeyStoreRecords.parseBirthdays(birthday)
        }

        func run() throws {
            try RecordPipeline.reporting(tool: "keystore") { pipeline in
                guard let record = try SingleRecord.read(phraseLines: true) else { throw RecordError.emptyLine }
                // Birthdays the record carries (derive account --wallet writes the entry's), then
                // --birthday, which wins for its chains.
                let birthdays = try KeyStoreRecords.birthdays(in: record).merging(try KeyStoreRecords.parseBirthdays(birthday)) { $1 }
                let entry = try KeyStoreRecords.entry(
                    from: record, name: name, birthdays: birthdays,
                    passphraseProtected: bip39Passphrase, now: Int(Date().timeIntervalSince1970))
                try keyStore.store.store(entry, passphrase: try keyStore.passphrase(confirm: true))
                try pipeline.emit(KeyStoreRecords.listing(entry.metadata))
            }
        }
    }
}
