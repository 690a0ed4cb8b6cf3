import ArgumentParser
import WalletCLI
import WalletCard
import WalletCardCLI
import Monero
import WalletCore
import WalletKeys
#if canImport(Glibc)
import Glibc
#endif

@main
struct SignHashCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "sign-hash",
        abstract: "Offline secp256k1 signing of 32-byte hashes: ECDSA (RFC 6979, recoverable) and BIP340 Schnorr.",
        discussion: """
        Reads {"hash":"<32 bytes hex>","path":"m/44h/60h/0h/0/0"} records and writes each with
        its signature. The key is a seed, phrase, xprv, private_key or wif — in the record, in a
        private --key-file, on --key-fd, or a key-store entry (--wallet). Nothing secret is
        read from arguments or the environment, and no secret field is passed through.

        Examples:
          sign-hash --key-file key.json --path "m/44h/60h/0h/0/0" --chain-id 1 < hashes.jsonl
          sign-hash --scheme schnorr --taproot --path "m/86h/0h/0h/0/0" --key-fd 3 3<key.json
          sign-hash verify < signatures.jsonl
          sign-hash recover --coin eth < signatures.jsonl
        See sign-hash(1).
        """,
        version: SatchelVersion.string,
        subcommands: [Sign.self, Verify.self, Recover.self],
        defaultSubcommand: Sign.self
    )
}

enum SigningScheme: String, ExpressibleByArgument, CaseIterable {
    case ecdsa, schnorr
}

extension SignHashCommand {
    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign each record's hash.")

        @Option(help: "ecdsa (default) or schnorr (BIP340).")
        var scheme: SigningScheme = .ecdsa

        @Flag(help: "Schnorr: sign with the BIP341 key-path tweak (a BIP86 taproot output key).")
        var taproot = false

        @Option(help: ArgumentHelp("The key's BIP32 path when a record has no \"path\".", valueName: "path"))
        var path: String?

        @Option(help: "ECDSA: write EIP-155 v = chain_id·2 + 35 + recovery id instead of 27/28.")
        var chainId: UInt64?

        @OptionGroup var keyOptions: KeyOptions
        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup var walletOptions: WalletOptions
        @OptionGroup var cardOptions: CardKeyOptions

        @Flag(help: "With --card: make each record's path the card's current key as it signs.")
        var makeCurrent = false

        @Flag(help: "With --card: sign with the card's PIN-less path (no PIN, no secure channel; see card-info set-pinless-path).")
        var pinless = false

        @OptionGroup var input: InputFiles

        func validate() throws {
            if walletOptions.wallet != nil && (keyOptions.keyFile != nil || keyOptions.keyFd != nil) {
                throw ValidationError("give --wallet or --key-file/--key-fd, not both")
            }
            if cardOptions.card && (walletOptions.wallet != nil || keyOptions.isGiven) {
                throw ValidationError("give --card or --wallet/--key-file/--key-fd, not both")
            }
            if cardOptions.card && scheme != .ecdsa { throw ValidationError("the Keycard (applet 3.x) signs ECDSA only") }
            if (makeCurrent || pinless) && !cardOptions.card { throw ValidationError("--make-current and --pinless go with --card") }
            if pinless && (makeCurrent || path != nil) { throw ValidationError("--pinless signs at the card's PIN-less path: no --path or --make-current") }
            if taproot && scheme != .schnorr { throw ValidationError("--taproot goes with --scheme schnorr") }
            if chainId != nil && scheme != .ecdsa { throw ValidationError("--chain-id goes with ECDSA") }
            // EIP-2294's bound: v = chain_id·2 + 35 + recovery id must fit in 64 bits.
            if let chainId, chainId > UInt64.max / 2 - 36 { throw ValidationError("--chain-id must be at most \(UInt64.max / 2 - 36) (EIP-2294)") }
            if let path { do { _ = try DerivationPath(parsing: path) } catch { throw ValidationError(error.message) } }
        }

        func run() throws {
            let pipeline = RecordPipeline(tool: "sign-hash")
            let reader: RecordKeys
            var runSource: KeySource?
            do {
                let bip39Passphrase = try passphrase.read()
                reader = RecordKeys(coin: nil, accountPath: nil, sharedPassphrase: bip39Passphrase)
                runSource = try walletOptions.keySource(bip39Passphrase: bip39Passphrase)
                if let keyRecord = try keyOptions.read() {
                    var scratch = keyRecord
                    runSource = try reader.source(keyRecord, out: &scratch)
                }
                // On a terminal with no key given: the phrase is asked for without echo, and
                // the hash records are then typed (or pasted) one per line.
                if runSource == nil, !cardOptions.card, input.files.isEmpty, isatty(0) != 0 {
                    let record = try PhraseLine.prompted()
                    var scratch = record
                    runSource = try reader.source(record, out: &scratch)
                }
            } catch let error as any WalletError {
                return try pipeline.fail(error).exitIfFailed()
            }
            // One card session (secure channel, PIN) for the whole batch.
            let card: CardKeys?
            do {
                if pinless {
                    // PIN-less SIGN needs neither the PIN nor the channel (nor a pairing).
                    card = CardKeys(try cardOptions.readers.keycard().0)
                } else {
                    card = try cardOptions.keys(walletOptions.keyStore)
                }
            } catch let error as any WalletError {
                return try pipeline.fail(error).exitIfFailed()
            }
            let cache = SigningKeyCache()
            try pipeline.run(inputs: input.files) { record in
                var out = record
                out["type"] = .string("signature")
                let hash = try hashField(record, expected: "the 32-byte hash to sign, in hex")
                guard hash.count == 32 else { throw SignatureError.invalidHashLength(hash.count) }
                if let card {
                    if RecordKeys.hasKey(record) { throw RecordError.conflictingFields(["a key in the record", "--card"]) }
                    // A path (record or --path) signs there; none signs with the card's current key.
                    let signed: CardSignature
                    if pinless {
                        // The card signs at its PIN-less path, which it does not tell without the
                        // PIN: a record asking for a path could get another key's signature
                        // under its own path, so it is refused; the output says "pinless":true.
                        if record["path"] != nil {
                            throw RecordError.conflictingFields(["path", "--pinless (the card signs at its PIN-less path, whatever the record says)"])
                        }
                        signed = try card.keycard.sign(hash: hash, key: .pinless)
                        out["pinless"] = .bool(true)
                    } else if let text = try record.optionalString("path") ?? path {
                        let keyPath = try DerivationPath(parsing: text)
                        signed = try card.keycard.sign(hash: hash, key: .path(keyPath.components, makeCurrent: makeCurrent))
                        out["path"] = .string(keyPath.description)
                    } else {
                        signed = try card.keycard.sign(hash: hash, key: .current)
                    }
                    out["scheme"] = .string("ecdsa")
                    Self.put(signed.signature, into: &out, chainId: chainId)
                    out["public_key"] = .string(Hex.encode(try Secp256k1.PublicKey(parsing: signed.publicKey).compressed))
                    return out
                }
                let ownKey = RecordKeys.hasKey(record)
                if ownKey && runSource != nil {
                    throw RecordError.conflictingFields(["a key in the record", "--key-file/--key-fd/--wallet"])
                }
                guard let source = ownKey ? try reader.source(record, out: &out) : runSource else {
                    throw RecordError.missingField("private_key", expected: "a key in the record, or --key-file, --key-fd or --wallet")
                }
                let (key, keyPath) = try cache.key(source, path: try record.optionalString("path") ?? path, cacheable: !ownKey)
                out = SecretFields.removed(from: out)
                if let keyPath { out["path"] = .string(keyPath) }
                out["scheme"] = .string(scheme.rawValue)
                switch scheme {
                case .ecdsa:
                    Self.put(try Secp256k1.signECDSA(hash: hash, privateKey: key), into: &out, chainId: chainId)
                    out["public_key"] = .string(try cache.publicKeyHex(key, tag: keyPath ?? "", cacheable: !ownKey))
                case .schnorr:
                    let pair = try cache.schnorr(key, tag: (keyPath ?? "") + (taproot ? "#tr" : ""), taproot: taproot, cacheable: !ownKey)
                    // "aux_rand" in a record reproduces BIP340 test vectors; otherwise fresh randomness.
                    let aux = try record.optionalString("aux_rand").map { text throws -> [UInt8] in try Hex.decode(text) }
                    out["signature"] = .string(Hex.encode(try pair.sign(hash, auxRand: aux)))
                    out["public_key"] = .string(Hex.encode(pair.xOnlyPublicKey))
                    if taproot { out["taproot"] = .bool(true) }
                }
                return out
            }.exitIfFailed()
        }

        /// An ECDSA signature's fields: r ‖ s, recovery id, Ethereum's v as "eth_v" (27/28 or
    /// EIP-155; "v" is the record schema version), DER.
        static func put(_ sig: ECDSASignature, into out: inout JSONObject, chainId: UInt64?) {
            out["signature"] = .string(Hex.encode(sig.compact))
            out["recovery_id"] = .number(String(sig.recoveryID))
            let v = chainId.map { $0 * 2 + 35 + UInt64(sig.recoveryID) } ?? UInt64(27 + sig.recoveryID)
            out["eth_v"] = .number(String(v))
            out["der"] = .string(Hex.encode(sig.der))
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check signatures: each record's hash, signature and public_key (or Ethereum/Bitcoin address).",
            discussion: """
            ECDSA records may name the signer by "address" instead of "public_key" (with their
            "recovery_id" or "v"): the key is recovered and its address compared. A record that
            does not verify is an error record (sign.verification_failed) and the exit status is 65.
            """)

        @Option(help: ArgumentHelp("The expected signer's address, for records that name none: P2PKH, P2SH-P2WPKH, P2WPKH, P2TR (with a Schnorr signature), the Litecoin, Dogecoin, Bitcoin Cash and Zcash transparent forms, or Ethereum (EIP-55).", valueName: "address"))
        var address: String?

        @OptionGroup var input: InputFiles

        func validate() throws {
            if let address {
                do { _ = try SignerAddress(parsing: address) } catch { throw ValidationError(error.message) }
            }
        }

        func run() throws {
            try RecordPipeline(tool: "sign-hash").run(inputs: input.files) { record in
                var out = record
                out["type"] = .string("verification")
                let hash = try hashField(record, expected: "hex")
                let signature = try Hex.decode(record.string("signature", expected: "hex r‖s (64 bytes)"))
                if let address {
                    // The expected signer replaces whatever key the record itself claims.
                    out["address"] = .string(address)
                    out["public_key"] = nil
                }
                let record = out
                let scheme = try record.optionalString("scheme") ?? "ecdsa"
                let valid: Bool
                switch scheme {
                case "schnorr":
                    let key: [UInt8]
                    if let hex = try record.optionalString("public_key") {
                        key = try Hex.decode(hex)
                    } else {
                        // A taproot address commits to the x-only output key itself.
                        let signer = try SignerAddress(parsing: record.string("address", expected: "the 32-byte x-only public_key or a taproot address"))
                        guard signer.script == .p2tr else {
                            throw SignerAddressError.schemeMismatch("a Schnorr (BIP340) signature is checked against a taproot address (bc1p…) or a 32-byte public_key, and this is a \(signer.script.rawValue) address: verify an ECDSA signature (\"scheme\":\"ecdsa\") against it")
                        }
                        key = signer.program
                    }
                    guard hash.count == 32 else { throw SignatureError.invalidHashLength(hash.count) }
                    valid = Secp256k1.verifySchnorr(message: hash, signature: signature, xOnlyPublicKey: key)
                case "ecdsa":
                    if let hex = try record.optionalString("public_key") {
                        valid = try Secp256k1.verifyECDSA(hash: hash, compact: signature, publicKey: try Secp256k1.PublicKey(parsing: try Hex.decode(hex)))
                    } else {
                        let signer = try SignerAddress(parsing: record.string("address", expected: "the signer's public_key or address"))
                        guard signer.script != .p2tr else {
                            throw SignerAddressError.schemeMismatch("a taproot address (bc1p…) names a BIP340 key: it is checked with a Schnorr signature (\"scheme\":\"schnorr\"), not ECDSA")
                        }
                        let recovered = try Secp256k1.recoverECDSA(hash: hash, compact: signature, recoveryID: try recoveryID(record))
                        valid = try signer.isPaid(to: recovered) && (Secp256k1.verifyECDSA(hash: hash, compact: signature, publicKey: recovered))
                    }
                default:
                    throw RecordError.invalidField(field: "scheme", reason: "must be ecdsa or schnorr")
                }
                guard valid else { throw SignatureError.verificationFailed }
                out["valid"] = .bool(true)
                return out
            }.exitIfFailed()
        }
    }

    struct Recover: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The public key (and address) that made a recoverable ECDSA signature.")

        @Option(help: "Write the address for this coin too: eth or btc (P2PKH and P2WPKH).")
        var coin: String = "eth"

        @OptionGroup var input: InputFiles

        func validate() throws {
            guard ["eth", "btc"].contains(coin) else { throw ValidationError("--coin must be eth or btc") }
        }

        func run() throws {
            try RecordPipeline(tool: "sign-hash").run(inputs: input.files) { record in
                var out = record
                out["type"] = .string("recovery")
                let hash = try hashField(record, expected: "hex")
                let signature = try Hex.decode(record.string("signature", expected: "hex r‖s (64 bytes)"))
                let key = try Secp256k1.recoverECDSA(hash: hash, compact: signature, recoveryID: try recoveryID(record))
                out["public_key"] = .string(Hex.encode(key.compressed))
                if coin == "eth" {
                    out["address"] = .string(try CoinNetwork.find(coin: "eth", network: "main")!.address(for: key, script: .ethereum).address)
                } else {
                    let btc = CoinNetwork.find(coin: "btc", network: "main")!
                    out["address"] = .string(try btc.address(for: key, script: .p2pkh).address)
                    out["p2wpkh_address"] = .string(try btc.address(for: key, script: .p2wpkh).address)
                }
                return out
            }.exitIfFailed()
        }
    }
}

/// The recovery id from "recovery_id", or from Ethereum's v: "eth_v", or "v" of 27 and above
/// as records of Satchel before record versions (and other tools) write it.
func recoveryID(_ record: JSONObject) throws -> Int {
    if let id = try record.optionalInt("recovery_id") { return id }
    let field = record["eth_v"] != nil ? "eth_v" : "v"
    guard let v = try record.optionalInt(field), field == "eth_v" || v >= 27 else {
        throw RecordError.missingField("recovery_id", expected: "recovery_id (0–3) or eth_v")
    }
    if v == 27 || v == 28 { return v - 27 }
    if v >= 35 { return (v - 35) % 2 }
    throw RecordError.invalidField(field: field, reason: "must be 27, 28 or an EIP-155 value (≥ 35)")
}

/// A record's "hash": hex, with or without the 0x that Ethereum tools write.
func hashField(_ record: JSONObject, expected: String) throws -> [UInt8] {
    let text = try record.string("hash", expected: expected)
    return try Hex.decode(text.hasPrefix("0x") || text.hasPrefix("0X") ? String(text.dropFirst(2)) : text)
}
