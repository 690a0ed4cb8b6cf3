import KeySources
import Monero
import WalletCore
import WalletKeys
import WalletRecords

/// Monero's derivation: a seed's or keys' primary address and keys, and subaddresses
/// (--account is the major index, --index/--count the minor ones).
enum MoneroDerive: DeriveChain {
    static func owns(_ source: KeySource) -> Bool { source.chainKey(MoneroKeys.self) != nil }

    static func account(_ request: AccountRequest, record: JSONObject, keys: DeriveKeys, read: ReadKey?) throws -> JSONObject {
        guard let read, let wallet = read.source.chainKey(MoneroKeys.self) else { preconditionFailure("not Monero keys") }
        let chainOptions = request.chainOptions
        var out = read.rest
        if let coin = chainOptions.coin, Chain(code: coin) != .monero {
            throw DerivationError.unsupported("the input is a Monero seed or keys; use --coin xmr")
        }
        let network = try chainOptions.moneroNetwork()
        out["coin"] = .string(Chain.monero.rawValue)
        out["network"] = .string(network.name)
        out["primary_address"] = .string(wallet.primaryAddress(network))
        out["public_spend_key"] = .string(Hex.encode(wallet.spendPublic))
        out["public_view_key"] = .string(Hex.encode(wallet.viewPublic))
        if request.viewOnly || chainOptions.private { out["private_view_key"] = .string(wallet.viewSecret.hex) }
        if chainOptions.private, let spend = wallet.spendSecret { out["private_spend_key"] = .string(spend.hex) }
        return out
    }

    static func addresses(
        _ request: AddressRequest, record: JSONObject, keys: DeriveKeys, read: ReadKey?,
        emit: (JSONObject) throws(CLIError) -> Void
    ) throws {
        guard let read, let wallet = read.source.chainKey(MoneroKeys.self) else { preconditionFailure("not Monero keys") }
        try request.moneroAddresses(wallet, base: read.rest, record: record, emit: emit)
    }
}

extension AddressRequest {
    func moneroAddresses(
        _ wallet: MoneroKeys, base: JSONObject, record: JSONObject,
        emit: (JSONObject) throws(CLIError) -> Void
    ) throws {
        if let coin = chainOptions.coin, Chain(code: coin) != .monero {
            throw DerivationError.unsupported("the input is a Monero seed or keys; use --coin xmr")
        }
        guard path == nil else {
            throw DerivationError.unsupported("Monero has no BIP32 paths; use --account (major) and --index/--count (minor)")
        }
        let network = try chainOptions.moneroNetwork()
        let paymentID = try paymentId ?? base.optionalString("payment_id")
        for minor in index..<(index + count) {
            let sub = try wallet.subaddress(major: chainOptions.account, minor: minor, network)
            var out = base
            out["type"] = .string("address")
            out["coin"] = .string(Chain.monero.rawValue)
            out["network"] = .string(network.name)
            out["major"] = .number(String(chainOptions.account))
            out["minor"] = .number(String(minor))
            out["address"] = .string(sub.address)
            out["public_spend_key"] = .string(Hex.encode(sub.spendPublic))
            out["public_view_key"] = .string(Hex.encode(sub.viewPublic))
            if let paymentID, chainOptions.account == 0, minor == 0 {
                out["payment_id"] = .string(paymentID)
                out["integrated_address"] = .string(try wallet.integratedAddress(network, paymentID: try Hex.decode(paymentID)))
            }
            try emit(out)
        }
    }
}

extension ChainOptions {
    public func moneroNetwork() throws -> MoneroNetwork {
        switch NetworkName.canonical(network ?? "main") {
        case "main": return .mainnet
        case "test": return .testnet
        case "stagenet": return .stagenet
        case let other: throw DerivationError.unsupported("Monero has no network '\(other)'; use main, test or stagenet")
        }
    }
}
