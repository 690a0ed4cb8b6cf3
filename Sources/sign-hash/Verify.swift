import ArgumentParser
import KeySources
import SigningRecords
import WalletKeys
import WalletRecords

extension SignHashCommand {
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check signatures: each record's hash, signature and public_key (or Ethereum/Bitcoin address).",
            discussion: """
                ECDSA records may name the signer by "address" instead of "public_key" (with their \
                "recovery_id" or "v"): the key is recovered and its address compared. A record that \
                does not verify is an error record (sign.verification_failed) and the exit status is 65.
                """)

        @Option(
            help: ArgumentHelp(
                "The expected signer's address, for records that name none: P2PKH, P2SH-P2WPKH, P2WPKH, P2TR (with a Schnorr signature), the Litecoin, Dogecoin, Bitcoin Cash and Zcash transparent forms, or Ethereum (EIP-55).",
                valueName: "address"))
        var address: String?

        @OptionGroup var input: InputFiles

        func validate() throws {
            if let address {
                do { _ = try SignerAddress(parsing: address) } catch { throw ValidationError(error.message) }
            }
        }

        func run() throws {
            try RecordPipeline(tool: "sign-hash").run(inputs: input.files) { try HashSignatures.verify($0, address: address) }
                .exitIfFailed()
        }
    }
}
