import WalletCore
import WalletKeys
import WalletCrypto

/// BIP352 silent payments (bitcoin/bips bip-0352.mediawiki; vectors of 2026-08-20): a static
/// `sp1…` address, and per payment a fresh taproot output only its receiver finds, by one ECDH
/// per transaction with the sum of the transaction's input keys.
public enum SilentPayment {
    /// K_max: at most this many outputs of one transaction are paid to one receiver (a sender
    /// fails beyond it; a receiver looks no further).
    public static let maxOutputsPerReceiver = 2323

    /// The highest label Satchel hands out (derive --label) and looks for (scan-blocks
    /// --sp-labels): one limit, so that no address is given that no scan finds. A receiver
    /// makes label·G for each label it looks for once a run (30–50 µs each, 3.2 s at the
    /// limit; bitcoin-bench sp-labels), and a transaction's scan costs about 1.2× the
    /// change-only scan at 1,000 labels or 99,999 alike.
    public static let maxLabel: UInt32 = 99_999

    /// BIP341's NUMS point H (x only): a script-path spend with this internal key has no key
    /// path, so its output key is nobody's, and the input is not counted.
    public static let numsH = try! Hex.decode("50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0")

    /// BIP352's derivation: scan key m/352'/coin'/account'/1'/0, spend key m/352'/coin'/account'/0'/0
    /// (coin 0' for Bitcoin, 1' for every test network).
    /// m/352'/coin'/account': the keys below are at 1'/0 (scan) and 0'/0 (spend).
    public static func accountPath(coinType: UInt32, account: UInt32) -> DerivationPath {
        let h = DerivationPath.hardened
        return DerivationPath([352 | h, coinType | h, account | h])
    }

    public static func scanPath(coinType: UInt32, account: UInt32) -> DerivationPath {
        accountPath(coinType: coinType, account: account).appending([1 | DerivationPath.hardened, 0])
    }

    public static func spendPath(coinType: UInt32, account: UInt32) -> DerivationPath {
        accountPath(coinType: coinType, account: account).appending([0 | DerivationPath.hardened, 0])
    }

    /// hash_BIP0352/Label(ser256(b_scan) ‖ ser32(m)): the label's scalar. Private (it ties a
    /// labeled address to its wallet), so it stays in wiped memory.
    public static func labelTweak(scanKey: SecureBytes, label m: UInt32) -> SecureBytes {
        var data = scanKey.bytes + bigEndian(m)
        defer { SecureBytes.wipe(&data) }
        var tweak = Hash.tagged("BIP0352/Label", data)
        defer { SecureBytes.wipe(&tweak) }
        return SecureBytes(tweak)
    }

    /// input_hash = hash_BIP0352/Inputs(outpoint_L ‖ ser_P(A)), outpoint_L the smallest
    /// outpoint of all the transaction's inputs as serialized bytes (txid ‖ vout little-endian).
    public static func inputHash(outpoints: [[UInt8]], inputKeySum: Secp256k1.PublicKey) -> [UInt8]? {
        guard let smallest = outpoints.min(by: { $0.lexicographicallyPrecedes($1) }) else { return nil }
        return Hash.tagged("BIP0352/Inputs", smallest + inputKeySum.compressed)
    }

    /// t_k = hash_BIP0352/SharedSecret(ser_P(S) ‖ ser32(k)).
    public static func sharedSecretTweak(_ shared: [UInt8], _ k: UInt32) -> [UInt8] {
        Hash.tagged("BIP0352/SharedSecret", shared + bigEndian(k))
    }

    static func bigEndian(_ n: UInt32) -> [UInt8] { withUnsafeBytes(of: n.bigEndian) { Array($0) } }

    /// The private key of a found output: b_spend + tweak (the tweak t_k, plus the label's
    /// for a labeled payment). Signing with it needs no TapTweak: the output key is d·G itself.
    public static func outputPrivateKey(spendKey: SecureBytes, tweak: [UInt8]) throws(SilentPaymentError) -> SecureBytes {
        do { return try Secp256k1.add(tweak: tweak, to: spendKey) } catch {
            throw .invalidKey("the spend key plus this tweak is not a private key")
        }
    }
}

public enum SilentPaymentError: WalletError, Equatable {
    case invalidAddress(String)
    case invalidKey(String)
    /// A BIP392 sp() descriptor that does not read; the reason never quotes it (it is secret).
    case invalidDescriptor(String)

    public var code: String {
        switch self {
        case .invalidAddress: "silent_payment.invalid_address"
        case .invalidKey: "silent_payment.invalid_key"
        case .invalidDescriptor: "silent_payment.invalid_descriptor"
        }
    }

    public var message: String {
        switch self {
        case .invalidAddress(let reason): "not a silent payment address: \(reason)"
        case .invalidKey(let reason): "not a silent payment key: \(reason)"
        case .invalidDescriptor(let reason): "not a BIP392 sp() descriptor: \(reason)"
        }
    }
}

/// An `sp1…` (mainnet) or `tsp1…` (every test network) address: bech32m over version 0 and
/// ser_P(B_scan) ‖ ser_P(B_m), longer than bech32's 90 characters.
public struct SilentPaymentAddress: Sendable, Equatable, CustomStringConvertible {
    public let scanKey: Secp256k1.PublicKey
    /// B_spend, or B_m = B_spend + label·G for a labeled address.
    public let spendKey: Secp256k1.PublicKey
    public let testnet: Bool

    /// BIP352 asks decoders to accept up to 1023 characters (versions after 0 may carry more).
    public static let maxLength = 1023

    public init(scanKey: Secp256k1.PublicKey, spendKey: Secp256k1.PublicKey, testnet: Bool) {
        self.scanKey = scanKey
        self.spendKey = spendKey
        self.testnet = testnet
    }

    public var description: String {
        let data = (try? Bech32.convertBits(scanKey.compressed + spendKey.compressed, from: 8, to: 5, pad: true)) ?? []
        return Bech32.encode(hrp: testnet ? "tsp" : "sp", data: [0] + data, variant: .bech32m)
    }

    /// Version 0 is exactly 66 bytes; versions 1–30 are read by their first 66 bytes (BIP352's
    /// forward compatibility); version 31 is refused.
    public init(parsing text: String) throws(SilentPaymentError) {
        let decoded: (hrp: String, data: [UInt8], variant: Bech32.Variant)
        do { decoded = try Bech32.decode(text, maxLength: Self.maxLength) } catch {
            throw .invalidAddress(error.message)
        }
        guard decoded.variant == .bech32m else { throw .invalidAddress("a bech32 checksum where bech32m is required") }
        switch decoded.hrp {
        case "sp": testnet = false
        case "tsp": testnet = true
        default: throw .invalidAddress("the prefix is \"\(decoded.hrp)\", not sp or tsp")
        }
        guard let version = decoded.data.first else { throw .invalidAddress("no version") }
        guard version < 31 else { throw .invalidAddress("version 31 is reserved for a backward-incompatible change") }
        let payload: [UInt8]
        do { payload = try Bech32.convertBits(Array(decoded.data.dropFirst()), from: 5, to: 8, pad: false) } catch {
            throw .invalidAddress("its data is not whole bytes")
        }
        guard version == 0 ? payload.count == 66 : payload.count >= 66 else {
            throw .invalidAddress("version \(version) carries \(payload.count) bytes, not 66")
        }
        do {
            scanKey = try Secp256k1.PublicKey(parsing: Array(payload[0..<33]))
            spendKey = try Secp256k1.PublicKey(parsing: Array(payload[33..<66]))
        } catch { throw .invalidAddress("a key in it is not on the curve") }
    }
}

/// A receiver's keys: the scan private key (what a watch-only wallet holds) and the spend
/// public key; the spend private key only where outputs are to be spent.
public struct SilentPaymentKeys: Sendable {
    public let scanPrivateKey: SecureBytes
    public let scanPublicKey: Secp256k1.PublicKey
    public let spendPublicKey: Secp256k1.PublicKey
    public let spendPrivateKey: SecureBytes?

    public init(
        scanPrivateKey: SecureBytes, spendPublicKey: Secp256k1.PublicKey, spendPrivateKey: SecureBytes? = nil
    ) throws(SilentPaymentError) {
        do {
            // B_scan is public by design: it is in every address of the receiver.
            scanPublicKey = try Secp256k1.publicKey(of: scanPrivateKey).declassified
            if let spendPrivateKey, try Secp256k1.publicKey(of: spendPrivateKey) != spendPublicKey {
                throw SilentPaymentError.invalidKey("the spend private key is not the spend public key's")
            }
        } catch let error as SilentPaymentError { throw error } catch {
            throw .invalidKey("the scan or spend private key is zero or not below the group order")
        }
        self.scanPrivateKey = scanPrivateKey
        self.spendPublicKey = spendPublicKey
        self.spendPrivateKey = spendPrivateKey
    }

    /// The record fields of a watch-only receiver (what `derive account --purpose 352
    /// --view-only` writes, and derive and scan-blocks read): the scan key is secret.
    public static let scanKeyField = "sp_scan_key"
    public static let spendPublicKeyField = "sp_spend_public_key"
    public static let spendKeyField = "sp_spend_key"

    /// A watch-only receiver from those fields' hex texts (the spend key's absent: an error
    /// that names it).
    public init(scanKeyHex: String, spendPublicKeyHex: String?) throws(SilentPaymentError) {
        guard let spendPublicKeyHex else {
            throw .invalidKey("a record with \(Self.scanKeyField) needs \(Self.spendPublicKeyField) too")
        }
        let spendKey: Secp256k1.PublicKey
        do { spendKey = try Secp256k1.PublicKey(parsing: Hex.decode(spendPublicKeyHex)) } catch {
            throw .invalidKey("\(Self.spendPublicKeyField) is not a compressed public key")
        }
        let scanKey: SecureBytes
        do { scanKey = try Hex.decodeSecret(scanKeyHex) } catch { throw .invalidKey("\(Self.scanKeyField) is not hexadecimal") }
        try self.init(scanPrivateKey: scanKey, spendPublicKey: spendKey)
    }

    /// The keys at BIP352's paths below a BIP32 root (a seed's master key).
    public init(root: ExtendedKey, coinType: UInt32, account: UInt32) throws(SilentPaymentError) {
        do {
            let scan = try root.derive(SilentPayment.scanPath(coinType: coinType, account: account).components)
            let spend = try root.derive(SilentPayment.spendPath(coinType: coinType, account: account).components)
            guard let scanKey = scan.privateKey, let spendKey = spend.privateKey else {
                throw SilentPaymentError.invalidKey("silent payment keys need a private root (hardened steps)")
            }
            try self.init(scanPrivateKey: scanKey, spendPublicKey: spend.publicKey, spendPrivateKey: spendKey)
        } catch let error as SilentPaymentError { throw error } catch { throw .invalidKey("\(error)") }
    }

    /// B_m = B_spend + label(m)·G; label 0 is change and is never handed out. label(m)·G by
    /// libsecp256k1's constant-time generator multiplication (its tweak-add multiplies in
    /// variable time), then public by design: B_m is in the labeled address.
    public func labeledSpendKey(_ m: UInt32) throws(SilentPaymentError) -> Secp256k1.PublicKey {
        let tweak = SilentPayment.labelTweak(scanKey: scanPrivateKey, label: m)
        guard let labelPoint = try? Secp256k1.publicKey(of: tweak).declassified,
            let key = Secp256k1.PublicKey.sum([spendPublicKey, labelPoint])
        else { throw .invalidKey("label \(m) gives no key") }
        return key
    }

    /// The address, with label m when given.
    public func address(label: UInt32? = nil, testnet: Bool) throws(SilentPaymentError) -> SilentPaymentAddress {
        let spend = try label.map { m throws(SilentPaymentError) in try labeledSpendKey(m) } ?? spendPublicKey
        return SilentPaymentAddress(scanKey: scanPublicKey, spendKey: spend, testnet: testnet)
    }
}

/// The sender's side of BIP352: the taproot output keys that pay silent payment addresses,
/// from the private keys of the transaction's counted inputs and all its outpoints.
public enum SilentPaymentSender {
    /// One counted input's private key; `taproot`: a P2TR input's (tweaked) key, negated when
    /// its point's y is odd, as the x-only output key stands for the even one.
    public struct InputKey {
        public let key: SecureBytes
        public let taproot: Bool
        public init(key: SecureBytes, taproot: Bool) { (self.key, self.taproot) = (key, taproot) }
    }

    /// The x-only output key paying each recipient, in the recipients' order: recipients that
    /// share a scan key take k = 0, 1, … in the order given. Fails when the keys sum to zero,
    /// or a scan key has more than K_max recipients.
    public static func outputs(
        inputs: [InputKey], outpoints: [[UInt8]], recipients: [SilentPaymentAddress]
    ) throws(SilentPaymentError)
        -> [[UInt8]]
    {
        guard !inputs.isEmpty else { throw .invalidKey("no input counts: a silent payment needs at least one") }
        var sum: SecureBytes?  // nil: zero, which a partial sum may be
        do {
            for input in inputs {
                var key = input.key
                // Every key checked (a zero one would otherwise pass as a zero partial sum).
                // Its public key is public: the input shows it (or its output key).
                let point = try Secp256k1.publicKey(of: key).declassified
                if input.taproot, point.compressed[0] == 3 { key = try Secp256k1.negate(key) }
                // libsecp256k1 refuses a sum of zero: that is the nil here.
                var bytes = key.bytes
                sum = sum.map { try? Secp256k1.add(tweak: bytes, to: $0) } ?? key
                SecureBytes.wipe(&bytes)
            }
        } catch { throw .invalidKey("an input's private key is zero or not below the group order") }
        guard sum != nil else { throw .invalidKey("the inputs' private keys sum to zero") }
        // A, the inputs' public keys summed, is public: every receiver makes it from the transaction.
        guard let a = sum, let inputKeySum = try? Secp256k1.publicKey(of: a).declassified,
            let inputHash = SilentPayment.inputHash(outpoints: outpoints, inputKeySum: inputKeySum),
            let scaled = try? Secp256k1.multiply(a, by: inputHash)
        else { throw .invalidKey("no input hash for these inputs") }
        var counts: [[UInt8]: UInt32] = [:]
        var out: [[UInt8]] = []
        for recipient in recipients {
            let group = recipient.scanKey.compressed
            let k = counts[group, default: 0]
            guard k < SilentPayment.maxOutputsPerReceiver else { throw .invalidKey("more than K_max outputs to one scan key") }
            counts[group] = k + 1
            // The shared point by libsecp256k1's ECDH and t_k·G by its generator multiplication,
            // both constant-time (its pubkey tweak functions multiply in variable time); t_k·G
            // is public by design: the output less B_spend, both public.
            do {
                var shared = try Secp256k1.ecdhPoint(privateKey: scaled, publicKey: recipient.scanKey).bytes
                defer { SecureBytes.wipe(&shared) }
                var tBytes = SilentPayment.sharedSecretTweak(shared, k)
                let t = SecureBytes(tBytes)
                SecureBytes.wipe(&tBytes)
                guard let output = Secp256k1.PublicKey.sum([recipient.spendKey, try Secp256k1.publicKey(of: t).declassified]) else {
                    throw CurveError.invalidTweak
                }
                out.append(output.xOnly)
            } catch { throw .invalidKey("no output key for a recipient") }
        }
        return out
    }
}
