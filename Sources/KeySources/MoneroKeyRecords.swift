import Monero
import WalletCore
import WalletKeyStore
import WalletKeys
import WalletRecords

extension RecordKeys {
    /// A record's Monero spend key, or view key with the public spend key or the address; nil
    /// when it has neither.
    func moneroKeys(_ record: JSONObject, out: inout JSONObject) throws -> MoneroKeys? {
        // Monero keys, under the names this tool and monero-wallet-rpc's query_key use.
        if let field = ["spend_key", "private_spend_key"].first(where: { record[$0] != nil }) {
            return try MoneroKeys(spendSecret: try Hex.decodeSecret(record.string(field, expected: "hex")))
        }
        if let field = ["view_key", "private_view_key"].first(where: { record[$0] != nil }) {
            let view = try Hex.decodeSecret(record.string(field, expected: "hex"))
            // The wallet's address under the names derive account and monero-wallet-rpc use.
            if let text = try record.optionalString("primary_address") ?? record.optionalString("address") {
                let address = try MoneroAddress(parsing: text)
                let keys = try MoneroKeys(viewSecret: view, address: address, network: moneroNetwork)
                if let spendPublic = try record.optionalString("public_spend_key"), try Hex.decode(spendPublic) != keys.spendPublic {
                    throw DerivationError.invalidMoneroKey("public_spend_key is not the address's public spend key")
                }
                if let id = address.paymentID {
                    if let given = try record.optionalString("payment_id"), given.lowercased() != Hex.encode(id) {
                        throw DerivationError.invalidMoneroKey("payment_id differs from the integrated address's")
                    }
                    out["payment_id"] = .string(Hex.encode(id))
                }
                return keys
            }
            if let spendPublic = try record.optionalString("public_spend_key") {
                return try MoneroKeys(viewSecret: view, spendPublic: try Hex.decode(spendPublic))
            }
            throw RecordError.missingField("public_spend_key", expected: "the public spend key (or the \"address\") beside a view key")
        }
        return nil
    }
}

extension KeyStoreRecords {
    /// A view-only Monero entry's secret (the private view key, then the public spend key) from
    /// a record with a view key; nil when it has none.
    static func moneroViewEntry(_ record: JSONObject) throws -> SecureBytes? {
        guard ["view_key", "private_view_key"].contains(where: { record[$0] != nil }) else { return nil }
        // The same reading (and checks of an address against the view key) as the tools'.
        var scratch = record
        let reader = RecordKeys(coin: Chain.monero.rawValue, accountPath: nil, sharedPassphrase: nil)
        guard let keys = try reader.source(record, out: &scratch).chainKey(MoneroKeys.self) else {
            throw KeyStoreError.unsupportedEntry("a view key record must be a Monero view-only wallet")
        }
        return SecureBytes(keys.viewSecret.bytes + keys.spendPublic)
    }
}
