import Foundation
import SwiftProtobuf
import WalletCore
import WalletScan
import Zcash

/// A compact block as the engine sees it: its id and parent, and its transactions, each with
/// the height and tree positions its outputs need.
public struct ZcashCompactBlock: ChainBlock {
    public let height: UInt64
    /// The block hash, little-endian as lightwalletd sends it.
    public let id: [UInt8]
    public let previousID: [UInt8]
    public let time: UInt32
    public let transactions: [ZcashCompactTransaction]
    /// The Sapling note-commitment tree size at the end of the block, when the server said.
    public let saplingTreeSize: UInt32?
    /// The Orchard tree size at its end (0 before NU5, or when the server did not say).
    public let orchardTreeSize: UInt32
    /// Its Orchard actions, each one leaf of the Orchard tree.
    public let orchardActionCount: Int
    /// NU6.3's Ironwood tree size at its end (ChainMetadata field 3; 0 when not given).
    public var ironwoodTreeSize: UInt32 = 0
    /// Its transactions (and the block itself, counted once) that carry fields this version
    /// does not read, perhaps a later upgrade's pool (`ChainBlock.unreadParts`).
    public var unreadParts = 0

    public var saplingOutputCount: Int { transactions.reduce(0) { $0 + $1.outputs.count } }
    /// Its Ironwood actions, each one leaf of the Ironwood tree.
    public var ironwoodActionCount: Int { transactions.reduce(0) { $0 + $1.ironwoodActions.count } }

    /// The tree sizes at its end, little-endian: (Sapling, Orchard, Ironwood); nil when the
    /// block did not give them.
    public var tally: [UInt8]? {
        saplingTreeSize.map { sapling in
            [sapling, orchardTreeSize, ironwoodTreeSize].flatMap { size in (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } }
        }
    }

    /// Each tree grows by exactly the block's leaves. A parent size of 0 checks nothing: it is
    /// the empty tree or an old cache's "unknown", and both are read as unknown.
    public func contradiction(parentTally: [UInt8]) -> String? {
        // 8 bytes: stored before Ironwood was counted (its parent size then reads as unknown).
        guard parentTally.count == 8 || parentTally.count == 12 else { return "the stored tree sizes of block \(height - 1) are damaged" }
        func size(_ offset: Int) -> UInt64 {
            offset < parentTally.count ? (0..<4).reduce(UInt64(0)) { $0 | UInt64(parentTally[offset + $1]) << (8 * UInt64($1)) } : 0
        }
        let given = { (size: UInt32) in self.saplingTreeSize == nil ? nil : size }
        let pools: [(name: String, parent: UInt64, leaves: Int, leafName: String, given: UInt32?)] = [
            ("Sapling", size(0), saplingOutputCount, "outputs", saplingTreeSize),
            ("Orchard", size(4), orchardActionCount, "actions", given(orchardTreeSize)),
            ("Ironwood", size(8), ironwoodActionCount, "Ironwood actions", given(ironwoodTreeSize)),
        ]
        for pool in pools where pool.parent > 0 {
            let expected = pool.parent + UInt64(pool.leaves)
            guard let given = pool.given, UInt64(given) == expected else {
                let says = pool.given.map { "says its \(pool.name) note-commitment tree size is \($0)" } ?? "gives no tree sizes"
                return
                    "it \(says), but block \(height - 1) ended at \(pool.parent) and this block adds \(pool.leaves) \(pool.leafName) (\(expected) expected): the tree sizes are inconsistent, and notes would get wrong nullifiers"
            }
        }
        return nil
    }
}

/// A compact transaction: its Sapling nullifiers (the spends) and outputs.
public struct ZcashCompactTransaction: ChainTransaction {
    public let id: [UInt8]
    /// The transaction's index in the full block (0 is the coinbase).
    public let index: UInt64
    /// The nullifiers its Sapling spends reveal.
    public let spendTags: [[UInt8]]
    public let outputs: [CompactSaplingOutput]
    /// nil in the mempool.
    public let height: UInt64?
    /// The tree position of its first Sapling output; nil when the block did not give the
    /// tree size (old servers), so nullifiers cannot be known.
    public let firstPosition: UInt64?
    /// Each output's full 580-byte note ciphertext, when the full transaction was given.
    public let fullCiphertexts: [[UInt8]]?
    /// Its Orchard actions (each spends a note, maybe a dummy, and makes one).
    public let actions: [CompactOrchardAction]
    /// Each action's full ciphertext, when the full transaction was given.
    public let fullActionCiphertexts: [[UInt8]]?
    /// The Orchard tree position of its first action; nil when the block did not give the
    /// tree size.
    public var firstActionPosition: UInt64?
    /// NU6.3's Ironwood actions (CompactTx field 9): Orchard-shaped, V3 notes.
    public var ironwoodActions: [CompactOrchardAction] = []
    /// Each Ironwood action's full ciphertext, when the full transaction was given.
    public var fullIronwoodCiphertexts: [[UInt8]]?
    /// The Ironwood tree position of its first Ironwood action; nil when the block did not give
    /// the tree size (the tree is empty before NU6.3).
    public var firstIronwoodPosition: UInt64?
    /// Each Ironwood action's epk, decoded with the block as `ephemeralPoints`.
    public var ironwoodEphemeralPoints: [PallasPoint?] = []
    /// Each action's epk, decoded when the block was parsed: all of a block's together (batched
    /// square roots), once for every wallet that scans it. nil where the ephemeral key is no
    /// point or the identity (`OrchardDecryptor.ephemeralPoint`).
    public var ephemeralPoints: [PallasPoint?] = []
    /// Each Sapling output's epk, decoded the same way (its cofactor not cleared); nil where it
    /// is no point.
    public var outputEphemeralPoints: [JubjubPoint?] = []
}

/// The spend tag of an Ironwood note, and the tag an Ironwood action's nullifier gives: the
/// nullifier with this byte after it. Orchard and Ironwood derive nullifiers alike but keep
/// separate sets (a note is spent only by its own pool's actions), so their tags must differ;
/// records show the nullifier alone (`ZcashScanner.spendTagText`).
let ironwoodSpendTagSuffix: UInt8 = 0x03

extension ZcashCompactBlock {
    /// Reads a serialized CompactBlock; checks what a light client can: field sizes, the
    /// height the source named, and tree sizes that cover the block's outputs.
    /// `fullTransactions`, when given, holds each compact transaction's full form (empty where
    /// there is none), in the same order; their Sapling outputs must be the compact ones.
    public static func parse(
        _ bytes: [UInt8], expectedHeight: Int?, fullTransactions: [[UInt8]] = []
    ) throws(ZcashDataError) -> ZcashCompactBlock {
        let wire: WireCompactBlock
        do { wire = try WireCompactBlock(serializedBytes: bytes) } catch {
            throw .badBlock(height: expectedHeight, reason: "not a CompactBlock message")
        }
        return try from(wire, expectedHeight: expectedHeight, fullTransactions: fullTransactions)
    }

    static func from(
        _ wire: WireCompactBlock, expectedHeight: Int?, fullTransactions: [[UInt8]] = []
    ) throws(ZcashDataError) -> ZcashCompactBlock {
        guard wire.height <= UInt64(BlockData.maxHeight) else {
            throw .badBlock(height: expectedHeight ?? -1, reason: "height \(wire.height) is beyond any chain")
        }
        let height = Int(wire.height)
        if let expectedHeight, expectedHeight != height {
            throw .badBlock(height: expectedHeight, reason: "the block says height \(wire.height)")
        }
        guard wire.hash.count == 32, wire.prevHash.count == 32 || (wire.prevHash.isEmpty && wire.height == 0) else {
            throw .badBlock(height: height, reason: "hash or prevHash is not 32 bytes")
        }
        let outputCount = wire.vtx.reduce(0) { $0 + $1.outputs.count }
        let actionCount = wire.vtx.reduce(0) { $0 + $1.actions.count }
        let ironwoodCount = wire.vtx.reduce(0) { $0 + $1.ironwoodActions.count }
        let treeSize: UInt32? = wire.hasChainMetadata ? wire.chainMetadata.saplingCommitmentTreeSize : nil
        let orchardTreeSize: UInt32? = wire.hasChainMetadata ? wire.chainMetadata.orchardCommitmentTreeSize : nil
        let ironwoodTreeSize: UInt32? = wire.hasChainMetadata ? wire.chainMetadata.ironwoodCommitmentTreeSize : nil
        // Fields this version does not know: counted in the block, reported by the run, never
        // skipped silently.
        let unreadParts =
            wire.vtx.filter { !$0.unknownFields.data.isEmpty }.count
            + (wire.unknownFields.data.isEmpty && wire.chainMetadata.unknownFields.data.isEmpty ? 0 : 1)
        // A size below the block's own leaves (old caches write 0) says nothing.
        func start(_ size: UInt32?, _ leaves: Int) -> UInt64? {
            size.flatMap { UInt64($0) >= UInt64(leaves) && $0 > 0 ? UInt64($0) - UInt64(leaves) : nil }
        }
        var position = start(treeSize, outputCount)
        var actionPosition = start(orchardTreeSize, actionCount)
        var ironwoodPosition = start(ironwoodTreeSize, ironwoodCount)
        var transactions = [ZcashCompactTransaction]()
        transactions.reserveCapacity(wire.vtx.count)
        for tx in wire.vtx {
            guard tx.txid.count == 32 else { throw .badBlock(height: height, reason: "transaction \(tx.index) has no 32-byte txid") }
            var outputs = [CompactSaplingOutput]()
            outputs.reserveCapacity(tx.outputs.count)
            for o in tx.outputs {
                guard o.cmu.count == 32, o.ephemeralKey.count == 32, o.ciphertext.count >= 52 else {
                    throw .badBlock(height: height, reason: "transaction \(tx.index) has a Sapling output of the wrong size")
                }
                outputs.append(
                    CompactSaplingOutput(cmu: Array(o.cmu), ephemeralKey: Array(o.ephemeralKey), ciphertext: Array(o.ciphertext.prefix(52)))
                )
            }
            let nullifiers = try tx.spends.map { spend throws(ZcashDataError) -> [UInt8] in
                guard spend.nf.count == 32 else {
                    throw .badBlock(height: height, reason: "transaction \(tx.index) has a nullifier of the wrong size")
                }
                return Array(spend.nf)
            }
            func action(_ a: WireCompactOrchardAction, pool: String) throws(ZcashDataError) -> CompactOrchardAction {
                guard a.nullifier.count == 32, a.cmx.count == 32, a.ephemeralKey.count == 32, a.ciphertext.count >= 52 else {
                    throw .badBlock(height: height, reason: "transaction \(tx.index) has an \(pool) action of the wrong size")
                }
                return CompactOrchardAction(
                    nullifier: Array(a.nullifier), cmx: Array(a.cmx), ephemeralKey: Array(a.ephemeralKey),
                    ciphertext: Array(a.ciphertext.prefix(52)))
            }
            let actions = try tx.actions.map { a throws(ZcashDataError) in try action(a, pool: "Orchard") }
            let ironwoodActions = try tx.ironwoodActions.map { a throws(ZcashDataError) in try action(a, pool: "Ironwood") }
            var full: [[UInt8]]?
            var fullActions: [[UInt8]]?
            var fullIronwood: [[UInt8]]?
            let i = transactions.count
            if i < fullTransactions.count, !fullTransactions[i].isEmpty {
                let parsed = try ZcashFullTransaction(fullTransactions[i])
                // Its id is recomputed (ZIP 244 for v5, NU6.3's digests for v6): it must be the block's.
                if case let id = ZcashTransactionID.of(parsed), id != Array(tx.txid) {
                    throw .badBlock(
                        height: height, reason: "the full transaction given for \(Hex.encode(Array(tx.txid))) has the id \(Hex.encode(id))")
                }
                let given = parsed.shieldedOutputs
                func same(_ full: [FullOrchardAction], _ compact: [CompactOrchardAction]) -> Bool {
                    full.count == compact.count
                        && zip(full, compact).allSatisfy {
                            $0.nullifier == $1.nullifier && $0.cmx == $1.cmx && $0.ephemeralKey == $1.ephemeralKey
                                && Array($0.encCiphertext.prefix(52)) == $1.ciphertext
                        }
                }
                guard given.sapling.count == outputs.count,
                    zip(given.sapling, outputs).allSatisfy({
                        $0.cmu == $1.cmu && $0.ephemeralKey == $1.ephemeralKey && Array($0.encCiphertext.prefix(52)) == $1.ciphertext
                    }), same(given.orchard, actions), same(given.ironwood, ironwoodActions)
                else {
                    throw .badBlock(
                        height: height, reason: "the full transaction \(Hex.encode(Array(tx.txid))) does not match its compact form")
                }
                full = given.sapling.map(\.encCiphertext)
                fullActions = given.orchard.map(\.encCiphertext)
                fullIronwood = given.ironwood.map(\.encCiphertext)
            }
            // An Orchard or Ironwood action's nullifier is a spend, as a Sapling spend's is; an
            // Ironwood one spends only Ironwood notes (its tag says the pool).
            let spendTags = nullifiers + actions.map(\.nullifier) + ironwoodActions.map { $0.nullifier + [ironwoodSpendTagSuffix] }
            var compact = ZcashCompactTransaction(
                id: Array(tx.txid), index: tx.index, spendTags: spendTags,
                outputs: outputs, height: wire.height, firstPosition: position, fullCiphertexts: full,
                actions: actions, fullActionCiphertexts: fullActions)
            compact.firstActionPosition = actionPosition
            compact.ironwoodActions = ironwoodActions
            compact.fullIronwoodCiphertexts = fullIronwood
            compact.firstIronwoodPosition = ironwoodPosition
            transactions.append(compact)
            position = position.map { $0 + UInt64(outputs.count) }
            actionPosition = actionPosition.map { $0 + UInt64(actions.count) }
            ironwoodPosition = ironwoodPosition.map { $0 + UInt64(ironwoodActions.count) }
        }
        try refuseRepeatedNullifiers(transactions, height: height)
        // Both pools' epks in one batch: Orchard's actions, then Ironwood's.
        var decoded = OrchardDecryptor.ephemeralPoints(transactions.flatMap(\.actions) + transactions.flatMap(\.ironwoodActions))[...]
        var decodedOutputs = JubjubBatch.decodeAll(transactions.flatMap { $0.outputs.map(\.ephemeralKey) })[...]
        for t in transactions.indices {
            transactions[t].ephemeralPoints = Array(decoded.prefix(transactions[t].actions.count))
            decoded = decoded.dropFirst(transactions[t].actions.count)
            transactions[t].outputEphemeralPoints = Array(decodedOutputs.prefix(transactions[t].outputs.count))
            decodedOutputs = decodedOutputs.dropFirst(transactions[t].outputs.count)
        }
        for t in transactions.indices {
            transactions[t].ironwoodEphemeralPoints = Array(decoded.prefix(transactions[t].ironwoodActions.count))
            decoded = decoded.dropFirst(transactions[t].ironwoodActions.count)
        }
        var block = ZcashCompactBlock(
            height: wire.height, id: Array(wire.hash), previousID: Array(wire.prevHash), time: wire.time,
            transactions: transactions, saplingTreeSize: treeSize,
            orchardTreeSize: orchardTreeSize ?? 0, orchardActionCount: actionCount)
        block.ironwoodTreeSize = ironwoodTreeSize ?? 0
        block.unreadParts = unreadParts
        return block
    }
}

extension ZcashCompactBlock {
    /// A nullifier is revealed once in a pool's whole history: one revealed twice in a block
    /// is no chain's (a repeated action would credit its note twice). Each pool keeps its own
    /// set (Sapling spends, Orchard actions, Ironwood actions).
    static func refuseRepeatedNullifiers(_ transactions: [ZcashCompactTransaction], height: Int) throws(ZcashDataError) {
        let pools: [(name: String, nullifiers: (ZcashCompactTransaction) -> [[UInt8]])] = [
            ("Sapling", { Array($0.spendTags.prefix($0.spendTags.count - $0.actions.count - $0.ironwoodActions.count)) }),
            ("Orchard", { $0.actions.map(\.nullifier) }),
            ("Ironwood", { $0.ironwoodActions.map(\.nullifier) }),
        ]
        for pool in pools {
            var seen = [[UInt8]: UInt64]()
            for tx in transactions {
                for nf in pool.nullifiers(tx) {
                    if let first = seen.updateValue(tx.index, forKey: nf) {
                        let places = first == tx.index ? "twice in transaction \(tx.index)" : "in transactions \(first) and \(tx.index)"
                        throw .badBlock(
                            height: height,
                            reason:
                                "the \(pool.name) nullifier \(Hex.encode(nf)) is revealed \(places): a nullifier is revealed once on a chain, so this is no chain's block (a repeated action would credit its note twice); check the server or file"
                        )
                    }
                }
            }
        }
    }
}

extension WireCompactBlock {
    /// From one line of the JSON Lines form (the proto's field names, bytes in hex, as the
    /// fixtures write them); a missing field is the proto3 default.
    public init(record: JSONObject) throws {
        self.init()
        func hex(_ o: JSONObject, _ key: String) throws -> Data {
            guard let value = o[key] else { return Data() }
            guard case .string(let text) = value else { throw ZcashDataError.badBlock(height: nil, reason: "\(key) is not a hex string") }
            return Data(try Hex.decode(text))
        }
        func objects(_ o: JSONObject, _ key: String) throws -> [JSONObject] {
            guard let value = o[key] else { return [] }
            guard case .array(let items) = value else { throw ZcashDataError.badBlock(height: nil, reason: "\(key) is not a list") }
            return try items.map { item throws -> JSONObject in
                guard case .object(let object) = item else {
                    throw ZcashDataError.badBlock(height: nil, reason: "\(key) holds a non-object")
                }
                return object
            }
        }
        func uint(_ o: JSONObject, _ key: String) throws -> UInt64 {
            guard let value = o[key] else { return 0 }
            switch value {
            case .number(let text): if let n = UInt64(text) { return n }
            case .string(let text): if let n = UInt64(text) { return n }
            default: break
            }
            throw ZcashDataError.badBlock(height: nil, reason: "\(key) is not a whole number")
        }
        // The proto's 32-bit fields: a larger number is an error, not its low bits.
        func uint32(_ o: JSONObject, _ key: String) throws -> UInt32 {
            let n = try uint(o, key)
            guard let small = UInt32(exactly: n) else { throw ZcashDataError.badBlock(height: nil, reason: "\(key) \(n) is over 2^32 - 1") }
            return small
        }
        height = try uint(record, "height")
        hash = try hex(record, "hash")
        prevHash = try hex(record, "prevHash")
        time = try uint32(record, "time")
        header = try hex(record, "header")
        switch record["chainMetadata"] {
        case nil: break
        case .object(let meta)?:
            chainMetadata.saplingCommitmentTreeSize = try uint32(meta, "saplingCommitmentTreeSize")
            chainMetadata.orchardCommitmentTreeSize = try uint32(meta, "orchardCommitmentTreeSize")
            chainMetadata.ironwoodCommitmentTreeSize = try uint32(meta, "ironwoodCommitmentTreeSize")
        default:
            // Ignored, it would read as "no tree sizes" and leave nullifiers unknown.
            throw ZcashDataError.badBlock(height: nil, reason: "chainMetadata is not an object")
        }
        vtx = try objects(record, "vtx").map { t in
            var tx = WireCompactTx()
            tx.index = try uint(t, "index")
            tx.txid = try hex(t, t["txid"] != nil ? "txid" : "hash")  // "hash" in old servers' field name
            tx.fee = try uint32(t, "fee")
            tx.spends = try objects(t, "spends").map {
                var s = WireCompactSaplingSpend(); s.nf = try hex($0, "nf"); return s
            }
            tx.outputs = try objects(t, "outputs").map { o in
                var out = WireCompactSaplingOutput()
                out.cmu = try hex(o, "cmu")
                out.ephemeralKey = try hex(o, o["ephemeralKey"] != nil ? "ephemeralKey" : "epk")
                out.ciphertext = try hex(o, "ciphertext")
                return out
            }
            func action(_ a: JSONObject) throws -> WireCompactOrchardAction {
                var action = WireCompactOrchardAction()
                action.nullifier = try hex(a, "nullifier")
                action.cmx = try hex(a, "cmx")
                action.ephemeralKey = try hex(a, "ephemeralKey")
                action.ciphertext = try hex(a, "ciphertext")
                return action
            }
            tx.actions = try objects(t, "actions").map(action)
            tx.ironwoodActions = try objects(t, "ironwoodActions").map(action)
            // A key this version does not know may be a newer pool's: kept as an unknown field,
            // as a .pb's would be, so that the block counts it (`unreadParts`).
            if !t.keys.allSatisfy(Self.txKeys.contains) { tx = try WireCompactTx.markedUnread(tx) }
            return tx
        }
        let metaUnknown =
            if case .object(let meta)? = record["chainMetadata"] { !meta.keys.allSatisfy(Self.metaKeys.contains) } else { false }
        if !record.keys.allSatisfy(Self.blockKeys.contains) || metaUnknown { self = try Self.markedUnread(self) }
    }

    static let txKeys: Set<String> = ["index", "txid", "hash", "fee", "spends", "outputs", "actions", "vin", "vout", "ironwoodActions"]
    static let blockKeys: Set<String> = ["protoVersion", "height", "hash", "prevHash", "time", "header", "vtx", "chainMetadata"]
    static let metaKeys: Set<String> = ["saplingCommitmentTreeSize", "orchardCommitmentTreeSize", "ironwoodCommitmentTreeSize"]
}

extension SwiftProtobuf.Message {
    /// The message with an unknown field added (number 2047, varint 1): how a JSON record's key
    /// that this version does not know travels to the parser, which counts unknown fields.
    static func markedUnread(_ message: Self) throws -> Self {
        let bytes: [UInt8] = try message.serializedBytes()
        return try Self(serializedBytes: bytes + [0xF8, 0x7F, 0x01])
    }
}
