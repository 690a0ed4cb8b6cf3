import WalletCore
import WalletKeys
import WalletCrypto

/// What people type or paste: phrases, extended keys, paths, descriptors, WIF keys.
enum KeyTargets {
    static let all = [
        FuzzTarget(name: "phrase", covers: "BIP39 phrases in its 10 wordlists, Monero 25-word seeds", run: phrase),
        FuzzTarget(
            name: "extended-key", covers: "BIP32 extended keys (a 78-byte payload under a good checksum, and text)", run: extendedKey),
        FuzzTarget(name: "slip132", covers: "SLIP-132 prefixes: each version's key under every other version", run: slip132),
        FuzzTarget(name: "derivation-path", covers: "derivation paths and path ranges", run: derivationPath),
        FuzzTarget(name: "descriptor", covers: "account descriptors (pkh, sh(wpkh), wpkh, tr) with origin and checksum", run: descriptor),
        FuzzTarget(name: "wif", covers: "WIF private keys", run: wif),
    ]

    /// A phrase read is the phrase its entropy makes; entropy made into a phrase reads back.
    static func phrase(_ bytes: [UInt8]) {
        // 24 words of any list fit in 512 bytes; an unknown word costs a scan of its list.
        guard bytes.count <= 512 else { return }
        let (selector, rest) = split(bytes)
        if selector & 1 == 0 {
            guard let mnemonic = try? MnemonicSchemes.parse(text(rest), scheme: nil, language: nil) else { return }
            let handler = MnemonicSchemes.handler(for: mnemonic.scheme)
            let again = try? handler.mnemonic(fromEntropy: handler.entropy(of: mnemonic), language: mnemonic.language)
            holds(again?.words == mnemonic.words, "a phrase read is not the phrase of its entropy")
            return
        }
        let monero = selector & 2 != 0
        let handler: any MnemonicSeedHandler = monero ? MnemonicSchemes.monero : MnemonicSchemes.bip39
        let length = handler.entropyLengths[Int(selector >> 2) % handler.entropyLengths.count]
        guard rest.count >= length else { return }
        var entropy = Array(rest.prefix(length))
        if monero { entropy[31] &= 0x0F }  // a reduced scalar, as Monero stores the seed
        let language = handler.languages[Int(selector >> 5) % handler.languages.count]
        guard let made = try? handler.mnemonic(fromEntropy: SecureBytes(entropy), language: language) else {
            holds(monero, "BIP39 refused entropy of an allowed length")
            return
        }
        guard let read = try? MnemonicSchemes.parse(made.phrase, scheme: handler.scheme, language: nil) else {
            holds(false, "a \(language) phrase we made does not read back")
            return
        }
        holds(handler.entropy(of: read).bytes == handler.entropy(of: made).bytes, "a phrase read back to other entropy")
    }

    /// The payload under a good checksum reaches every structural check; a key read writes back
    /// as the same text.
    static func extendedKey(_ bytes: [UInt8]) {
        if let key = try? ExtendedKey(parsing: text(bytes)) {
            holds(key.serialized() == text(bytes), "an extended key did not write back as read")
        }
        guard bytes.count == 78 else { return }
        let encoded = Base58.encodeCheck(bytes)
        guard let key = try? ExtendedKey(parsing: encoded) else { return }
        holds(key.serialized() == encoded, "an extended key did not write back as read")
        if key.depth < 255, let child = try? key.child(key.isPrivate ? 0x8000_0000 : 0) {
            holds(child.depth == key.depth + 1, "a child is not one deeper")
        }
    }

    /// A key's version changed to any other of SLIP-132's table reads as the same key.
    static func slip132(_ bytes: [UInt8]) {
        let (selector, rest) = split(bytes)
        guard rest.count == 74 else { return }
        let versions = ExtendedKeyVersion.all
        let from = versions[Int(selector & 0x0F) % versions.count], to = versions[Int(selector >> 4) % versions.count]
        let isPrivate = rest[41] == 0
        let number = isPrivate ? from.privateVersion : from.publicVersion
        let payload =
            [
                UInt8(number >> 24), UInt8(truncatingIfNeeded: number >> 16), UInt8(truncatingIfNeeded: number >> 8),
                UInt8(truncatingIfNeeded: number),
            ] + rest
        guard let key = try? ExtendedKey(parsing: Base58.encodeCheck(payload)) else { return }
        holds(key.version == from && key.isPrivate == isPrivate, "the version read is not the version written")
        let moved = key.serialized(version: to)
        holds(moved.hasPrefix(isPrivate ? to.privatePrefix : to.publicPrefix), "\(to.publicPrefix) key written with another prefix")
        guard let back = try? ExtendedKey(parsing: moved) else { holds(false, "a key under \(to.publicPrefix) does not read back"); return }
        holds(
            back.version == to && back.publicKey.compressed == key.publicKey.compressed && back.chainCode == key.chainCode
                && back.depth == key.depth, "a key changed under another version")
        if isPrivate {
            holds(ExtendedKeyVersion.named(to.privatePrefix) == to, "the private prefix \(to.privatePrefix) names another version")
        }
    }

    static func derivationPath(_ bytes: [UInt8]) {
        let string = text(bytes)
        if let path = try? DerivationPath(parsing: string) {
            let again = try? DerivationPath(parsing: path.description)
            holds(again == path, "a path did not read back from its own text")
        }
        if let paths = try? DerivationPath.parseRange(string) {
            holds(!paths.isEmpty && paths.count <= 1_000_000, "a range gave \(paths.count) paths")
            for path in paths.prefix(3) {
                holds((try? DerivationPath(parsing: path.description)) == path, "a path of a range did not read back")
            }
        }
    }

    /// A descriptor read, written by Descriptor.account, reads as the same account.
    static func descriptor(_ bytes: [UInt8]) {
        guard let read = try? AccountDescriptor(parsing: text(bytes)) else { return }
        holds(!read.key.isPrivate, "a descriptor gave a private key")
        guard let origin = read.origin, read.chains.count == 1, read.script != .ethereum,
            let written = Descriptor.account(
                script: read.script, masterFingerprint: origin.fingerprint, accountPath: origin.path,
                accountXpub: read.key.serialized(), change: read.chains[0])
        else { return }
        guard let again = try? AccountDescriptor(parsing: written) else {
            holds(false, "our own descriptor does not read: \(written)"); return
        }
        holds(
            again.script == read.script && again.key.serialized() == read.key.serialized() && again.chains == read.chains
                && again.origin?.fingerprint == origin.fingerprint && again.origin?.path == origin.path,
            "a descriptor changed on a write and read")
    }

    static func wif(_ bytes: [UInt8]) {
        _ = try? WIF.decode(text(bytes))
        guard bytes.count == 33 || bytes.count == 34 else { return }
        let decoded = try? WIF.decode(Base58.encodeCheck(bytes))
        let valid = (bytes.count == 33 || bytes[33] == 1) && Secp256k1.isValidPrivateKey(SecureBytes(bytes[1..<33]))
        holds((decoded != nil) == valid && (decoded == nil || decoded!.bytes == Array(bytes[1..<33])), "WIF read the key wrong")
    }
}
