import ArgumentParser
import Foundation
import WalletCard
import WalletCore
import WalletKeyStore
import WalletKeys
import WalletRecords

/// What a command on a paired card needs: the reader, the pairing (in the key store) and
/// the credentials record.
public struct SessionOptions: ParsableArguments {
    @OptionGroup public var readers: ReaderOptions
    @OptionGroup public var pairing: PairingOptions
    @OptionGroup public var keyStore: KeyStoreOptions
    @OptionGroup public var credentials: CredentialOptions

    public init() {}

    /// A command inside the secure channel after VERIFY PIN; `body` fills in its record.
    /// `check` sees the credentials before anything is sent to the card.
    public func run(
        _ name: String, extra: [(field: String, prompt: String, confirm: Bool)] = [],
        check: ([String: SecureBytes]) throws -> Void = { _ in },
        _ body: (Keycard, [String: SecureBytes], inout JSONObject) throws -> Void
    ) throws {
        try RecordPipeline.reporting(tool: "card-info") { pipeline in
            // A misspelt pairing is reported before the PIN is asked for.
            if let name = pairing.pairing { try keyStore.requireEntry(name) }
            let secrets = try credentials.read([("pin", "PIN: ", false)] + extra)
            try check(secrets)
            let (keycard, reader) = try pairing.open(readers, keyStore)
            try keycard.verifyPIN(secrets["pin"]!)
            var r = JSONObject()
            r["type"] = .string(name)
            r["reader"] = .string(reader)
            try body(keycard, secrets, &r)
            try pipeline.emit(r)
        }
    }
}
