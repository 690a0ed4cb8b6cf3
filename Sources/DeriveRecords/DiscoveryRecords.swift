import Foundation
import WalletCore
import WalletKeys
import WalletRecords
import KeySources
import WalletCardCLI

/// `derive discover`: BIP44 account discovery from a master key against a set of used
/// addresses, as records — one per used account and a final "discovery" record.
public struct DiscoveryRequest {
    public var chainOptions: ChainOptions
    public var discovery: AccountDiscovery
    /// Addresses known to have history, normalized (`UsedAddresses.normalized`).
    public var used: Set<String>

    public init(chainOptions: ChainOptions, discovery: AccountDiscovery, used: Set<String>) {
        self.chainOptions = chainOptions
        self.discovery = discovery
        self.used = used
    }

    /// The records of one input record, from its key or the run's (a key-store entry's, or a
    /// card's stand-in master with the card beside it).
    public func accounts(_ record: JSONObject, keys: DeriveKeys, emit: (JSONObject) throws(CLIError) -> Void) throws {
        var base = record
        let source = try keys.key(of: record, out: &base), device = keys.device
        base = PhraseFields.removed(from: SecretFields.removed(from: base))
        guard case .bip32(let key, _, let fromSeed) = source, fromSeed else {
            throw DerivationError.unsupported("discovery walks accounts from the master key: give a phrase, a seed, --wallet or --card")
        }
        let plan = try chainOptions.plan(key, fromSeed: true)
        let standard: ExtendedKeyVersion = plan.chain.testnet ? .tpub : .xpub
        let next = try discovery.run(
            plan, node: { path in try device?.node(at: path.components) ?? key.derive(path.components) },
            isUsed: { _, _, publicKey in
                used.contains(UsedAddresses.normalized(try plan.chain.address(for: publicKey, script: plan.script).address))
            }
        ) { account in
            var out = base
            out["type"] = .string("account")
            out["coin"] = .string(plan.chain.coin)
            out["script"] = .string(plan.script.rawValue)
            out["account"] = .number(String(account.number))
            out["path"] = .string(account.path.description)
            out["xpub"] = .string(account.node.neutered.serialized(version: standard))
            out["used_receive"] = .number(String(account.receive.used))
            out["next_receive_index"] = .number(String(account.receive.nextUnused))
            out["used_change"] = .number(String(account.change.used))
            out["next_change_index"] = .number(String(account.change.nextUnused))
            try emit(out)
        }
        var summary = base
        summary["type"] = .string("discovery")
        summary["accounts_used"] = .number(String(next))
        summary["next_account"] = .number(String(next))
        summary["gap"] = .number(String(discovery.gap))
        try emit(summary)
    }
}

/// The used addresses `derive discover --used` reads.
public enum UsedAddresses {
    /// Hex (EIP-55) and bech32 addresses are case-insensitive (bech32 comes all upper case
    /// from QR codes); base58 is not, and compares exactly.
    public static func normalized(_ address: String) -> String {
        address.hasPrefix("0x") || address.hasPrefix("0X") || address == address.uppercased() ? address.lowercased() : address
    }

    /// One address per line, or JSON records with an "address" field (derive's or
    /// scan-blocks' output); blank lines are skipped.
    public static func read(_ path: String) throws -> Set<String> {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CLIError.cannotOpen(path: path, reason: "cannot read it")
        }
        return try parse(text)
    }

    public static func parse(_ text: String) throws -> Set<String> {
        var out = Set<String>()
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            if trimmed.hasPrefix("{") {
                if let address = try JSONParser.parseRecord(Array(trimmed.utf8))["address"]?.stringValue { out.insert(normalized(address)) }
            } else {
                out.insert(normalized(trimmed))
            }
        }
        return out
    }
}
