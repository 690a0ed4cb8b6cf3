import Ethereum
import WalletCore
import WalletKeys
import WalletRecords
import SigningRecords
import WalletUR
import WalletCrypto

/// Keystone's eth-sign-request (EIP-4527) as sign-tx signs it: the request turned into the
/// record sign-tx signs anyway — so the same summary comes first — and the signed record into
/// the eth-signature that MetaMask and other QR wallets read.
public enum EthereumQR {
    /// The record of a request: eth_tx (data types 1 and 4, read back and compared byte for
    /// byte with what was asked), message_hex (3) or typed_data (2), with the request's path.
    /// A request for another master key (its source fingerprint) or another account (its
    /// address), or whose chain id disagrees with its transaction's, is refused before anything
    /// is signed.
    public static func record(_ request: EthSignRequest, keys: SecpKeySource) throws -> JSONObject {
        guard let indexes = request.path.indexes else {
            throw URError.unsupported("an eth-sign-request whose path has wildcards or ranges")
        }
        // No wallet signs with its master key: a request for it (path m) is refused, with or
        // without an address.
        guard !indexes.isEmpty else {
            throw URError.unsupported("an eth-sign-request for the master key itself (path m): no account signs with it")
        }
        let path = DerivationPath(indexes).description
        if let wanted = request.path.sourceFingerprint {
            let master = try keys.publicKey(at: "m").key
            let ours = Array(Hash.hash160(master.compressed).prefix(4))
            guard ours.reduce(UInt32(0), { $0 << 8 | UInt32($1) }) == wanted else {
                throw URError.unsupported(
                    "the request is for the key with master fingerprint \(Hex.encode(Bytewords.bigEndian(wanted))), not this one (\(Hex.encode(ours)))"
                )
            }
        }
        if let address = request.address {
            let from = EthereumRecords.address(try keys.publicKey(at: path).key)
            guard from.lowercased() == "0x" + Hex.encode(address) else {
                throw URError.unsupported("the request is for account 0x\(Hex.encode(address)); its path \(path) gives \(from)")
            }
        }
        var record = JSONObject()
        switch request.dataType {
        case .legacyTransaction, .typedTransaction:
            let json = try EthereumTransaction.json(unsigned: request.signData)
            let tx = try EthereumTransaction(json: json)
            guard tx.unsignedBytes == request.signData else {
                throw URError.unsupported("the request's transaction does not read back to the same bytes; it is not signed")
            }
            guard (tx.kind == .legacy) == (request.dataType == .legacyTransaction) else {
                throw URError.unsupported("the request's data type does not match its transaction's type")
            }
            if let chain = request.chainId, chain != tx.chainID {
                throw URError.unsupported("the request says chain \(chain), its transaction chain \(tx.chainID)")
            }
            record["eth_tx"] = .object(json)
        case .personalMessage:
            record["message_hex"] = .string("0x" + Hex.encode(request.signData))
        case .typedData:
            let json: JSONObject
            do { json = try JSONParser.parseObject(request.signData) } catch {
                throw URError.unsupported("the request's typed data is not a JSON object (\(error.reason) at byte \(error.offset))")
            }
            // The domain's chainId is what the signature binds; the request's must agree.
            if let chain = request.chainId, case .object(let domain)? = json["domain"], let given = domain["chainId"] {
                let domainChain: UInt64? =
                    switch given {
                    case .number(let n): UInt64(n)
                    case .string(let t): t.hasPrefix("0x") ? UInt64(t.dropFirst(2), radix: 16) : UInt64(t)
                    default: nil
                    }
                guard domainChain == chain else {
                    var text: [UInt8] = []
                    JSONWriter.serialize(given, into: &text)
                    throw URError.unsupported(
                        "the request says chain \(chain), its typed data's domain chainId \(String(decoding: text, as: UTF8.self)): not signed"
                    )
                }
            }
            record["typed_data"] = .object(json)
        }
        record["path"] = .string(path)
        return record
    }

    /// r ‖ s ‖ v as the wallets read it: EIP-155's v for a legacy transaction, the y parity for
    /// a typed one, 27 or 28 for messages and typed data — the v of the signed record.
    public static func signature(_ signed: JSONObject, request: EthSignRequest) throws -> UR {
        var bytes: [UInt8]
        if let r = signed["r"]?.stringValue, let s = signed["s"]?.stringValue, case .number(let v)? = signed["eth_v"] {
            guard let vNumber = UInt64(v) else { throw URError.unsupported("a v past 2^64") }
            bytes = try Hex.decode(String(r.dropFirst(2))) + Hex.decode(String(s.dropFirst(2)))
            // v's big-endian bytes without leading zeros (one byte at least): EIP-155's v of a
            // large chain id takes several.
            let v = UInt256(vNumber).minimalBytes
            bytes += v.isEmpty ? [0] : v
        } else if let sig = signed["signature"]?.stringValue {
            bytes = try Hex.decode(String(sig.dropFirst(2)))
        } else {
            throw URError.unsupported("nothing signed to answer with")
        }
        return try EthSignature(requestId: request.requestId, signature: bytes).ur()
    }
}
