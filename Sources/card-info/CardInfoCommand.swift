import ArgumentParser
import KeySources
import WalletRecords

@main
struct CardInfoCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "card-info",
        abstract: "A Status Keycard over PC/SC: what it is and holds, and its management.",
        discussion: """
            With no subcommand, lists the readers and prints each Keycard's SELECT information as a \
            JSON record; with --pairing, also its GET STATUS. Secrets (PIN, PUK, pairing password) \
            come from --credentials-file/--credentials-fd (one JSON record) or a no-echo prompt, \
            never from arguments. See card-info(1).

            Examples:
              card-info
              card-info init --credentials-file creds.json
              card-info pair --store my-card --credentials-file creds.json
              card-info verify-pin --pairing my-card --credentials-fd 3 3<creds.json
              card-info factory-reset --confirm
            """,
        version: SatchelVersion.string,
        subcommands: [
            Info.self, Initialize.self, Pair.self, Unpair.self, VerifyPIN.self, ChangePIN.self, ChangePUK.self,
            ChangePairingPassword.self, UnblockPIN.self, LoadKey.self, GenerateKey.self, RemoveKey.self,
            SetPinlessPath.self, ExportKey.self, FactoryReset.self,
        ],
        defaultSubcommand: Info.self)
}
