import WalletCore
import WalletUR
import Zcash
import ZcashScan

/// Zcash: F4Jumble and unified encodings (ZIP-316), compact blocks (protobuf), v5 transactions,
/// PCZTs.
enum ZcashTargets {
    static let all = [
        FuzzTarget(name: "f4jumble", covers: "F4Jumble and its inverse (ZIP-316)", run: f4jumble),
        FuzzTarget(name: "unified", covers: "unified addresses and viewing keys (items under F4Jumble and Bech32m)", run: unified),
        FuzzTarget(name: "zcash-compact-block", covers: "lightwalletd's CompactBlock protobuf, as scan-blocks reads it", run: compactBlock),
        FuzzTarget(name: "zcash-v5-tx", covers: "v5 transactions (ZIP-225) up to their Orchard actions, for memos", run: v5Transaction),
        FuzzTarget(name: "pczt", covers: "PCZTs (ZIP 374), versions 1 and 2", run: pczt),
        FuzzTarget(
            name: "zcash-ur", covers: "ur:zcash-pczt (and the signer's review of its PCZT) and ur:zcash-accounts items", run: zcashUR),
    ]

    /// A seed no PCZT of the corpus names: the review runs up to its key checks (digests,
    /// dummies, derivations), which are all a hostile PCZT reaches before it is refused as not
    /// ours. A seed that some PCZT names would make the ZIP 32 keys, whose Sinsemilla tables
    /// take longer than the smoke run's timeout in the instrumented, unoptimized build; the
    /// review with the keys is the unit tests' (PCZTReviewTests and the built PCZTs).
    static let reviewSeed = SecureBytes([UInt8](repeating: 0x5A, count: 64))

    /// The first byte picks the type (even: zcash-pczt, odd: zcash-accounts), the rest is its
    /// CBOR. What reads writes back to what reads the same; a PCZT carried is reviewed.
    static func zcashUR(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let body = Array(bytes.dropFirst())
        if selector & 1 == 0 {
            guard let ur = try? UR(type: ZcashUR.pcztType, cbor: body), let raw = try? ZcashUR.pczt(from: ur) else { return }
            holds((try? ZcashUR.pczt(from: try ZcashUR.pczt(raw))) == raw, "a zcash-pczt written again carries other bytes")
            guard let pczt = try? PCZT(parsing: raw) else { return }
            holds((try? pczt.review(seed: reviewSeed)) == nil, "a PCZT that names no key of the seed passed the review")
            return
        }
        guard let ur = try? UR(type: ZcashUR.accountsType, cbor: body), let read = try? ZcashUR.accounts(from: ur),
            read.seedFingerprint.count == 32
        else { return }
        let again = try? ZcashUR.accounts(from: try ZcashUR.accounts(seedFingerprint: read.seedFingerprint, read.accounts))
        holds(
            again?.seedFingerprint == read.seedFingerprint && again?.accounts == read.accounts,
            "zcash-accounts written again reads otherwise")
    }

    /// What reads writes back as the very bytes: nothing is dropped or reordered.
    static func pczt(_ bytes: [UInt8]) {
        guard let pczt = try? PCZT(parsing: bytes) else { return }
        holds((try? pczt.serialized()) == bytes, "a PCZT read does not write back as its bytes")
    }

    static func f4jumble(_ bytes: [UInt8]) {
        guard bytes.count >= 48 else { return }
        let jumbled = F4Jumble.jumble(bytes)
        holds(jumbled.count == bytes.count, "F4Jumble changed the length")
        holds(F4Jumble.unjumble(jumbled) == bytes, "F4Jumble⁻¹ ∘ F4Jumble is not the identity")
        holds(F4Jumble.jumble(F4Jumble.unjumble(bytes)) == bytes, "F4Jumble ∘ F4Jumble⁻¹ is not the identity")
    }

    /// Raw items with the prefix's padding, jumbled and encoded: what decodes encodes back to
    /// the same string; text straight from the fuzzer too.
    static func unified(_ bytes: [UInt8]) {
        let (selector, rest) = split(bytes)
        let kinds: [UnifiedEncoding.Kind] = [.address, .fullViewingKey, .incomingViewingKey]
        let kind = kinds[Int(selector & 3) % 3]
        let network: ZcashNetwork = selector & 4 == 0 ? .main : .test
        if selector & 8 != 0 {
            if let items = try? UnifiedEncoding.decode(text(rest), kind: kind, network: network) {
                holds(
                    UnifiedEncoding.encode(items, kind: kind, network: network) == text(rest).lowercased(),
                    "a unified encoding did not write back")
            }
            return
        }
        let hrp = kind.hrp(network)
        let raw = rest + Array(hrp.utf8) + [UInt8](repeating: 0, count: 16 - hrp.utf8.count)
        guard raw.count >= 48, let five = try? Bech32.convertBits(F4Jumble.jumble(raw), from: 8, to: 5, pad: true) else { return }
        let encoded = Bech32.encode(hrp: hrp, data: five, variant: .bech32m)
        guard let items = try? UnifiedEncoding.decode(encoded, kind: kind, network: network) else { return }
        holds(UnifiedEncoding.encode(items, kind: kind, network: network) == encoded, "unified items did not write back as read")
    }

    static func compactBlock(_ bytes: [UInt8]) {
        guard let block = try? ZcashCompactBlock.parse(bytes, expectedHeight: nil) else { return }
        let again = try? ZcashCompactBlock.parse(bytes, expectedHeight: Int(block.height))
        holds(again?.id == block.id && again?.saplingOutputCount == block.saplingOutputCount, "a block read twice differs")
    }

    static func v5Transaction(_ bytes: [UInt8]) {
        guard let bundles = try? ZcashTransactionParser.shieldedBundles(bytes) else { return }
        holds(
            (try? ZcashTransactionParser.saplingOutputs(bytes))?.count == bundles.sapling.count, "the two readers of Sapling outputs differ"
        )
    }
}
