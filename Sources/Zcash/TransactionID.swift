/// Zcash's transaction ids for v5 (ZIP 244) and v6 (NU6.3's Version 6 Transaction Format, which
/// adds the Ironwood bundle's digest and moves the Sapling, Orchard and Ironwood anchors from
/// the id to the authorizing data): a tree of BLAKE2b-256 digests, each node keyed by its
/// 16-byte personalization; an empty part hashes to its personalization over nothing.
///
/// `--txs` holds every full transaction, v5 and v6, to its compact form's id.
public enum ZcashTransactionID {
    /// The txid in protocol order (as compact blocks carry it).
    public static func of(_ tx: ZcashFullTransaction) -> [UInt8] {
        Blake2.b(
            32, personal: Array("ZcashTxHash_".utf8) + tx.branchID,
            H("ZTxIdHeadersHash", tx.header), transparent(tx), sapling(tx),
            bundle(tx.orchard, tx.isV6 ? orchardV6 : orchardV5), tx.isV6 ? bundle(tx.ironwood ?? .init(), ironwood) : [])
    }

    /// ZIP 244's authorizing data commitment of a v5 transaction (its wtxid's second half): the
    /// input scripts, Sapling's and Orchard's proofs and signatures. nil for v6, whose
    /// authorizing data (with the anchors) this code does not hash.
    public static func authDigest(_ tx: ZcashFullTransaction) -> [UInt8]? {
        guard !tx.isV6 else { return nil }
        return Blake2.b(
            32, personal: Array("ZTxAuthHash_".utf8) + tx.branchID,
            H("ZTxAuthTransHash", tx.inputs.flatMap { compactSize($0.script.count) + $0.script }),
            H("ZTxAuthSapliHash", tx.saplingAuthorization), H("ZTxAuthOrchaHash", tx.orchard.authorization))
    }

    /// The personalizations of an Orchard-encoded bundle's nodes, and whether its anchor is in the id.
    struct BundleNodes { let bundle, compact, memos, noncompact: String; let anchor: Bool }
    static let orchardV5 = BundleNodes(
        bundle: "ZTxIdOrchardHash", compact: "ZTxIdOrcActCHash", memos: "ZTxIdOrcActMHash",
        noncompact: "ZTxIdOrcActNHash", anchor: true)
    static let orchardV6 = BundleNodes(
        bundle: "ZTxIdOrchardH_v6", compact: "ZTxIdOrcActCHash", memos: "ZTxIdOrcActMHash",
        noncompact: "ZTxIdOrcActNHash", anchor: false)
    static let ironwood = BundleNodes(
        bundle: "ZTxIdIronwd_H_v6", compact: "ZTxIdIrnActCH_v6", memos: "ZTxIdIrnActMH_v6",
        noncompact: "ZTxIdIrnActNH_v6", anchor: false)

    static func H(_ personal: String, _ parts: [UInt8]...) -> [UInt8] {
        Blake2.b(32, personal: Array(personal.utf8), parts.flatMap { $0 })
    }

    static func compactSize(_ n: Int) -> [UInt8] {
        n < 0xFD
            ? [UInt8(n)]
            : n <= 0xFFFF
                ? [0xFD, UInt8(n & 0xFF), UInt8(n >> 8)]
                : [0xFE] + (0..<4).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) }
    }

    static func transparent(_ tx: ZcashFullTransaction) -> [UInt8] {
        guard !tx.inputs.isEmpty || !tx.outputs.isEmpty else { return H("ZTxIdTranspaHash") }
        return H(
            "ZTxIdTranspaHash",
            H("ZTxIdPrevoutHash", tx.inputs.flatMap(\.outpoint)), H("ZTxIdSequencHash", tx.inputs.flatMap(\.sequence)),
            H("ZTxIdOutputsHash", tx.outputs.flatMap { $0.value + compactSize($0.script.count) + $0.script }))
    }

    static func sapling(_ tx: ZcashFullTransaction) -> [UInt8] {
        guard !tx.spends.isEmpty || !tx.saplingOutputs.isEmpty else { return H("ZTxIdSaplingHash") }
        let spends =
            tx.spends.isEmpty
            ? H("ZTxIdSSpendsHash")
            : H(
                "ZTxIdSSpendsHash",
                H("ZTxIdSSpendCHash", tx.spends.flatMap(\.nullifier)),
                // v6: the anchor is authorizing data, not part of the id.
                tx.isV6
                    ? H("ZTxIdSSpendNH_v6", tx.spends.flatMap { $0.cv + $0.rk })
                    : H("ZTxIdSSpendNHash", tx.spends.flatMap { $0.cv + tx.saplingAnchor + $0.rk }))
        let outputs =
            tx.saplingOutputs.isEmpty
            ? H("ZTxIdSOutputHash")
            : H(
                "ZTxIdSOutputHash",
                H("ZTxIdSOutC__Hash", tx.saplingOutputs.flatMap { $0.cmu + $0.ephemeralKey + $0.encCiphertext[0..<52] }),
                H("ZTxIdSOutM__Hash", tx.saplingOutputs.flatMap { $0.encCiphertext[52..<564] }),
                H("ZTxIdSOutN__Hash", tx.saplingOutputs.flatMap { $0.cv + $0.encCiphertext[564...] + $0.outCiphertext }))
        return H("ZTxIdSaplingHash", spends, outputs, tx.saplingValueBalance)
    }

    static func bundle(_ b: ZcashFullTransaction.Bundle, _ nodes: BundleNodes) -> [UInt8] {
        guard !b.actions.isEmpty else { return H(nodes.bundle) }
        return H(
            nodes.bundle,
            H(nodes.compact, b.actions.flatMap { $0.nullifier + $0.cmx + $0.ephemeralKey + $0.encCiphertext[0..<52] }),
            H(nodes.memos, b.actions.flatMap { $0.encCiphertext[52..<564] }),
            H(nodes.noncompact, b.actions.flatMap { $0.cv + $0.rk + $0.encCiphertext[564...] + $0.outCiphertext }),
            [b.flags], b.valueBalance, nodes.anchor ? b.anchor : [])
    }
}
