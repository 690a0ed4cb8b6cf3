import Monero
import WalletCore
import WalletCrypto
import WalletKeys

/// Text encodings of keys and addresses: each decoder against its encoder.
enum EncodingTargets {
    static let all = [
        FuzzTarget(name: "base58", covers: "Base58 and Base58Check (Bitcoin's alphabet)", run: base58),
        FuzzTarget(name: "base58-monero", covers: "Monero's block-wise Base58", run: moneroBase58),
        FuzzTarget(name: "bech32", covers: "Bech32, Bech32m and segwit addresses (BIP173, BIP350)", run: bech32),
        FuzzTarget(name: "cashaddr", covers: "CashAddr (Bitcoin Cash)", run: cashAddr),
        FuzzTarget(name: "hex-base64", covers: "Hex and Base64", run: hexBase64),
    ]

    static func base58(_ bytes: [UInt8]) {
        let string = text(bytes)
        if let decoded = try? Base58.decode(string) {
            holds(Base58.encode(decoded) == string, "Base58 decode∘encode is not the identity")
        }
        // As bytes: encode then decode is the identity, and Base58Check finds one changed
        // character, for encodings the decoder takes: its limit counts characters, and an
        // encoding has at least as many characters as bytes.
        guard bytes.count <= Base58.maxDecodedLength else { return }
        let encoded = Base58.encode(bytes)
        guard encoded.utf8.count <= Base58.maxDecodedLength else { return }
        holds((try? Base58.decode(encoded)) == bytes, "Base58 encode∘decode is not the identity")
        let checked = Base58.encodeCheck(bytes)
        guard checked.utf8.count <= Base58.maxDecodedLength else { return }
        holds((try? Base58.decodeCheck(checked)) == bytes, "Base58Check encode∘decode is not the identity")
        if let (position, replacement) = substitution(in: checked, from: Base58.alphabet, seed: bytes) {
            var changed = Array(checked.utf8)
            changed[position] = replacement
            if let decoded = try? Base58.decodeCheck(text(changed)) {
                // A 4-byte checksum misses one change in 2^32; only a leading-zero swap is exact.
                holds(decoded != bytes, "Base58Check read a changed string as the same payload")
            }
        }
    }

    static func moneroBase58(_ bytes: [UInt8]) {
        let string = text(bytes)
        if let decoded = try? MoneroBase58.decode(string) {
            holds(MoneroBase58.encode(decoded) == string, "Monero Base58 decode∘encode is not the identity")
        }
        holds((try? MoneroBase58.decode(MoneroBase58.encode(bytes))) == bytes, "Monero Base58 encode∘decode is not the identity")
    }

    static func bech32(_ bytes: [UInt8]) {
        let string = text(bytes)
        if let (hrp, data, variant) = try? Bech32.decode(string) {
            holds(
                Bech32.encode(hrp: hrp, data: data, variant: variant) == string.lowercased(),
                "Bech32 decode∘encode is not the lowercase input")
        }
        if let (version, program) = try? SegwitAddress.decode(string, hrp: "bc") {
            holds(
                SegwitAddress.encode(hrp: "bc", version: version, program: program) == string.lowercased(),
                "a segwit address did not re-encode")
        }
        // Built: a prefix of printable ASCII, then 5-bit groups; every one-character change is found.
        let (selector, rest) = split(bytes)
        guard !rest.isEmpty else { return }  // BIP173: a prefix has one character or more
        let hrpLength = min(Int(selector >> 4) + 1, rest.count)
        let hrp = String(decoding: rest.prefix(hrpLength).map { 33 + $0 % 94 }.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
        let data = rest.dropFirst(hrpLength).prefix(90 - hrpLength - 7).map { $0 & 31 }
        let variant: Bech32.Variant = selector & 1 == 0 ? .bech32 : .bech32m
        let encoded = Bech32.encode(hrp: hrp, data: data, variant: variant)
        guard let decoded = try? Bech32.decode(encoded) else { holds(false, "our own Bech32 string does not decode"); return }
        holds(decoded.hrp == hrp && decoded.data == data && decoded.variant == variant, "Bech32 encode∘decode is not the identity")
        let separator = encoded.utf8.count - data.count - 6
        if let (position, replacement) = substitution(in: encoded, from: Bech32.charset, seed: bytes, from: separator) {
            var changed = Array(encoded.utf8)
            changed[position] = replacement
            holds((try? Bech32.decode(text(changed))) == nil, "Bech32 missed a one-character change")
        }
    }

    static func cashAddr(_ bytes: [UInt8]) {
        let string = text(bytes)
        if let (prefix, type, hash) = try? CashAddr.decode(string, defaultPrefix: "bitcoincash") {
            let encoded = CashAddr.encode(prefix: prefix, type: type, hash: hash)
            let lower = string.lowercased()
            holds(encoded == lower || encoded == "\(prefix):\(lower)", "CashAddr decode∘encode is not the input")
        }
        let (selector, hash) = split(bytes)
        let sizes = [20, 24, 28, 32, 40, 48, 56, 64]
        let size = sizes[Int(selector & 7)]
        guard hash.count >= size else { return }
        let type = (selector >> 3) & 0x0F
        let encoded = CashAddr.encode(prefix: "bitcoincash", type: type, hash: Array(hash.prefix(size)))
        let decoded = try? CashAddr.decode(encoded, defaultPrefix: "bitcoincash")
        holds(decoded?.type == type && decoded?.hash == Array(hash.prefix(size)), "CashAddr encode∘decode is not the identity")
    }

    static func hexBase64(_ bytes: [UInt8]) {
        let string = text(bytes)
        if let decoded = try? Hex.decode(string) {
            holds(Hex.encode(decoded) == string.lowercased(), "hex decode∘encode is not the lowercase input")
        }
        holds((try? Hex.decode(Hex.encode(bytes))) == bytes, "hex encode∘decode is not the identity")
        if let decoded = Base64.decode(string) {
            holds(Base64.decode(Base64.encode(decoded)) == decoded, "Base64 decode∘encode∘decode changed the bytes")
        }
        holds(Base64.decode(Base64.encode(bytes)) == bytes, "Base64 encode∘decode is not the identity")
    }

    /// A position at or after `start` and another character of `alphabet` to put there, chosen by the input.
    static func substitution(in string: String, from alphabet: [UInt8], seed: [UInt8], from start: Int = 0) -> (Int, UInt8)? {
        let utf8 = Array(string.utf8)
        guard utf8.count > start, seed.count >= 2 else { return nil }
        let position = start + Int(seed[seed.count - 1]) % (utf8.count - start)
        var replacement = alphabet[Int(seed[seed.count - 2]) % alphabet.count]
        if replacement == utf8[position] { replacement = alphabet[(alphabet.firstIndex(of: replacement)! + 1) % alphabet.count] }
        return (position, replacement)
    }
}
