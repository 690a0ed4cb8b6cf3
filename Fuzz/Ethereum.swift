import Ethereum
import WalletCore

/// Ethereum: RLP (canonical only) and the JSON of transactions and EIP-712 typed data.
enum EthereumTargets {
    static let all = [
        FuzzTarget(name: "rlp", covers: "RLP, canonical form only", run: rlp),
        FuzzTarget(name: "eip712", covers: "EIP-712 typed data (JSON) to its hash", run: eip712),
        FuzzTarget(name: "eth-tx", covers: "transaction records (legacy, EIP-2930, EIP-1559) to their signing hash", run: transaction),
    ]

    /// Only canonical RLP is read, so what is read writes back as the very bytes.
    static func rlp(_ bytes: [UInt8]) {
        guard let item = try? RLP.decode(bytes) else { return }
        holds(RLP.encode(item) == bytes, "RLP read a non-canonical encoding")
    }

    static func eip712(_ bytes: [UInt8]) {
        guard let object = try? JSONParser.parseObject(bytes), let typed = try? TypedData(json: object) else { return }
        holds(typed.hash.count == 32, "a typed-data hash is not 32 bytes")
        holds((try? TypedData(json: object))?.hash == typed.hash, "one typed-data record hashed twice gave two hashes")
    }

    static func transaction(_ bytes: [UInt8]) {
        guard let object = try? JSONParser.parseObject(bytes), let tx = try? EthereumTransaction(json: object) else { return }
        holds(tx.signingHash.count == 32, "a signing hash is not 32 bytes")
    }
}
