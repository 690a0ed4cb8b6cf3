import ArgumentParser
import Foundation
import Monero
import WalletCore
import WalletKeys
import WalletRecords
import WalletCrypto

/// --scheme and --language, shared by every subcommand.
public struct SchemeOptions: ParsableArguments {
    public init() {}

    @Option(
        help: "bip39 or monero. Default: bip39 when making phrases; detected (25 words = monero) when reading them.",
        completion: .list(["bip39", "monero"]))
    public var scheme: String?

    @Option(
        help: ArgumentHelp(
            "Wordlist: english, japanese, korean, spanish, chinese_simplified, chinese_traditional, french, italian, czech, portuguese (Monero: english). Default: detected when reading, english when making.",
            valueName: "name"),
        completion: .list([
            "english", "japanese", "korean", "spanish", "chinese_simplified", "chinese_traditional", "french", "italian", "czech",
            "portuguese",
        ]))
    public var language: String?

    public func validate() throws {
        if let scheme, MnemonicScheme(rawValue: scheme) == nil {
            throw ValidationError("unknown scheme '\(scheme)': use bip39 or monero")
        }
        if let language {
            let handler = MnemonicSchemes.handler(for: parsedScheme ?? .bip39)
            guard handler.languages.contains(language) else {
                throw ValidationError(
                    "no \(handler.scheme.rawValue) wordlist named '\(language)'; choose one of: \(handler.languages.joined(separator: ", "))"
                )
            }
        }
    }

    public var parsedScheme: MnemonicScheme? { scheme.flatMap(MnemonicScheme.init(rawValue:)) }
}

/// Looks up a phrase from a record: the flag wins, then the record's own scheme/language
/// fields (as `generate` writes them), then detection.
public func parseMnemonic(_ record: JSONObject, options: SchemeOptions) throws -> Mnemonic {
    let phrase = try record.string("mnemonic", expected: "the seed phrase as a string")
    var scheme = options.parsedScheme
    if scheme == nil, let named = try record.optionalString("scheme") {
        guard let s = MnemonicScheme(rawValue: named) else {
            throw RecordError.invalidField(field: "scheme", reason: "must be bip39 or monero")
        }
        scheme = s
    }
    let language = try options.language ?? record.optionalString("language")
    return try MnemonicSchemes.parse(phrase, scheme: scheme, language: language)
}

/// Writes the parsed phrase's canonical form and what it was recognised as (a record of type
/// "mnemonic" unless the subcommand names it otherwise).
public func describe(_ mnemonic: Mnemonic, into record: inout JSONObject) {
    record["type"] = .string("mnemonic")
    record["mnemonic"] = .string(mnemonic.phrase)
    record["scheme"] = .string(mnemonic.scheme.rawValue)
    record["language"] = .string(mnemonic.language)
    if !mnemonic.alsoValidIn.isEmpty {
        record["also_valid_in"] = .array(mnemonic.alsoValidIn.map { .string($0) })
    }
}

/// Runs the pipeline over records that carry a phrase: each is parsed, written back in
/// canonical form, and `add` puts in what the subcommand computes.
public func runOnPhrases(
    _ files: [String], _ options: SchemeOptions,
    _ add: @escaping (Mnemonic, inout JSONObject) throws -> Void
) throws {
    let pipeline = RecordPipeline(tool: "mnemonic")
    pipeline.phraseLines = true
    try pipeline.run(inputs: files) { record in
        var out = record
        let mnemonic = try parseMnemonic(record, options: options)
        describe(mnemonic, into: &out)
        try add(mnemonic, &out)
        return out
    }.exitIfFailed()
}

/// What `mnemonic` makes of records beyond parsing them: phrases from the user's entropy, and
/// the check of a written copy.
public enum PhraseRecords {
    /// generate's record of a new phrase, with its entropy.
    public static func generated(_ mnemonic: Mnemonic, handler: any MnemonicSeedHandler) -> JSONObject {
        var record = JSONObject()
        record["type"] = .string("mnemonic")
        record["scheme"] = .string(mnemonic.scheme.rawValue)
        record["language"] = .string(mnemonic.language)
        record["mnemonic"] = .string(mnemonic.phrase)
        record["entropy"] = .string(handler.entropy(of: mnemonic).hex)
        return record
    }

    /// to-seed: the phrase's seed, with the record's own "passphrase" (taken out of the
    /// output) or else the run's shared one.
    public static func seed(_ record: JSONObject, options: SchemeOptions, sharedPassphrase shared: SecureBytes?) throws -> JSONObject {
        var out = record
        let mnemonic = try parseMnemonic(record, options: options)
        let passphrase = try PassphraseOptions.forRecord(record, shared: shared, out: &out)
        let seed = try MnemonicSchemes.handler(for: mnemonic.scheme).seed(of: mnemonic, passphrase: passphrase)
        describe(mnemonic, into: &out)
        out["type"] = .string("seed")
        out["seed"] = .string(seed.hex)
        return out
    }

    /// from-entropy: one of "entropy" (hex), "dice" or "coins" → the phrase in `language`
    /// (dice and coins make `byteCount` bytes). Weak entropy is made anyway (test vectors are
    /// like that) but warned of, in the record and on stderr.
    public static func fromEntropy(
        _ record: JSONObject, handler: any MnemonicSeedHandler, language: String, byteCount: Int
    ) throws -> JSONObject {
        var out = record
        out["type"] = .string("mnemonic")
        let sources = ["entropy", "dice", "coins"].filter { record[$0] != nil }
        guard sources.count == 1 else {
            if sources.isEmpty { throw RecordError.missingField("entropy", expected: "hex entropy, or a \"dice\" or \"coins\" field") }
            throw RecordError.conflictingFields(sources)
        }
        let entropy: SecureBytes
        switch sources[0] {
        case "entropy":
            entropy = try Hex.decodeSecret(record.string("entropy", expected: "hex"))
        case let kind:
            let (bytes, used) = try UserEntropy.bytes(
                from: record.string(kind, expected: "a string of \(kind)"),
                kind: kind == "dice" ? .dice : .coins, byteCount: byteCount)
            entropy = bytes
            out["entropy"] = .string(bytes.hex)
            out[kind == "dice" ? "dice_rolls_used" : "coin_flips_used"] = .number(String(used))
        }
        let mnemonic = try handler.mnemonic(fromEntropy: entropy, language: language)
        out["scheme"] = .string(mnemonic.scheme.rawValue)
        out["language"] = .string(mnemonic.language)
        out["mnemonic"] = .string(mnemonic.phrase)
        // One repeated byte, or dice/coins that all came up the same: a phrase anyone
        // can guess. Made anyway (test vectors are like that), but said loudly.
        let rolls = try sources[0] == "entropy" ? nil : record.string(sources[0], expected: "a string").filter { !$0.isWhitespace }
        if Set(entropy.bytes).count == 1 || (rolls.map { Set($0).count == 1 } ?? false) {
            let why = rolls != nil ? "every \(sources[0] == "dice" ? "roll" : "flip") is the same" : "the entropy is one repeated byte"
            out["warning"] = .string("weak entropy: \(why); anyone can find this phrase, never fund it")
            try? OutputStream.standardError.write("mnemonic: warning: weak entropy (\(why)): never fund this phrase\n")
        }
        return out
    }

    /// Asks for three words at random positions, echo off, on /dev/tty.
    public static func confirmWords(_ mnemonic: Mnemonic) throws {
        var positions = Set<Int>()
        while positions.count < 3 { positions.insert(Int(Sodium.randomUniform(UInt32(mnemonic.words.count)))) }
        for position in positions.sorted() {
            let typed = try SecretInput.read(.prompt(label: "Word \(position + 1) of your written copy: ", confirm: false))
            let words = PhraseText.words(String(decoding: typed.bytes, as: UTF8.self))
            let list = mnemonic.scheme == .monero ? MoneroSeed.wordlist : BIP39.wordlist(mnemonic.language)!
            guard words.count == 1, list.lookup(words[0]) == mnemonic.indices[position] else {
                throw ConfirmationError.wordMismatch(position: position + 1)
            }
        }
    }
}

/// A written copy that does not match the phrase. The entry stays stored: the phrase is right,
/// the paper copy is what needs checking.
public enum ConfirmationError: WalletError {
    case wordMismatch(position: Int)
    public var code: String { "mnemonic.confirmation_failed" }
    public var message: String {
        if case .wordMismatch(let p) = self {
            return "word \(p) does not match: check your written copy (the entry is stored; nothing was lost)"
        }
        return ""
    }
}
