import Ethereum
import WalletCore
import WalletUR

/// The QR transports: UR texts and their assembly, deterministic CBOR, the registry items a
/// signer reads, BBQr sets, and the unsigned Ethereum transactions an eth-sign-request carries.
enum QRTargets {
    static let all = [
        FuzzTarget(name: "cbor", covers: "CBOR, the deterministic form only", run: cbor),
        FuzzTarget(name: "ur", covers: "UR texts (lines) and their multipart assembly", run: ur),
        FuzzTarget(
            name: "ur-registry", covers: "registry items: psbt, hdkey, output, account, eth-sign-request, eth-signature", run: registry),
        FuzzTarget(name: "bbqr", covers: "BBQr parts (lines), H, 2 and Z", run: bbqr),
        FuzzTarget(name: "eth-unsigned", covers: "unsigned Ethereum transactions (RLP) to records", run: ethUnsigned),
    ]

    /// Only the deterministic form is read, so what is read writes back as the very bytes.
    static func cbor(_ bytes: [UInt8]) {
        guard let item = try? CBOR(decoding: bytes) else { return }
        holds(item.encoded == bytes, "CBOR read a form it does not write")
    }

    static func ur(_ bytes: [UInt8]) {
        var decoder = URDecoder()
        for line in text(bytes).split(separator: "\n") {
            if case .single(let single)? = try? URText(String(line)) {
                holds(single.text == line.lowercased(), "a single-part UR does not write back as its text")
            }
            try? decoder.receive(String(line))
        }
        if let result = decoder.result { holds(UR.isUR(result.text), "an assembled UR does not write as a UR") }
    }

    static func registry(_ bytes: [UInt8]) {
        let (selector, body) = split(bytes)
        let types = [
            "crypto-psbt", "psbt", "crypto-hdkey", "hdkey", "crypto-output", "output-descriptor", "crypto-account", "account-descriptor",
            "eth-sign-request", "eth-signature",
        ]
        guard let ur = try? UR(type: types[Int(selector) % types.count], cbor: body) else { return }
        switch ur.type {
        case "crypto-psbt", "psbt": _ = try? PSBTPayload.psbt(from: ur)
        case "crypto-hdkey", "hdkey": _ = (try? HDKey(ur: ur))?.extendedKeyText
        case "crypto-output": _ = (try? OutputDescriptor(ur: ur))?.text
        case "output-descriptor": _ = (try? TextOutputDescriptor(ur: ur))?.text
        case "crypto-account", "account-descriptor": _ = try? Account(ur: ur)
        case "eth-sign-request":
            if let request = try? EthSignRequest(ur: ur) {
                holds((try? EthSignRequest(ur: try request.ur())) == request, "a request rewritten reads differently")
            }
        default: _ = try? EthSignature(ur: ur)
        }
    }

    static func bbqr(_ bytes: [UInt8]) {
        var joiner = BBQrJoiner()
        for line in text(bytes).split(separator: "\n") { try? joiner.receive(String(line)) }
        if let result = joiner.result { holds(result.count <= FountainDecoder.maxMessageLength, "a BBQr set past the bound") }
    }

    /// What reads back into a transaction writes as the very bytes it came from.
    static func ethUnsigned(_ bytes: [UInt8]) {
        guard let json = try? EthereumTransaction.json(unsigned: bytes), let tx = try? EthereumTransaction(json: json) else { return }
        holds(tx.unsignedBytes == bytes, "an unsigned transaction read back to other bytes")
    }
}
