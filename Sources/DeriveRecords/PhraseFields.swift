import WalletCore

/// What a record says of its seed phrase (`mnemonic`'s fields): derive consumes the phrase and
/// leaves these behind with it, so that its records are the same whatever carried the key —
/// a bare phrase, a {"mnemonic"} record, or `mnemonic generate`'s whole record.
public enum PhraseFields {
    public static let names: Set<String> = ["scheme", "language", "words", "valid"]

    public static func removed(from record: JSONObject) -> JSONObject {
        var out = record
        for key in record.keys where names.contains(key) { out[key] = nil }
        return out
    }
}
