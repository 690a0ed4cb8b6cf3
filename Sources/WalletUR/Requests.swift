import WalletCore

/// crypto-psbt (tag 310) and its 2024 rename psbt (40310): a CBOR byte string holding the PSBT.
public enum PSBTPayload {
    /// What Sparrow, Keystone and Jade read today.
    public static let defaultType = "crypto-psbt"

    public static func ur(_ psbt: [UInt8], type: String = defaultType) throws(URError) -> UR {
        guard type == "crypto-psbt" || type == "psbt" else { throw .unsupported("a PSBT is written as ur:crypto-psbt or ur:psbt") }
        return try UR(type: type, cbor: CBOR.bytes(psbt).encoded)
    }

    /// The PSBT's bytes; the byte string tagged or not, as wallets disagree, but under its own
    /// generation's tag when tagged (the UR's type names the generation).
    public static func psbt(from ur: UR) throws(URError) -> [UInt8] {
        guard ur.type == "crypto-psbt" || ur.type == "psbt" else { throw .unsupported("a ur:\(ur.type) is not a PSBT") }
        var item = try CBOR(decoding: ur.cbor)
        if case .tagged(let tag, let inner) = item {
            let own = (ur.type == "psbt" ? RegistryGeneration.v2 : .v1).tag(RegistryGeneration.psbt)
            guard tag == own else { throw .unsupported("a PSBT under tag \(tag): a ur:\(ur.type) carries tag \(own) (or none)") }
            item = inner
        }
        guard case .bytes(let bytes) = item else {
            throw .unsupported("a ur:\(ur.type) whose item is not a byte string")
        }
        return bytes
    }
}

/// Keystone's eth-sign-request (EIP-4527; Keystone's registry type 401): what MetaMask and
/// other wallets ask a QR signer to sign.
public struct EthSignRequest: Equatable, Sendable {
    public enum DataType: UInt64, Sendable {
        /// An RLP legacy transaction (EIP-155 when a chain id is in it).
        case legacyTransaction = 1
        /// EIP-712 typed data, its JSON's bytes.
        case typedData = 2
        /// An EIP-191 personal message.
        case personalMessage = 3
        /// An EIP-2718 typed transaction (0x01 ‖ rlp, 0x02 ‖ rlp), unsigned.
        case typedTransaction = 4
    }

    /// 16 bytes (a UUID, tag 37) that the signature carries back.
    public var requestId: [UInt8]?
    public var signData: [UInt8]
    public var dataType: DataType
    public var chainId: UInt64?
    public var path: KeyPath
    /// The 20-byte account the wallet expects to sign.
    public var address: [UInt8]?
    public var origin: String?

    public init(
        requestId: [UInt8]?, signData: [UInt8], dataType: DataType, chainId: UInt64?, path: KeyPath, address: [UInt8]?, origin: String?
    ) {
        (self.requestId, self.signData, self.dataType, self.chainId) = (requestId, signData, dataType, chainId)
        (self.path, self.address, self.origin) = (path, address, origin)
    }

    public func ur() throws(URError) -> UR {
        var pairs: [(CBOR, CBOR)] = []
        if let requestId { pairs.append((.unsigned(1), .tagged(37, .bytes(requestId)))) }
        pairs.append((.unsigned(2), .bytes(signData)))
        pairs.append((.unsigned(3), .unsigned(dataType.rawValue)))
        if let chainId { pairs.append((.unsigned(4), .unsigned(chainId))) }
        pairs.append((.unsigned(5), .tagged(RegistryGeneration.keypath, path.cbor)))
        if let address { pairs.append((.unsigned(6), .bytes(address))) }
        if let origin { pairs.append((.unsigned(7), .text(origin))) }
        return try UR(type: "eth-sign-request", cbor: CBOR.map(pairs).encoded)
    }

    public init(ur: UR) throws(URError) {
        guard ur.type == "eth-sign-request" else { throw .unsupported("a ur:\(ur.type) is not an eth-sign-request") }
        let f = try CBOR(decoding: ur.cbor).fields(Set(1...7), what: "an eth-sign-request")
        guard case .bytes(let data)? = f[2] else { throw .unsupported("an eth-sign-request without sign-data") }
        guard case .unsigned(let t)? = f[3], let type = DataType(rawValue: t) else {
            throw .unsupported("an eth-sign-request whose data type is not 1-4 (legacy, typed data, personal message, typed transaction)")
        }
        guard let p = f[5] else { throw .unsupported("an eth-sign-request without a derivation path") }
        path = try KeyPath(cbor: try p.untag(RegistryGeneration.keypath, what: "a derivation path"))
        signData = data
        dataType = type
        if let r = f[1] {
            guard case .tagged(37, .bytes(let id)) = r, id.count == 16 else { throw .unsupported("a request id that is not a tagged UUID") }
            requestId = id
        }
        if let c = f[4] {
            guard case .unsigned(let id) = c else { throw .unsupported("a chain id that is not a positive integer") }
            chainId = id
        }
        if let a = f[6] {
            guard case .bytes(let addr) = a, addr.count == 20 else { throw .unsupported("an address that is not 20 bytes") }
            address = addr
        }
        if let o = f[7] {
            guard case .text(let text) = o else { throw .unsupported("an eth-sign-request whose origin is not text") }
            origin = text
        }
    }
}

/// eth-signature (Keystone's type 402): r ‖ s ‖ v, with the request's id.
public struct EthSignature: Equatable, Sendable {
    public var requestId: [UInt8]?
    public var signature: [UInt8]
    public var origin: String?

    public init(requestId: [UInt8]?, signature: [UInt8], origin: String? = nil) {
        (self.requestId, self.signature, self.origin) = (requestId, signature, origin)
    }

    public func ur() throws(URError) -> UR {
        var pairs: [(CBOR, CBOR)] = []
        if let requestId { pairs.append((.unsigned(1), .tagged(37, .bytes(requestId)))) }
        pairs.append((.unsigned(2), .bytes(signature)))
        if let origin { pairs.append((.unsigned(3), .text(origin))) }
        return try UR(type: "eth-signature", cbor: CBOR.map(pairs).encoded)
    }

    public init(ur: UR) throws(URError) {
        guard ur.type == "eth-signature" else { throw .unsupported("a ur:\(ur.type) is not an eth-signature") }
        let f = try CBOR(decoding: ur.cbor).fields([1, 2, 3], what: "an eth-signature")
        guard case .bytes(let sig)? = f[2], sig.count >= 65 else { throw .unsupported("an eth-signature without r, s and v") }
        signature = sig
        if case .tagged(37, .bytes(let id))? = f[1] { requestId = id }
        if case .text(let o)? = f[3] { origin = o }
    }
}
