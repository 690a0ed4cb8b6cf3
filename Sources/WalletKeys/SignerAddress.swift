import WalletCore
import WalletCrypto

/// An address that a signature is checked against: every kind `derive` writes, read back to
/// what it commits to. A signature is judged only against an address it can be judged
/// against: an address of another kind, or no address at all, is a usage error, never a
/// "verification failed" that would cry tamper for what was never checked.
public struct SignerAddress: Sendable, Equatable {
    /// How the address pays to its key.
    public let script: ScriptKind
    /// What it commits to: HASH160 of the key (P2PKH, P2WPKH), HASH160 of the P2WPKH redeem
    /// script (P2SH-P2WPKH), the BIP86 output key (P2TR), the key's 20-byte Keccak suffix (Ethereum).
    public let program: [UInt8]
    /// The coins and networks whose prefix it has ("btc main", "bch main", …), for messages.
    public let networks: [String]

    /// The kinds known, for the usage error.
    public static let knownKinds =
        "P2PKH (1…, L…, D…, t1…, m…/n…), P2SH-P2WPKH (3…, M…, 2…), P2WPKH (bc1q…, ltc1q…, tb1q…, bcrt1q…), "
        + "P2TR (bc1p…, with a Schnorr signature), Bitcoin Cash CashAddr (bitcoincash:q…) and Ethereum (0x…, EIP-55)"

    public init(script: ScriptKind, program: [UInt8], networks: [String]) {
        self.script = script
        self.program = program
        self.networks = networks
    }

    public init(parsing text: String) throws(SignerAddressError) {
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            let body = text.dropFirst(2)
            guard text.hasPrefix("0x"), body.utf8.count == 40, let bytes = try? Hex.decode(String(body)) else {
                throw .unknown("0x and 40 hex digits is an Ethereum address; this is not one")
            }
            guard EIP55.isValid(text) else {
                throw .badChecksum("Ethereum (its EIP-55 mixed case does not match: a character is mistyped)")
            }
            self.init(script: .ethereum, program: bytes, networks: ["eth main"])
            return
        }
        let lower = text.lowercased()
        if let separator = lower.lastIndex(of: "1"), lower.hasPrefix("bitcoincash:") == false {
            let hrp = String(lower[..<separator])
            let chains = CoinNetwork.all.filter { $0.bech32HRP == hrp }
            if !chains.isEmpty {
                let decoded: (version: Int, program: [UInt8])
                do { decoded = try SegwitAddress.decode(text, hrp: hrp) } catch {
                    throw .badChecksum("segwit (\(error.message))")
                }
                let names = chains.map { "\($0.coin) \($0.network)" }
                switch (decoded.version, decoded.program.count) {
                case (0, 20): self.init(script: .p2wpkh, program: decoded.program, networks: names)
                case (1, 32): self.init(script: .p2tr, program: decoded.program, networks: names)
                case (0, 32): throw .scriptAddress("a P2WSH address pays to a script, which no single key's signature stands for")
                default: throw .unknown("segwit version \(decoded.version) with a \(decoded.program.count)-byte program")
                }
                return
            }
        }
        if lower.hasPrefix("bitcoincash:") || (lower.first.map { "qp".contains($0) } == true && lower.utf8.count == 42) {
            let decoded: (prefix: String, type: UInt8, hash: [UInt8])
            do { decoded = try CashAddr.decode(text, defaultPrefix: "bitcoincash") } catch {
                throw .badChecksum("CashAddr (\(error.message))")
            }
            guard decoded.prefix == "bitcoincash" else { throw .unknown("CashAddr prefix \(decoded.prefix)") }
            guard decoded.type == 0, decoded.hash.count == 20 else {
                throw .scriptAddress("a CashAddr P2SH address pays to a script, which no single key's signature stands for")
            }
            self.init(script: .p2pkh, program: decoded.hash, networks: ["bch main"])
            return
        }
        // Base58 is quadratic to decode: no address is longer than 64 characters.
        guard text.utf8.count <= 64 else { throw .unknown("too long for an address") }
        let payload: [UInt8]
        do { payload = try Base58.decodeCheck(text) } catch {
            if let raw = try? Base58.decode(text), (25...26).contains(raw.count) {
                throw .badChecksum("Base58Check (a character is wrong)")
            }
            throw .unknown("not an address")
        }
        for (script, prefix) in [(ScriptKind.p2pkh, \CoinNetwork.p2pkhPrefix), (.p2shP2wpkh, \CoinNetwork.p2shPrefix)] {
            let chains = CoinNetwork.all.filter {
                !$0[keyPath: prefix].isEmpty && payload.count == $0[keyPath: prefix].count + 20 && payload.starts(with: $0[keyPath: prefix])
            }
            // A P2SH address is read as P2SH-P2WPKH, the only single-key P2SH that derive writes.
            if !chains.isEmpty {
                self.init(script: script, program: Array(payload.suffix(20)), networks: chains.map { "\($0.coin) \($0.network)" })
                return
            }
        }
        throw .unknown("a Base58Check payload with an unknown prefix")
    }

    /// Whether this address pays to `key` (ECDSA kinds; a taproot address is checked as a
    /// BIP340 key instead, see `xOnlyKey`). Keys are compressed, as derive writes them.
    public func isPaid(to key: Secp256k1.PublicKey) -> Bool {
        switch script {
        case .p2pkh, .p2wpkh: Hash.hash160(key.compressed) == program
        case .p2shP2wpkh: Hash.hash160([0x00, 0x14] + Hash.hash160(key.compressed)) == program
        case .ethereum: Array(Keccak256.hash(key.uncompressed.dropFirst()).suffix(20)) == program
        case .p2tr: false
        }
    }
}

/// Why an address cannot be a signer's: each is the user's to fix, never a failed signature.
/// In a record it is a data error (65); as `--address`, a usage error (64).
public enum SignerAddressError: WalletError, Equatable {
    case unknown(String)
    case badChecksum(String)
    case scriptAddress(String)
    /// A signature scheme that the address kind cannot be checked with.
    case schemeMismatch(String)

    public var code: String {
        switch self {
        case .unknown: "sign.unknown_address"
        case .badChecksum: "sign.address_checksum"
        case .scriptAddress: "sign.script_address"
        case .schemeMismatch: "sign.address_scheme_mismatch"
        }
    }

    public var message: String {
        switch self {
        case .unknown(let why):
            "the signer's address is not one that a signature can be checked against (\(why)); known kinds: \(SignerAddress.knownKinds)"
        case .badChecksum(let kind): "the signer's address fails its \(kind) checksum"
        case .scriptAddress(let why): why + "; known kinds: " + SignerAddress.knownKinds
        case .schemeMismatch(let why): why
        }
    }
}
