import ArgumentParser
import WalletCard
import WalletCardCLI

struct ChangePairingPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-pairing-password",
        abstract: "Set a new pairing password for future pairings (credentials: pin, new_pairing_password).")
    @OptionGroup var session: SessionOptions

    func run() throws {
        try session.run("pairing_password_changed", extra: [("new_pairing_password", "New pairing password: ", true)]) { keycard, s, _ in
            try keycard.changePairingSecret(KeycardCrypto.pairingSecret(password: s["new_pairing_password"]!))
        }
    }
}
