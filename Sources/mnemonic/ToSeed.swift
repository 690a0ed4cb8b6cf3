import ArgumentParser
import MnemonicRecords
import WalletCardCLI
import WalletCore
import WalletRecords

extension MnemonicCommand {
    struct ToSeed: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "to-seed",
            abstract: "Phrase → seed: BIP39's 64-byte PBKDF2 seed, or Monero's 32-byte seed.",
            discussion: """
                Reads {"mnemonic":"..."} and adds "seed". The BIP39 passphrase comes from one of \
                the options below, or from a "passphrase" field of the record itself (which is then \
                removed from the output); it is NFKD-normalised and never trimmed, except that one \
                trailing newline of a file or descriptor is dropped. Monero seeds take no passphrase.
                """)

        @OptionGroup var schemeOptions: SchemeOptions

        @OptionGroup var passphraseOptions: PassphraseOptions
        @OptionGroup var input: InputFiles

        func run() throws {
            let pipeline = RecordPipeline(tool: "mnemonic")
            pipeline.phraseLines = true
            let shared: SecureBytes?
            do { shared = try passphraseOptions.read() } catch { return try pipeline.fail(error).exitIfFailed() }
            try pipeline.run(inputs: input.files) { try PhraseRecords.seed($0, options: schemeOptions, sharedPassphrase: shared) }
                .exitIfFailed()
        }
    }
}
