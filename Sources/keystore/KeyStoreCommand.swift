import ArgumentParser
import Foundation
import WalletCLI
import WalletCore
import WalletKeyStore
#if canImport(Glibc)
import Glibc
#endif

@main
struct KeyStoreCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "keystore",
        abstract: "Satchel's encrypted key store: add, list, export, destroy entries; change their passphrase.",
        discussion: """
        Each entry (a BIP39 or Monero phrase, a seed, an xpub, or Monero view-only keys, with
        per-chain birthday heights) is a file sealed with XChaCha20-Poly1305 under a key from
        Argon2id. The key-store passphrase comes from --keystore-pass-file, --keystore-pass-fd
        or a prompt. Other tools read an entry with --wallet NAME. See keystore(1).
        """,
        version: SatchelVersion.string,
        subcommands: [Add.self, List.self, Export.self, Destroy.self, Passwd.self, Birthday.self]
    )
}

/// Runs a body whose errors are WalletErrors: message on stderr, the error's exit status.
func runReporting(_ body: (RecordPipeline) throws -> Void) throws {
    let pipeline = RecordPipeline(tool: "keystore")
    do {
        try body(pipeline)
        try pipeline.flush()
        try pipeline.status.exitIfFailed()
    } catch let error as any WalletError {
        try pipeline.fail(error).exitIfFailed()
    }
}

extension KeyStoreCommand {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store the key of one record read from stdin under NAME.",
            discussion: "The record holds a mnemonic (BIP39 or Monero), a seed, an extended public key, Monero view_key and public_spend_key, or a Zcash key (a phrase or seed with \"coin\":\"zec\", or ufvk, uivk, extended_full_viewing_key); the same record `mnemonic` or `derive account` writes.")

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
            try runReporting { pipeline in
                guard let record = try SingleRecord.read(phraseLines: true) else { throw RecordError.emptyLine }
                // Birthdays the record carries (derive account --wallet writes the entry's), then
                // --birthday, which wins for its chains.
                let birthdays = try KeyStoreRecords.birthdays(in: record).merging(try KeyStoreRecords.parseBirthdays(birthday)) { $1 }
                let entry = try KeyStoreRecords.entry(from: record, name: name, birthdays: birthdays,
                                                      passphraseProtected: bip39Passphrase, now: Int(Date().timeIntervalSince1970))
                try keyStore.store.store(entry, passphrase: try keyStore.passphrase(confirm: true))
                try pipeline.emit(listing(entry.metadata))
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One record per entry: name, kind, birthdays, creation time. No passphrase needed, no secret shown.")
        @OptionGroup var keyStore: KeyStoreOptions

        func run() throws {
            try runReporting { pipeline in
                // A bad entry is an error record among the good ones, and sets the exit status.
                for entry in try keyStore.store.list() {
                    switch entry.metadata {
                    case .success(let metadata): try pipeline.emit(listing(metadata))
                    case .failure(let error): try pipeline.report(error)
                    }
                }
                // Not an entry any more, not an error: said, with the command that ends it.
                for name in keyStore.store.interruptedDestroys() {
                    try? OutputStream.standardError.write("keystore: warning: the destroy of '\(name)' was interrupted; run keystore destroy \(name) to finish it\n")
                }
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an entry's secret as a record (mnemonic, seed, xpub or view key) for other tools.",
            discussion: "The record contains the secret: pipe it (keystore export w | derive …), do not leave it on a terminal or in a file others can read.")
        @Argument var name: String
        @OptionGroup var keyStore: KeyStoreOptions

        func run() throws {
            try runReporting { pipeline in
                try keyStore.requireEntry(name)
                let entry = try keyStore.store.load(name, passphrase: try keyStore.passphrase(confirm: false))
                try pipeline.emit(try KeyStoreRecords.record(of: entry))
            }
        }
    }

    struct Destroy: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Overwrite an entry's file with random bytes, then delete it.",
            discussion: "Asks you to type the name on the terminal unless --yes is given. Without another copy of the phrase the funds are gone.")
        @Argument var name: String
        @Flag(help: "Do not ask for confirmation.")
        var yes = false
        @OptionGroup var keyStore: KeyStoreOptions

        func run() throws {
            try runReporting { pipeline in
                // A destroy that was interrupted is finished without asking again (unless an
                // entry of that name was added since: that one is asked for as always).
                let finishing = try keyStore.store.interruptedDestroys().contains(name) && !keyStore.store.exists(name)
                if !finishing { try keyStore.requireEntry(name) }
                if !yes && !finishing {
                    let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
                    guard tty >= 0 else { throw CLIError.usage("destroy asks you to type the entry's name on a terminal; without one, add --yes") }
                    close(tty)
                    let typed = try SecretInput.read(.prompt(label: "Type the entry name to destroy '\(name)': ", confirm: false))
                    guard typed.bytes == Array(name.utf8) else { throw CLIError.usage("the name typed does not match; nothing was destroyed") }
                }
                try keyStore.store.destroy(name)
                try pipeline.emit(JSONObject(["type": .string("destroyed"), "name": .string(name), "destroyed": .bool(true)]))
            }
        }
    }

    struct Passwd: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-encrypt an entry under a new key-store passphrase.")
        @Argument var name: String

        @Option(name: .customLong("new-pass-file"), help: ArgumentHelp("Read the new passphrase from this file (mode 0600).", valueName: "path"))
        var newPassFile: String?

        @Option(name: .customLong("new-pass-fd"), help: ArgumentHelp("Read the new passphrase from this descriptor.", valueName: "n"))
        var newPassFD: Int32?

        @OptionGroup var keyStore: KeyStoreOptions

        func run() throws {
            try runReporting { pipeline in
                try keyStore.requireEntry(name)
                let old = try keyStore.passphrase(confirm: false, label: "Current key-store passphrase: ")
                let new: SecureBytes
                if let newPassFile { new = try SecretInput.read(.file(newPassFile)) } else if let newPassFD { new = try SecretInput.read(.fileDescriptor(newPassFD)) } else {
                    new = try SecretInput.read(.prompt(label: "New key-store passphrase: ", confirm: true))
                }
                try keyStore.store.changePassphrase(name, from: old, to: new)
                try pipeline.emit(JSONObject(["type": .string("passphrase_changed"), "name": .string(name), "passphrase_changed": .bool(true)]))
            }
        }
    }

    struct Birthday: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set birthday heights of an entry (chain=height).")
        @Argument var name: String
        @Argument(help: ArgumentHelp("chain=height pairs", valueName: "chain=height"))
        var heights: [String]
        @OptionGroup var keyStore: KeyStoreOptions

        func validate() throws { _ = try KeyStoreRecords.parseBirthdays(heights) }

        func run() throws {
            try runReporting { pipeline in
                let store = keyStore.store
                try keyStore.requireEntry(name)
                try store.setBirthdays(name, try KeyStoreRecords.parseBirthdays(heights), passphrase: try keyStore.passphrase(confirm: false))
                if case .success(let metadata)? = try store.list().first(where: { $0.name == name })?.metadata {
                    try pipeline.emit(listing(metadata))
                }
            }
        }
    }
}

/// The public record of an entry.
func listing(_ m: EntryMetadata) -> JSONObject {
    var out = JSONObject()
    out["type"] = .string("entry")
    out["name"] = .string(m.name)
    out["kind"] = .string(m.kind.rawValue)
    out["created"] = .number(String(m.created))
    out["birthdays"] = .object(KeyStoreRecords.birthdayObject(m.birthdays))
    if m.kind == .bip39Mnemonic {
        out["language"] = .string(m.language ?? "english")
        out["passphrase_protected"] = .bool(m.passphraseProtected)
    }
    if let path = m.path { out["path"] = .string(path) }
    return out
}
