import WalletCore
import WalletScan
import Zcash

/// The Zcash chain for the engine, its shielded pools (Sapling, Orchard, Ironwood): compact
/// blocks parsed once, then each wallet's incoming viewing keys (external, and internal for
/// change when the full viewing key is known) trial-decrypt every output and action. A note's nullifier, its spend tag, needs nk: with an
/// incoming viewing key alone spends stay unknown, as for a view-only Monero wallet.
public struct ZcashScanner: ChainScanner {
    public typealias Block = ZcashCompactBlock

    public let network: ZcashNetwork
    /// The ZIP-32 account the keys belong to, for records (0 when a viewing key does not say).
    public let account: UInt32
    /// Sapling: nil for an Orchard-only viewing key.
    let external: SaplingIncomingViewingKey?
    let internalKey: SaplingIncomingViewingKey?
    let nk: JubjubPoint?
    let internalNK: JubjubPoint?
    let externalDecryptor: SaplingDecryptor?
    let internalDecryptor: SaplingDecryptor?
    /// Orchard: the external and (with the full viewing key) internal keys, and nk.
    let orchardExternal: OrchardDecryptor?
    let orchardInternal: OrchardDecryptor?
    let orchardNK: PallasBase?

    /// From full viewing keys: receive and change notes, and spends, in each pool whose key is
    /// given (Sapling, Orchard or both; at least one).
    public init(fullViewingKey fvk: SaplingFullViewingKey?, network: ZcashNetwork, account: UInt32, orchard: OrchardFullViewingKey? = nil) {
        precondition(fvk != nil || orchard != nil, "a Zcash scanner needs a Sapling or an Orchard key")
        let internalFVK = fvk?.internal
        self.init(
            network: network, account: account, external: fvk?.incomingViewingKey, internalKey: internalFVK?.incomingViewingKey,
            nk: fvk?.nk, internalNK: internalFVK?.nk,
            orchardExternal: orchard?.incomingViewingKey(change: false), orchardInternal: orchard?.incomingViewingKey(change: true),
            orchardNK: orchard?.nk)
    }

    /// From incoming viewing keys: received notes only, in each pool whose key is given.
    public init(
        incomingViewingKey ivk: SaplingIncomingViewingKey?, network: ZcashNetwork, account: UInt32,
        orchard: OrchardIncomingViewingKey? = nil
    ) {
        precondition(ivk != nil || orchard != nil, "a Zcash scanner needs a Sapling or an Orchard key")
        self.init(
            network: network, account: account, external: ivk, internalKey: nil, nk: nil, internalNK: nil,
            orchardExternal: orchard, orchardInternal: nil, orchardNK: nil)
    }

    init(
        network: ZcashNetwork, account: UInt32, external: SaplingIncomingViewingKey?, internalKey: SaplingIncomingViewingKey?,
        nk: JubjubPoint?, internalNK: JubjubPoint?, orchardExternal: OrchardIncomingViewingKey? = nil,
        orchardInternal: OrchardIncomingViewingKey? = nil, orchardNK: PallasBase? = nil
    ) {
        self.orchardExternal = orchardExternal.map(OrchardDecryptor.init)
        self.orchardInternal = orchardInternal.map(OrchardDecryptor.init)
        self.orchardNK = orchardNK
        self.network = network
        self.account = account
        self.external = external
        self.internalKey = internalKey
        self.nk = nk
        self.internalNK = internalNK
        let consensus = SaplingConsensus.of(network)
        externalDecryptor = external.map { SaplingDecryptor(ivk: $0.ivk, consensus: consensus) }
        internalDecryptor = internalKey.map { SaplingDecryptor(ivk: $0.ivk, consensus: consensus) }
    }

    public static let chainName = "zcash"
    /// Records say "account", "diversifier_index" (of the note's address), "nullifier", "memo".
    public static let fieldNames = OutputFieldNames(
        account: "account", addressIndex: "diversifier_index", spendTag: "nullifier", memo: "memo")
    /// The shielded pools scanned (transparent outputs are not): a balance names them, with
    /// each one's sums, lest it be read as the wallet's whole balance.
    /// An Orchard key scans both Orchard-protocol pools: Orchard and NU6.3's Ironwood.
    public var balancePools: [String]? { (orchardExternal == nil ? [] : ["orchard", "ironwood"]) + (external == nil ? [] : ["sapling"]) }

    /// NU6.3's height on mainnet (librustzcash consensus.rs), where the Ironwood pool begins.
    /// The test network's is not recorded here: there a catch-up reads from the birthday.
    public static let ironwoodActivation: [ZcashNetwork: Int] = [.main: 3_428_143]

    /// Where each shielded pool begins, its tree empty before (librustzcash's consensus
    /// parameters: Sapling's and NU5's activation heights, and NU6.3's).
    static let poolActivations: [ZcashNetwork: [(pool: String, height: Int)]] = [
        .main: [("Sapling", 419_200), ("Orchard", 1_687_104), ("Ironwood", 3_428_143)],
        .test: [("Sapling", 280_000), ("Orchard", 1_842_420)],
    ]

    /// A note is its nullifier (Orchard and Ironwood: rho is the nullifier its action reveals;
    /// Sapling: the nullifier hashes the note's position), so no two notes share one.
    public static var spendTagIsUnique: Bool { true }

    /// A pool's outputs below its activation height, or a first tree size that is not the
    /// activation block's own count of the pool's outputs (every later note's position, so its
    /// nullifier and witness, would be off by the difference).
    public func impossibility(in block: ZcashCompactBlock, at height: Int) -> String? {
        for (pool, activation) in Self.poolActivations[network] ?? [] {
            let (count, size, leaves): (Int, UInt32?, String) =
                switch pool {
                case "Sapling": (block.saplingOutputCount, block.saplingTreeSize, "outputs")
                case "Orchard": (block.orchardActionCount, block.saplingTreeSize.map { _ in block.orchardTreeSize }, "actions")
                default: (block.ironwoodActionCount, block.saplingTreeSize.map { _ in block.ironwoodTreeSize }, "actions")
                }
            if height < activation && count > 0 {
                return
                    "it holds \(count) \(pool) \(leaves), but the \(pool) pool begins at block \(activation) on \(network.rawValue)net: they cannot exist; the server or file is not serving this chain"
            }
            if height == activation, let size, size != count {
                return
                    "the \(pool) pool begins at this block, whose \(count) \(pool) \(leaves) make its note-commitment tree size \(count), but the block says \(size): every \(pool) note's position, and so its nullifier, would be wrong; the server or file is not serving this chain"
            }
        }
        return nil
    }

    /// Ironwood: states made by versions before it went past NU6.3 without scanning it.
    public var addedPools: [(name: String, since: Int)] {
        orchardExternal == nil ? [] : [("ironwood", Self.ironwoodActivation[network] ?? 0)]
    }

    /// An Orchard action's output index is tagged with 2^32, an Ironwood action's with 2^33 (a
    /// transaction's Sapling outputs and both pools' actions count from 0, and the state keys
    /// outputs by transaction and index).
    static let orchardTag = 1 << 32
    static let ironwoodTag = 1 << 33

    public static func pool(ofIndex index: Int) -> (name: String, index: Int)? {
        index >= ironwoodTag
            ? ("ironwood", index - ironwoodTag) : index >= orchardTag ? ("orchard", index - orchardTag) : ("sapling", index)
    }

    /// An Ironwood note's tag is its nullifier with the pool's byte after it (`ironwoodSpendTagSuffix`):
    /// records show the nullifier.
    public static func spendTagText(_ tag: [UInt8]) -> String { Hex.encode(tag.count == 33 ? Array(tag.prefix(32)) : tag) }

    /// The state file's name: network and a hash of the incoming viewing keys (one file per
    /// wallet). A wallet with Orchard keys has a state of its own: one made before Orchard
    /// was scanned did not look at the actions of the blocks it holds. (A missing key hashes
    /// as nothing; a Sapling key is 64 bytes and the network name follows it, so no two key
    /// sets give the same input.)
    public var stateName: String {
        "zcash-\(network.rawValue)-"
            + Hex.encode(
                Blake2.b(
                    12, personal: Array("Satchel_ZState__".utf8), external?.bytes ?? [], Array(network.rawValue.utf8),
                    orchardExternal?.key.bytes ?? []))
    }

    public var stateID: String {
        Hex.encode(
            Blake2.b(
                16, personal: Array("Satchel_ZStateID".utf8), external?.bytes ?? [], nk?.bytes ?? [], orchardExternal?.key.bytes ?? [],
                orchardNK?.bytes ?? []))
    }

    /// Spends are known when every scanned pool's nullifiers can be computed.
    public var spendsKnown: Bool { (external == nil || nk != nil) && (orchardExternal == nil || orchardNK != nil) }

    public static func parse(_ data: BlockData) -> Result<ZcashCompactBlock, ScanError> {
        do {
            let block = try ZcashCompactBlock.parse(data.blob, expectedHeight: data.height, fullTransactions: data.transactions)
            if let claimed = data.claimedID, claimed != block.id {
                return .failure(.hashMismatch(what: "block \(data.height)", expected: Hex.encode(claimed), computed: Hex.encode(block.id)))
            }
            return .success(block)
        } catch {
            return .failure(.malformed(what: "block \(data.height)", reason: error.message))
        }
    }

    /// Compact mempool transactions are not read (a compact block source has no mempool).
    public static func parseTransaction(_ blob: [UInt8]) -> ZcashCompactTransaction? { nil }

    /// Spendable once 10 blocks deep, the light-wallet SDKs' default.
    public static func isUnlocked(_ o: ReceivedOutput, walletHeight: Int, now: UInt64) -> Bool {
        (o.height ?? walletHeight) + 10 <= walletHeight
    }

    public mutating func prepare(cached: [AddressEntry]) throws {}
    public mutating func takeNewAddresses() -> [AddressEntry] { [] }

    public func scan(_ transactions: [ZcashCompactTransaction]) throws(ScanError) -> [[ReceivedOutput]] {
        // Work items: runs of up to 64 of the blocks' Sapling outputs, Orchard actions or
        // Ironwood actions, whose key agreements are batched (`SaplingDecryptor.sharedSecrets`,
        // `OrchardDecryptor.sharedSecrets`: both Orchard-protocol pools on the same kernel).
        enum Item { case outputs([(Int, Int)]), actions([(Int, Int)], OrchardNoteVersion) }
        var outputs = [(Int, Int)](), actions = [(Int, Int)](), ironwood = [(Int, Int)]()
        for t in transactions.indices {
            if external != nil { outputs += transactions[t].outputs.indices.map { (t, $0) } }
            if orchardExternal != nil {
                actions += transactions[t].actions.indices.map { (t, $0) }
                ironwood += transactions[t].ironwoodActions.indices.map { (t, $0) }
            }
        }
        // What is tried: the Sapling outputs (when the wallet has a Sapling key) and the actions.
        let size = outputs.count + actions.count + ironwood.count
        func runs(_ places: [(Int, Int)]) -> [[(Int, Int)]] {
            stride(from: 0, to: places.count, by: 64).map { Array(places[$0..<min($0 + 64, places.count)]) }
        }
        let items =
            runs(outputs).map(Item.outputs) + runs(actions).map { Item.actions($0, .v2) } + runs(ironwood).map { Item.actions($0, .v3) }
        // A sandblasted block holds thousands of outputs: past a few hundred its outputs are
        // spread over the cores (the engine gives one block one task).
        let one = { @Sendable (item: Item) in
            Result { () throws(ScanError) -> [(place: (Int, Int, Int), output: ReceivedOutput)] in
                switch item {
                case .outputs(let run): try self.scan(transactions, outputs: run).map { (($0.place.0, $0.place.1, 0), $0.output) }
                case .actions(let run, let version):
                    try self.scan(transactions, actions: run, version: version).map {
                        (($0.place.0, $0.place.1, version == .v2 ? 1 : 2), $0.output)
                    }
                }
            }
        }
        let found = size >= 256 ? ParallelMap.map(items, one) : items.map(one)
        var out = [[ReceivedOutput]](repeating: [], count: transactions.count)
        var all = [(place: (Int, Int, Int), output: ReceivedOutput)]()
        for f in found { all += try f.get() }
        // Sapling first in each transaction, then Orchard, then Ironwood, each in order.
        all.sort { ($0.place.0, $0.place.2, $0.place.1) < ($1.place.0, $1.place.2, $1.place.1) }
        for f in all { out[f.place.0].append(f.output) }
        return out
    }

    /// The actions at `run` (transaction, action) of the pool whose notes have `version` that
    /// pay the wallet: each is tried with the external Orchard key, then the ones it does not
    /// open with the internal key.
    private func scan(
        _ transactions: [ZcashCompactTransaction], actions run: [(Int, Int)], version: OrchardNoteVersion
    ) throws(ScanError)
        -> [(place: (Int, Int), output: ReceivedOutput)]
    {
        guard let external = orchardExternal else { return [] }
        func actions(_ tx: ZcashCompactTransaction) -> [CompactOrchardAction] { version == .v2 ? tx.actions : tx.ironwoodActions }
        var tried = run.compactMap { place -> (place: (Int, Int), epk: PallasPoint)? in
            let tx = transactions[place.0]
            guard tx.height != nil else { return nil }
            // Decoded with the block (`ephemeralPoints`); one at a time only for a transaction made otherwise.
            let decoded = version == .v2 ? tx.ephemeralPoints : tx.ironwoodEphemeralPoints
            let epk = decoded.count == actions(tx).count ? decoded[place.1] : OrchardDecryptor.ephemeralPoint(actions(tx)[place.1])
            return epk.map { (place, $0) }
        }
        var found = [(place: (Int, Int), output: ReceivedOutput)]()
        for (decryptor, change) in [(external, false), (orchardInternal, true)] {
            guard let decryptor, !tried.isEmpty else { continue }
            var left = [(place: (Int, Int), epk: PallasPoint)]()
            for (t, secret) in zip(tried, decryptor.sharedSecrets(tried.map(\.epk))) {
                let tx = transactions[t.place.0]
                guard let note = decryptor.tryDecrypt(actions(tx)[t.place.1], sharedSecret: secret, version: version) else {
                    left.append(t); continue
                }
                found.append((t.place, try received(note, tx: tx, action: t.place.1, key: decryptor.key, change: change)))
            }
            tried = left
        }
        return found
    }

    private func received(
        _ found: DecryptedOrchardNote, tx: ZcashCompactTransaction, action i: Int, key: OrchardIncomingViewingKey,
        change: Bool
    ) throws(ScanError) -> ReceivedOutput {
        let note = found.note
        let ironwood = note.version == .v3
        // An Ironwood note is spent only by an Ironwood action's nullifier: its tag says the pool.
        let tag = orchardNK.flatMap { note.nullifier(nk: $0)?.bytes }.map { ironwood ? $0 + [ironwoodSpendTagSuffix] : $0 }
        let full = ironwood ? tx.fullIronwoodCiphertexts : tx.fullActionCiphertexts
        var o = ReceivedOutput(
            height: nil, txID: tx.id, index: (ironwood ? Self.ironwoodTag : Self.orchardTag) + i, amount: note.value,
            account: account, addressIndex: Self.addressIndex(of: note.address.diversifier, dk: key.dk), spendTag: tag,
            memo: try Self.memo(full?[i], key: found.key, of: "\(ironwood ? "Ironwood" : "Orchard") action \(i)", in: tx),
            unlockTime: 0, isCoinbase: tx.index == 0, outputKey: note.address.bytes, isChange: change)
        o.position = (ironwood ? tx.firstIronwoodPosition : tx.firstActionPosition).map { $0 + UInt64(i) }
        return o
    }

    /// The memo of a found note, when the full transaction came with the block: the AEAD tag
    /// checks the whole ciphertext under the note's key. A tag that fails where the compact
    /// part decrypted means the full transaction is not the one the block committed to.
    private static func memo(_ full: [UInt8]?, key: [UInt8], of what: String, in tx: ZcashCompactTransaction) throws(ScanError) -> [UInt8]?
    {
        guard let full else { return nil }
        guard let p = SaplingMemo.plaintext(encCiphertext: full, key: key) else {
            throw .malformed(
                what: "transaction \(Hex.encode(tx.id))",
                reason:
                    "\(what)'s full note ciphertext fails its authentication tag, though its first 52 bytes (the compact block's) decrypt: the full transaction does not match its compact form; check the --txs file"
            )
        }
        let memo = Array(p[52..<564])
        return SaplingMemo.isEmpty(memo) ? nil : memo
    }

    /// The diversifier index of a note's address, for records (UInt32.max when it does not fit).
    private static func addressIndex(of diversifier: [UInt8], dk: [UInt8]) -> UInt32 {
        let j = SaplingDiversifier.index(of: diversifier, dk: dk)
        return j.high == 0 && j.low <= UInt64(UInt32.max) ? UInt32(j.low) : UInt32.max
    }

    /// The outputs at `run` (transaction, output) that pay the wallet: each is tried with the
    /// external Sapling key, then the ones it does not open with the internal key.
    private func scan(
        _ transactions: [ZcashCompactTransaction], outputs run: [(Int, Int)]
    ) throws(ScanError)
        -> [(place: (Int, Int), output: ReceivedOutput)]
    {
        guard let external, let externalDecryptor else { return [] }
        var tried = run.compactMap { place -> (place: (Int, Int), epk: JubjubPoint)? in
            let tx = transactions[place.0]
            guard tx.height != nil, tx.outputs[place.1].ciphertext.count == 52, tx.outputs[place.1].cmu.count == 32 else { return nil }
            // Decoded with the block (`outputEphemeralPoints`); one at a time only for a transaction made otherwise.
            let epk =
                tx.outputEphemeralPoints.count == tx.outputs.count
                ? tx.outputEphemeralPoints[place.1]
                : JubjubPoint(bytes: tx.outputs[place.1].ephemeralKey)
            return epk.map { (place, $0) }
        }
        var found = [(place: (Int, Int), output: ReceivedOutput)]()
        let keys = [(externalDecryptor, external, nk, false)] + (internalDecryptor.map { [($0, internalKey!, internalNK, true)] } ?? [])
        for (decryptor, ivk, nk, change) in keys where !tried.isEmpty {
            var left = [(place: (Int, Int), epk: JubjubPoint)]()
            for (t, secret) in zip(tried, decryptor.sharedSecrets(tried.map(\.epk))) {
                let tx = transactions[t.place.0], i = t.place.1
                guard let note = decryptor.tryDecrypt(tx.outputs[i], sharedSecret: secret, height: tx.height!) else {
                    left.append(t); continue
                }
                var o = received(
                    note, tx: tx, index: i, position: tx.firstPosition.map { $0 + UInt64(i) }, ivk: ivk, nk: nk, change: change)
                o.memo = try Self.memo(tx.fullCiphertexts?[i], key: note.key, of: "Sapling output \(i)", in: tx)
                found.append((t.place, o))
            }
            tried = left
        }
        return found
    }

    private func received(
        _ d: DecryptedNote, tx: ZcashCompactTransaction, index: Int, position: UInt64?,
        ivk: SaplingIncomingViewingKey, nk: JubjubPoint?, change: Bool
    ) -> ReceivedOutput {
        let nullifier = nk.flatMap { nk in position.flatMap { d.note.nullifier(nk: nk, position: $0) } }
        var o = ReceivedOutput(
            height: nil, txID: tx.id, index: index, amount: d.note.value, account: account,
            addressIndex: Self.addressIndex(of: d.note.diversifier, dk: ivk.dk),
            spendTag: nullifier, memo: nil, unlockTime: 0, isCoinbase: tx.index == 0,
            outputKey: d.note.diversifier + d.note.transmissionKey, isChange: change)
        o.position = position
        return o
    }

    /// "memo": the 512 bytes in hex; "memo_text" too when the memo is text (ZIP-302).
    public static func memoFields(_ memo: [UInt8]) -> [(key: String, value: String)] {
        [("memo", Hex.encode(memo))] + (SaplingMemo.text(memo).map { [("memo_text", $0)] } ?? [])
    }

    public mutating func noteStored(_ output: ReceivedOutput) throws -> Bool { false }

    public func asChange(_ output: ReceivedOutput) -> ReceivedOutput {
        var o = output
        o.isChange = true
        return o
    }

    /// The zs1 address at a diversifier index of the external key; for an Orchard-only key,
    /// the unified address of the Orchard receiver there.
    public func address(account: UInt32, index: UInt32) -> String? {
        guard index != UInt32.max else { return nil }
        guard let external else {
            return orchardExternal.map {
                UnifiedEncoding.orchardAddress($0.key.address(at: DiversifierIndex(UInt64(index))).bytes, network: network)
            }
        }
        return external.address(exactly: DiversifierIndex(UInt64(index)))?.encoded(network)
    }

    /// The note's own address (d ‖ pk_d is its output key here), external or internal: zs1…
    /// for Sapling, a unified address with the Orchard receiver alone for Orchard.
    public func addressPaid(_ output: ReceivedOutput) -> String? {
        guard output.outputKey.count == 43 else { return nil }
        if Self.pool(ofIndex: output.index)?.name != "sapling" {
            return UnifiedEncoding.orchardAddress(output.outputKey, network: network)
        }
        return SaplingPaymentAddress(diversifier: Array(output.outputKey[0..<11]), transmissionKey: Array(output.outputKey[11...])).encoded(
            network)
    }
}
