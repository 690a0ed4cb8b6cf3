import WalletCore
import WalletKeys
import WalletCrypto

/// BIP392's `sp()` descriptor: a silent payment receiver's keys as one text, at the revision
/// of bitcoin/bips bip-0392.mediawiki in commit 41f99576 (Draft; its test vectors are "TBD").
///
/// Written: `sp([origin]spscan1q…)` (ser256(b_scan) ‖ serP(B_spend): watch-only) and
/// `sp([origin]spspend1q…)` (ser256(b_scan) ‖ ser256(b_spend)), bech32m, `tspscan`/`tspspend`
/// on every test network. Read: those, and the two-key form `sp(SCAN,SPEND)` whose scan key is
/// a compressed WIF key or an xprv (with an origin and steps below it) and whose spend key is a
/// compressed public key in hex, a WIF key, an xpub or an xprv. `musig()` spend keys are not
/// read. Every form holds the scan private key: the text is a secret, and no error quotes it.
///
/// Encoding and decoding (bech32m, the BIP380 checksum) are not constant-time in the key, as
/// WIF and hex exports are not: they run once per export or import, never per block.
public struct SilentPaymentDescriptor: Sendable {
    public let keys: SilentPaymentKeys
    public let testnet: Bool
    /// The master fingerprint and the path to the depth the keys' `1h/0` (scan) and `0h/0`
    /// (spend) are below, when known.
    public let origin: (fingerprint: [UInt8], path: DerivationPath)?

    public init(keys: SilentPaymentKeys, testnet: Bool, origin: (fingerprint: [UInt8], path: DerivationPath)?) {
        (self.keys, self.testnet, self.origin) = (keys, testnet, origin)
    }

    /// Whether a text is meant as an `sp()` descriptor, at the top level or (wrongly) inside
    /// another, so a reader routes it here and keeps it from anything that quotes descriptors.
    public static func isClaimed(_ text: String) -> Bool { text.contains("sp(") }

    private static func hrp(spend: Bool, testnet: Bool) -> String { (testnet ? "t" : "") + (spend ? "spspend" : "spscan") }

    /// The descriptor with its checksum: `spend` writes spspend (both private keys), else spscan.
    public func text(spend: Bool) throws(SilentPaymentError) -> String {
        var payload: [UInt8] = []
        payload.reserveCapacity(65)  // no reallocation leaves a copy of the key behind
        defer { SecureBytes.wipe(&payload) }
        keys.scanPrivateKey.withUnsafeBytes { payload.append(contentsOf: $0) }
        if spend {
            guard let spendKey = keys.spendPrivateKey else {
                throw .invalidKey("spspend needs the spend private key; the keys are watch-only")
            }
            spendKey.withUnsafeBytes { payload.append(contentsOf: $0) }
        } else {
            payload += keys.spendPublicKey.compressed
        }
        var data: [UInt8]
        do { data = [0] + (try Bech32.convertBits(payload, from: 8, to: 5, pad: true)) } catch {
            throw .invalidKey("the keys do not encode")
        }
        defer { SecureBytes.wipe(&data) }
        var key = Bech32.encode(hrp: Self.hrp(spend: spend, testnet: testnet), data: data, variant: .bech32m)
        if let origin { key = "[" + Hex.encode(origin.fingerprint) + origin.path.description.dropFirst() + "]" + key }
        guard let text = Descriptor.withChecksum("sp(" + key + ")") else { throw .invalidKey("the descriptor has no checksum") }
        return text
    }

    /// Reads a descriptor; a `#checksum` is checked when present.
    public init(parsing given: String) throws(SilentPaymentError) {
        func refuse(_ why: String) -> SilentPaymentError { .invalidDescriptor(why) }
        guard let text = Descriptor.strippingChecksum(given) else { throw refuse("its checksum is wrong (a character was mistyped)") }
        guard text.hasPrefix("sp("), text.hasSuffix(")") else {
            throw refuse("BIP392's descriptor is sp(KEY) or sp(SCAN,SPEND), and only at the top level")
        }
        guard text.count > 4 else { throw refuse("sp() needs a key: an spscan or spspend key, or a scan key and a spend key") }
        let arguments = Self.split(text.dropFirst(3).dropLast())
        switch arguments.count {
        case 1:
            var key = arguments[0]
            let origin = try Self.origin(&key)
            let (keys, testnet) = try Self.encodedKey(key)
            self.init(keys: keys, testnet: testnet, origin: origin)
        case 2:
            var scanText = arguments[0]
            let origin = try Self.origin(&scanText)
            let scan = try Self.keyExpression(scanText, role: "scan")
            guard let scanKey = scan.privateKey else {
                throw refuse("the two-key form's first key is the scan key, and it must be private (WIF or xprv)")
            }
            var spendText = arguments[1]
            _ = try Self.origin(&spendText)
            guard !spendText.hasPrefix("musig(") else { throw refuse("a musig() spend key is not supported here") }
            let spend = try Self.keyExpression(spendText, role: "spend")
            if let a = scan.testnet, let b = spend.testnet, a != b { throw refuse("its scan and spend keys are for different networks") }
            let keys = try SilentPaymentKeys(scanPrivateKey: scanKey, spendPublicKey: spend.publicKey, spendPrivateKey: spend.privateKey)
            self.init(keys: keys, testnet: scan.testnet ?? spend.testnet ?? false, origin: origin)
        default:
            throw refuse("sp() takes one key (spscan or spspend) or two (scan, spend), not \(arguments.count)")
        }
    }

    /// The arguments, split at the commas outside parentheses and brackets.
    private static func split(_ inner: Substring) -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var start = inner.startIndex
        for index in inner.indices {
            switch inner[index] {
            case "(", "[": depth += 1
            case ")", "]": depth -= 1
            case "," where depth == 0:
                parts.append(inner[start..<index])
                start = inner.index(after: index)
            default: break
            }
        }
        parts.append(inner[start...])
        return parts
    }

    private static func origin(_ key: inout Substring) throws(SilentPaymentError) -> (fingerprint: [UInt8], path: DerivationPath)? {
        do {
            guard let found = try Descriptor.origin(key) else { return nil }
            key = found.rest
            return (found.fingerprint, found.path)
        } catch {
            switch error {
            case .noClose: throw .invalidDescriptor("its key origin has no ]")
            case .fingerprint: throw .invalidDescriptor("a key origin starts with the 4-byte master fingerprint in hex")
            case .path: throw .invalidDescriptor("its key origin's path is not a derivation path")
            }
        }
    }

    /// spscan1q… or spspend1q… (t… on test networks): version 0 only.
    private static func encodedKey(_ key: Substring) throws(SilentPaymentError) -> (SilentPaymentKeys, testnet: Bool) {
        let prefixes = ["spscan", "tspscan", "spspend", "tspspend"]
        let lower = key.lowercased()
        guard let separator = lower.lastIndex(of: "1"), prefixes.contains(String(lower[..<separator])) else {
            throw .invalidDescriptor("sp(KEY) takes an spscan or spspend key (tspscan or tspspend on test networks)")
        }
        let decoded: (hrp: String, data: [UInt8], variant: Bech32.Variant)
        do { decoded = try Bech32.decode(String(key), maxLength: 1023) } catch {
            throw .invalidDescriptor("its key is not bech32m: \(error.message)")
        }
        var data = decoded.data
        defer { SecureBytes.wipe(&data) }
        guard decoded.variant == .bech32m else { throw .invalidDescriptor("its key has a bech32 checksum where bech32m is required") }
        let spend: Bool
        let testnet: Bool
        switch decoded.hrp {
        case "spscan": (spend, testnet) = (false, false)
        case "tspscan": (spend, testnet) = (false, true)
        case "spspend": (spend, testnet) = (true, false)
        case "tspspend": (spend, testnet) = (true, true)
        default: throw .invalidDescriptor("sp(KEY) takes an spscan or spspend key (tspscan or tspspend on test networks)")
        }
        guard data.first == 0 else { throw .invalidDescriptor("its key is not version 0 (q), the only one BIP392 defines") }
        var payload: [UInt8]
        do { payload = try Bech32.convertBits(Array(data.dropFirst()), from: 5, to: 8, pad: false) } catch {
            throw .invalidDescriptor("its key's data is not whole bytes")
        }
        defer { SecureBytes.wipe(&payload) }
        guard payload.count == (spend ? 64 : 65) else {
            throw .invalidDescriptor("an \(decoded.hrp) key holds \(spend ? 64 : 65) bytes, not \(payload.count)")
        }
        let scanKey = SecureBytes(payload[0..<32])
        if spend {
            let spendKey = SecureBytes(payload[32..<64])
            let spendPublic: Secp256k1.PublicKey
            do { spendPublic = try Secp256k1.publicKey(of: spendKey) } catch {
                throw .invalidDescriptor("its spend private key is zero or not below the group order")
            }
            return (try SilentPaymentKeys(scanPrivateKey: scanKey, spendPublicKey: spendPublic, spendPrivateKey: spendKey), testnet)
        }
        let spendPublic: Secp256k1.PublicKey
        do { spendPublic = try Secp256k1.PublicKey(parsing: Array(payload[32..<65])) } catch {
            throw .invalidDescriptor("its spend public key is not a compressed point on the curve")
        }
        return (try SilentPaymentKeys(scanPrivateKey: scanKey, spendPublicKey: spendPublic), testnet)
    }

    /// One key of the two-key form: WIF (compressed), hex (a compressed public key), or an
    /// extended key with steps below it. `testnet` is nil where the text does not say.
    private static func keyExpression(
        _ text: Substring, role: String
    ) throws(SilentPaymentError) -> (
        privateKey: SecureBytes?, publicKey: Secp256k1.PublicKey, testnet: Bool?
    ) {
        let steps = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let head = steps[0]
        if head.hasPrefix("xprv") || head.hasPrefix("tprv") || head.hasPrefix("xpub") || head.hasPrefix("tpub") {
            var key: ExtendedKey
            do {
                key = try ExtendedKey(parsing: head)
                if steps.count > 1 {
                    key = try key.derive(try DerivationPath(parsing: (["m"] + steps.dropFirst()).joined(separator: "/")).components)
                }
            } catch { throw .invalidDescriptor("its \(role) key is not an extended key with a derivation path below it") }
            guard !steps.contains("*") else { throw .invalidDescriptor("its \(role) key is ranged; sp() takes single keys") }
            return (key.privateKey, key.publicKey, key.version.testnet)
        }
        guard steps.count == 1 else { throw .invalidDescriptor("its \(role) key has steps, which only extended keys take") }
        if head.count == 66 || head.count == 130, let bytes = try? Hex.decode(head) {
            guard bytes.count == 33 else { throw .invalidDescriptor("its \(role) key is uncompressed; BIP352 takes compressed keys only") }
            do { return (nil, try Secp256k1.PublicKey(parsing: bytes), nil) } catch {
                throw .invalidDescriptor("its \(role) public key is not on the curve")
            }
        }
        guard let wif = try? WIF.parse(head), wif.prefix == 0x80 || wif.prefix == 0xEF else {
            throw .invalidDescriptor("its \(role) key is neither WIF, a hex public key nor an extended key")
        }
        guard wif.compressed else {
            throw .invalidDescriptor("its \(role) key is an uncompressed WIF key; BIP352 takes compressed keys only")
        }
        let key = wif.key
        do { return (key, try Secp256k1.publicKey(of: key), wif.prefix == 0xEF) } catch {
            throw .invalidDescriptor("its \(role) private key is zero or not below the group order")
        }
    }
}

extension SilentPaymentDescriptor {
    /// A record's receiver, for derive and scan-blocks alike: its "descriptor" when that is an
    /// sp() one, or its `sp_scan_key` and `sp_spend_public_key` (what `derive account
    /// --view-only` writes beside the descriptor); when both are given they must be the same
    /// receiver. nil when neither is.
    public static func receiver(
        descriptorField text: String?, scanKeyHex: String?, spendPublicKeyHex: String?
    ) throws(SilentPaymentError) -> (keys: SilentPaymentKeys, descriptor: SilentPaymentDescriptor?)? {
        let descriptor = try text.flatMap { text throws(SilentPaymentError) in
            isClaimed(text) ? try SilentPaymentDescriptor(parsing: text) : nil
        }
        let pair = try scanKeyHex.map { hex throws(SilentPaymentError) in
            try SilentPaymentKeys(scanKeyHex: hex, spendPublicKeyHex: spendPublicKeyHex)
        }
        if let descriptor, let pair,
            descriptor.keys.scanPrivateKey != pair.scanPrivateKey || descriptor.keys.spendPublicKey != pair.spendPublicKey
        {
            throw .invalidKey(
                "the record's sp() descriptor and its \(SilentPaymentKeys.scanKeyField)/\(SilentPaymentKeys.spendPublicKeyField) are different receivers"
            )
        }
        if let descriptor { return (descriptor.keys, descriptor) }
        return pair.map { ($0, nil) }
    }
}
