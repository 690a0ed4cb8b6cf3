import ArgumentParser
import WalletCardCLI
import KeySources
import WalletCore
import WalletRecords

struct LoadKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load-key",
        abstract: "Load a master key from a BIP39 phrase or seed record on stdin ({\"mnemonic\"[,\"passphrase\"]} or {\"seed\"}).")
    @OptionGroup var session: SessionOptions

    func run() throws {
        try session.run("key_loaded") { keycard, _, r in
            r["key_uid"] = .string(Hex.encode(try keycard.loadSeed(try CardFlows.seed(of: try SingleRecord.read(phraseLines: true)))))
        }
    }
}
