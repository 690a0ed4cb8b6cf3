import WalletCore
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
    ]

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
