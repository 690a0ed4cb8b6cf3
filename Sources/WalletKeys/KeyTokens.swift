/// Where a key typed or pasted alone, without its record field, goes: the field its prefix
/// names. The record runtime reads lone keys by this table and knows no chain; a chain whose
/// keys are one token adds its rows here.
public enum KeyTokens {
    /// Zcash's viewing keys (ZIP 316 unified ones, and Sapling's ZIP 32 ones) by HRP prefix.
    public static let zcashViewingKeys: [(prefix: String, field: String)] = [
        ("uview", "ufvk"), ("uivk", "uivk"), ("zxview", "extended_full_viewing_key"),
    ]

    /// The record field of a lone key, from its prefix (a viewing key's in either case, as
    /// Bech32m allows); nil when the token is no key.
    public static func field(of token: String) -> String? {
        let lower = token.lowercased()
        if let row = zcashViewingKeys.first(where: { lower.hasPrefix($0.prefix) }) { return row.field }
        if token.count > 4, ExtendedKeyVersion.prefixes.contains(String(token.prefix(4))) { return "extended_key" }
        return nil
    }
}
