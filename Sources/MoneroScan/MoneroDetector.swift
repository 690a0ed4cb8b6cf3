import WalletCore
import WalletScan
import WalletKeys
import Monero
import WalletCrypto

/// An output of a transaction that belongs to the wallet.
public struct MoneroOwnedOutput: Sendable, Equatable {
    public let txID: [UInt8]
    public let outputIndex: Int
    public let amount: UInt64
    public let major: UInt32
    public let minor: UInt32
    public let outputKey: [UInt8]
    /// The decrypted 8-byte id, or the 32-byte plain one; nil when the transaction has none.
    public let paymentID: [UInt8]?
    public let unlockTime: UInt64
    public let isCoinbase: Bool
    /// Intermediate values, for tests and diagnostics (not secret: derived from public data
    /// and the view key, which the holder of this record already has).
    public let derivation: [UInt8]
    public let sharedScalar: [UInt8]
    /// With the spend key: the output's key image (what a spend of it will show).
    public let keyImage: [UInt8]?
}

/// Finds a view-key wallet's outputs in transactions (the Monero detector of the synchronizer).
public struct MoneroDetector: Sendable {
    public let keys: MoneroKeys
    private let filter: ViewTagFilter
    private var table = SubaddressTable()
    /// Entries derived since the last `takeNewEntries`, for a caller that caches the table.
    private var fresh: [AddressEntry] = []
    public private(set) var majors: UInt32 = 0
    public private(set) var minors: UInt32 = 0
    /// Monero's wallet defaults: 50 accounts × 200 addresses looked ahead.
    public static let defaultLookahead = (majors: UInt32(50), minors: UInt32(200))

    /// `cached` entries (from an earlier run's state) are taken as they are; only the rest of
    /// the majors × minors table is derived.
    public init(
        keys: MoneroKeys, majors: UInt32 = defaultLookahead.majors, minors: UInt32 = defaultLookahead.minors,
        cached: [AddressEntry] = []
    ) throws(DerivationError) {
        self.keys = keys
        filter = ViewTagFilter(viewSecret: keys.viewSecret)
        table.insert(cached.map { ($0.key, $0.account, $0.index) })
        try grow(majors: majors, minors: minors)
    }

    /// The entries derived since the last call (to be cached by the caller).
    public mutating func takeNewEntries() -> [AddressEntry] {
        defer { fresh = [] }
        return fresh
    }

    public var tableSize: Int { table.count }

    /// Extends the subaddress table to majors × minors (never shrinks it).
    public mutating func grow(majors newMajors: UInt32, minors newMinors: UInt32) throws(DerivationError) {
        let m = max(majors, newMajors), n = max(minors, newMinors)
        var missing = [(major: UInt32, minor: UInt32)]()
        let indexes = table.allIndexes
        for major in 0..<m {
            let start: UInt32 = major < majors ? minors : 0
            for minor in start..<n where !indexes.contains(SubaddressTable.pack(major, minor)) { missing.append((major, minor)) }
        }
        // Two scalar operations per entry and 10,000 entries on a first run: on every core.
        let keys = self.keys
        let derived = ParallelMap.map(missing) { index in
            Result { () throws(DerivationError) -> [UInt8] in try keys.subaddressSpendKey(major: index.major, minor: index.minor) }
        }
        var entries = [(key: [UInt8], major: UInt32, minor: UInt32)]()
        entries.reserveCapacity(missing.count)
        for (index, result) in zip(missing, derived) {
            let spend = try result.get()
            entries.append((spend, index.major, index.minor))
            fresh.append(AddressEntry(account: index.major, index: index.minor, key: spend))
        }
        table.insert(entries)
        majors = m
        minors = n
    }

    /// Grows the table when an output lands within `margin` of its edge, as Monero's wallet does.
    public mutating func noteUsed(major: UInt32, minor: UInt32, margin: UInt32 = 50) throws(DerivationError) {
        let needMinors = minor + margin >= minors ? minor + margin + 1 : minors
        let needMajors = major + margin >= majors ? major + margin + 1 : majors
        if needMinors > minors || needMajors > majors { try grow(majors: needMajors, minors: needMinors) }
    }

    /// The wallet's outputs in each transaction. Each transaction key first goes through the
    /// X25519 view-tag filter, all keys of the call at once, and the view tags its candidates
    /// give are hashed together; only an output whose view tag matches a candidate (about 1 in
    /// 128 of other people's) is looked at closely, and one without a view tag is derived exactly.
    public func scan(_ transactions: [MoneroTransaction]) -> [[MoneroOwnedOutput]] {
        var keys = [[UInt8]]()
        let extras = transactions.map(\.extraFields)
        var firstKey = [Int]()
        // Only transactions whose outputs all carry view tags can be filtered.
        let filterable = transactions.map { $0.outputs.allSatisfy { $0.viewTag != nil } }
        for (t, canFilter) in filterable.enumerated() {
            firstKey.append(keys.count)
            guard canFilter else { continue }
            if let main = extras[t].main { keys.append(main) }
            keys += extras[t].additional.prefix(transactions[t].outputs.count)
        }
        let candidates = filter.candidates(keys)
        // Both encodings' view tags for every (output, key) that has candidates: one batch.
        var messages = [[UInt8]]()
        var tried = [(t: Int, slot: Int, output: Int, pair: (even: [UInt8], odd: [UInt8]))]()
        for t in transactions.indices where filterable[t] {
            for i in transactions[t].outputs.indices {
                let index = varintBytes(UInt64(i))
                for (slot, _) in Self.keySlots(extras[t], output: i) {
                    guard let pair = candidates[firstKey[t] + slot] else { continue }
                    messages += [Self.viewTagPrefix + pair.even + index, Self.viewTagPrefix + pair.odd + index]
                    tried.append((t, slot, i, pair))
                }
            }
        }
        let tags = Keccak256.hashAll(messages)
        var matches = [[Int: [[UInt8]]]](repeating: [:], count: transactions.count)
        for (k, (t, slot, i, pair)) in tried.enumerated() {
            let tag = transactions[t].outputs[i].viewTag
            matches[t][slot << 32 | i] = (tags[2 * k][0] == tag ? [pair.even] : []) + (tags[2 * k + 1][0] == tag ? [pair.odd] : [])
        }
        return transactions.indices.map { t in
            scan(transactions[t], extra: extras[t], viewTagMatches: filterable[t] ? matches[t] : nil)
        }
    }

    /// The wallet's outputs in a transaction, every key derived exactly (the reference path).
    public func scan(_ tx: MoneroTransaction) -> [MoneroOwnedOutput] { scan(tx, extra: tx.extraFields, viewTagMatches: nil) }

    /// The keys output i may be paid with: the main key (slot 0) and its additional key (slot
    /// 1 + i, or i without a main key).
    private static func keySlots(
        _ extra: (main: [UInt8]?, additional: [[UInt8]], nonce: [UInt8]?), output i: Int
    ) -> [(slot: Int, key: [UInt8])] {
        var slots: [(slot: Int, key: [UInt8])] = []
        if let main = extra.main { slots.append((0, main)) }
        if i < extra.additional.count { slots.append(((extra.main == nil ? 0 : 1) + i, extra.additional[i])) }
        return slots
    }

    /// `viewTagMatches` (slot << 32 | output → the candidates whose view tag matched): an output
    /// is only looked at closely with a key whose candidates matched or that has none. A matched
    /// candidate is tried as the derivation first, and only one that finds the output the
    /// wallet's is confirmed by the exact derivation (the other sign's view tag matches 1 in 256
    /// outputs, and that check costs a fraction of an exact derivation). An output whose amount
    /// does not open its commitment is not counted.
    private func scan(
        _ tx: MoneroTransaction, extra: (main: [UInt8]?, additional: [[UInt8]], nonce: [UInt8]?),
        viewTagMatches: [Int: [[UInt8]]]?
    ) -> [MoneroOwnedOutput] {
        guard extra.main != nil || !extra.additional.isEmpty else { return [] }
        var exact = [Int: [UInt8]?]()  // key slot → derivation, computed once
        func derive(_ slot: Int, _ key: [UInt8]) -> [UInt8]? {
            if let known = exact[slot] { return known }
            let d = Ed25519.moneroDerivation(secret: keys.viewSecret, publicKey: key)
            exact[slot] = d
            return d
        }
        /// The subaddress the output pays if `derivation` is its key's.
        func owner(
            _ output: MoneroTransaction.Output, _ derivation: [UInt8], _ index: [UInt8]
        ) -> (hs: [UInt8], major: UInt32, minor: UInt32)? {
            let hs = Ed25519.hashToScalar(derivation + index).bytes
            guard let hsG = Ed25519.basePointMultiple(bytes: hs),
                let spend = Ed25519.subtract(output.key, hsG),
                let owner = table.owner(of: spend, derive: { try? keys.subaddressSpendKey(major: $0, minor: $1) })
            else { return nil }
            return (hs, owner.major, owner.minor)
        }
        var found = [MoneroOwnedOutput]()
        for (i, output) in tx.outputs.enumerated() {
            let index = varintBytes(UInt64(i))
            for (slot, key) in Self.keySlots(extra, output: i) {
                var mine: (derivation: [UInt8], hs: [UInt8], major: UInt32, minor: UInt32)?
                if let matched = viewTagMatches?[slot << 32 | i] {
                    for candidate in matched {
                        guard let o = owner(output, candidate, index), derive(slot, key) == candidate else { continue }
                        mine = (candidate, o.hs, o.major, o.minor)
                        break
                    }
                } else if let derivation = derive(slot, key),
                    output.viewTag.map({ Keccak256.hash(Self.viewTagPrefix + derivation + index)[0] == $0 }) ?? true,
                    let o = owner(output, derivation, index)
                {
                    mine = (derivation, o.hs, o.major, o.minor)
                }
                guard let mine else { continue }
                guard let amount = amount(of: tx, output: i, sharedScalar: mine.hs) else { break }
                // The key image here, not when the output is stored: this runs on every core.
                let image = MoneroOutputSecret.secret(sharedScalar: mine.hs, keys: keys, major: mine.major, minor: mine.minor)
                    .flatMap { MoneroHashToPoint.keyImage(outputKey: output.key, secret: $0) }
                let mainDerivation = extra.main.flatMap { derive(0, $0) }
                found.append(
                    MoneroOwnedOutput(
                        txID: tx.id, outputIndex: i, amount: amount, major: mine.major, minor: mine.minor,
                        outputKey: output.key, paymentID: paymentID(extra.nonce, mainDerivation: mainDerivation),
                        unlockTime: tx.unlockTime, isCoinbase: tx.isCoinbase, derivation: mine.derivation, sharedScalar: mine.hs,
                        keyImage: image))
                break
            }
        }
        return found
    }

    private static let viewTagPrefix = Array("view_tag".utf8)

    /// The clear amount (coinbase, v1) or the decrypted one, checked against the commitment.
    func amount(of tx: MoneroTransaction, output i: Int, sharedScalar hs: [UInt8]) -> UInt64? {
        guard tx.rctType != 0 else { return tx.outputs[i].amount }
        return Self.openAmount(
            rctType: tx.rctType, encryptedAmount: tx.encryptedAmounts[i],
            encryptedMask: tx.rctType < 4 ? tx.encryptedMasks[i] : nil,
            commitment: tx.commitments[i], sharedScalar: hs)
    }

    /// Decrypts a RingCT amount with the output's shared scalar hs = Hs(derivation ‖ index) and
    /// returns it only if mask·G + amount·H is the output's commitment.
    /// Types 4–6: amount = 8 bytes ⊕ Keccak("amount" ‖ hs), mask = Hs("commitment_mask" ‖ hs).
    /// Types 1–3 (rctOps.cpp ecdhDecode, v1): mask = mask′ − Hs(hs), amount = amount′ − Hs(Hs(hs)).
    static func openAmount(
        rctType: UInt8, encryptedAmount: [UInt8], encryptedMask: [UInt8]?, commitment: [UInt8],
        sharedScalar hs: [UInt8]
    ) -> UInt64? {
        let amount: UInt64
        let mask: [UInt8]
        if rctType >= 4 {
            let pad = Keccak256.hash(Array("amount".utf8) + hs)
            amount = (0..<8).reduce(UInt64(0)) { $0 | UInt64(encryptedAmount[$1] ^ pad[$1]) << (8 * UInt64($1)) }
            mask = Ed25519.hashToScalar(Array("commitment_mask".utf8) + hs).bytes
        } else {
            guard let encryptedMask else { return nil }
            let first = Ed25519.hashToScalar(hs).bytes
            let second = Ed25519.hashToScalar(first).bytes
            mask = Ed25519.scalarSubtract(encryptedMask, first)
            let scalar = Ed25519.scalarSubtract(encryptedAmount, second)
            guard scalar[8...].allSatisfy({ $0 == 0 }) else { return nil }
            amount = (0..<8).reduce(UInt64(0)) { $0 | UInt64(scalar[$1]) << (8 * UInt64($1)) }
        }
        // C = mask·G + amount·H (amount·H from a table: seven additions at most)
        guard let maskG = Ed25519.basePointMultiple(bytes: mask) else { return nil }
        let expected = amount == 0 ? maskG : try? Ed25519.add(maskG, PedersenH.times(amount))
        return expected == commitment ? amount : nil
    }

    func paymentID(_ nonce: [UInt8]?, mainDerivation: [UInt8]?) -> [UInt8]? {
        guard let nonce, let kind = nonce.first else { return nil }
        if kind == 0x00, nonce.count == 33 { return Array(nonce[1...]) }
        guard kind == 0x01, nonce.count == 9, let mainDerivation else { return nil }
        let pad = Keccak256.hash(mainDerivation + [0x8D])
        return (0..<8).map { nonce[1 + $0] ^ pad[$0] }
    }
}
