import WalletCore
import WalletCrypto

/// One input of a transaction as BIP352 reads it: what it spends (outpoint, the spent output's
/// script) and what it shows (scriptSig, witness).
public struct SilentPaymentInput: Sendable {
    public var outpoint: [UInt8]
    public var scriptSig: [UInt8]
    public var witness: [[UInt8]]
    public var spentScript: [UInt8]

    public init(outpoint: [UInt8], scriptSig: [UInt8], witness: [[UInt8]], spentScript: [UInt8]) {
        self.outpoint = outpoint
        self.scriptSig = scriptSig
        self.witness = witness
        self.spentScript = spentScript
    }

    /// The input's public key when BIP352 counts it, nil when not. The kind comes from the
    /// spent output's script, never from the witness' shape; only compressed keys count.
    public var publicKey: Secp256k1.PublicKey? {
        switch ScriptTemplate(spentScript) {
        case .p2pkh(let keyHash):
            // The key is the last push of a standard scriptSig; a malleated one may carry more
            // after it, so the scriptSig is searched from its end for 33 bytes hashing to it.
            guard scriptSig.count >= 33 else { return nil }
            for end in stride(from: scriptSig.count, through: 33, by: -1) {
                let candidate = Array(scriptSig[(end - 33)..<end])
                if (candidate[0] == 2 || candidate[0] == 3), Hash.hash160(candidate) == keyHash {
                    return try? Secp256k1.PublicKey(parsing: candidate)
                }
            }
            return nil
        case .p2sh:
            // P2SH-P2WPKH only: the scriptSig is exactly the push of a P2WPKH redeem script.
            guard scriptSig.count == 23, scriptSig[0] == 22, case .p2wpkh = ScriptTemplate(Array(scriptSig[1...])) else { return nil }
            return Self.compressedKey(witness.last)
        case .p2wpkh:
            return Self.compressedKey(witness.last)
        case .p2tr(let outputKey):
            var stack = witness
            guard !stack.isEmpty else { return nil }
            if stack.count > 1, stack.last?.first == 0x50 { stack.removeLast() }  // the annex
            if stack.count > 1, let control = stack.last, control.count >= 33,
                Array(control[1..<33]) == SilentPayment.numsH
            {
                return nil  // a script path under the NUMS key: no one holds the output key
            }
            return try? Secp256k1.PublicKey(xOnly: outputKey)
        default:
            return nil
        }
    }

    /// Whether the spent output is segwit version 2 or later: BIP352 skips the whole
    /// transaction then, to leave those versions free for later rules.
    public var spendsFutureSegwitVersion: Bool {
        let s = spentScript
        guard s.count >= 4, s.count <= 42, (0x52...0x60).contains(s[0]), Int(s[1]) == s.count - 2 else { return false }
        return true
    }

    private static func compressedKey(_ item: [UInt8]?) -> Secp256k1.PublicKey? {
        guard let item, item.count == 33, item[0] == 2 || item[0] == 3 else { return nil }
        return try? Secp256k1.PublicKey(parsing: item)
    }
}

/// What a transaction gives every receiver to scan it with (beside its taproot outputs): A and
/// input_hash, public. BIP352's "tweak data", input_hash·A (what tweak servers hand out), is
/// `point`, made when asked for: a receiver multiplies A by b_scan·input_hash instead, one
/// multiplication instead of two.
public struct SilentPaymentTweak: Sendable, Equatable {
    /// A, the sum of the counted inputs' keys.
    public let inputKeySum: Secp256k1.PublicKey
    /// input_hash, a valid scalar (checked).
    public let inputHash: [UInt8]

    /// input_hash·A.
    public var point: Secp256k1.PublicKey {
        // A is no infinity and input_hash a valid scalar (both checked when made): never nil.
        try! inputKeySum.multiplied(by: inputHash)
    }

    /// nil when the transaction is not one a silent payment can be in: no counted input, an
    /// input spending segwit v2+, keys summing to the point at infinity, or an input_hash that
    /// is no scalar (0 or not below n: BIP352 fails the scan then).
    public init?(inputs: [SilentPaymentInput]) {
        guard !inputs.contains(where: \.spendsFutureSegwitVersion) else { return nil }
        let keys = inputs.compactMap(\.publicKey)
        guard let sum = Secp256k1.PublicKey.sum(keys),
            let hash = SilentPayment.inputHash(outpoints: inputs.map(\.outpoint), inputKeySum: sum),
            Secp256k1.isValidPrivateKey(SecureBytes(hash))  // public: a hash of public data
        else { return nil }
        inputKeySum = sum
        inputHash = hash
    }
}

/// A receiver's scan: b_scan and B_spend, and the labels it looks for (always change, m = 0,
/// when the wallet is its own; exactly the given ones otherwise).
public struct SilentPaymentReceiver: Sendable {
    public struct Found: Sendable, Equatable {
        /// Index into the outputs that were scanned.
        public let output: Int
        public let xOnlyKey: [UInt8]
        /// t_k (plus the label's scalar): b_spend + tweak is the output's private key.
        public let tweak: [UInt8]
        public let label: UInt32?
    }

    let keys: SilentPaymentKeys
    /// ser_P(label·G) → (m, label scalar).
    let labels: [[UInt8]: (m: UInt32, tweak: SecureBytes)]
    /// The same labels as points, for the forward check.
    let labelPoints: [(point: Secp256k1.PublicKey, m: UInt32, tweak: SecureBytes)]
    /// B_spend, then B_spend + label·G for each label: what `firstOutputKeys` adds t_0·G to
    /// (nil with more than `batchedLabels` labels, or a sum at infinity).
    let firstAddends: [Secp256k1.PublicKey]?

    public init(keys: SilentPaymentKeys, labels: [UInt32]) throws(SilentPaymentError) {
        self.keys = keys
        var table: [[UInt8]: (m: UInt32, tweak: SecureBytes)] = [:]
        var points: [(point: Secp256k1.PublicKey, m: UInt32, tweak: SecureBytes)] = []
        for m in labels {
            let tweak = SilentPayment.labelTweak(scanKey: keys.scanPrivateKey, label: m)
            // label·G is public by design: B_m = B_spend + label·G is in the labeled address.
            guard let point = (try? Secp256k1.publicKey(of: tweak))?.declassified else { throw .invalidKey("label \(m) gives no key") }
            table[point.compressed] = (m, tweak)
            points.append((point, m, tweak))
        }
        self.labels = table
        self.labelPoints = points
        // A sum at infinity (a label of −b_spend) leaves the batch out, as too many labels do.
        let sums = points.count <= Self.batchedLabels ? points.map { Secp256k1.PublicKey.sum([keys.spendPublicKey, $0.point]) } : [nil]
        firstAddends = sums.contains(where: { $0 == nil }) ? nil : [keys.spendPublicKey] + sums.map { $0! }
    }

    /// S = b_scan·(input_hash·A) = (b_scan·input_hash)·A, ser_P: the shared point (secret: it
    /// finds and links the payments), made and serialized in constant time.
    public func sharedSecret(_ tweak: SilentPaymentTweak) throws(SilentPaymentError) -> SecureBytes {
        do { return try Secp256k1.ecdhPoint(privateKey: scanScalar(tweak), publicKey: tweak.inputKeySum) } catch {
            throw .invalidKey("the scan key is not a private key")
        }
    }

    /// b_scan·input_hash mod n (constant-time in b_scan: libsecp256k1's scalar product), never
    /// 0: both factors are nonzero below the prime n.
    private func scanScalar(_ tweak: SilentPaymentTweak) throws(CurveError) -> SecureBytes {
        try Secp256k1.multiply(keys.scanPrivateKey, by: tweak.inputHash)
    }

    /// P_k = B_spend + t_k·G. t_k·G is made in constant time (libsecp256k1's generator
    /// multiplication; its tweak-add would multiply by t_k in variable time), then declassified:
    /// the point does not give t_k or S away, and whether an output is it is what the scan
    /// reports.
    func outputKey(_ t: [UInt8]) -> Secp256k1.PublicKey? {
        var scalar = t
        defer { SecureBytes.wipe(&scalar) }
        guard let tG = try? Secp256k1.publicKey(of: SecureBytes(scalar)) else { return nil }
        return Secp256k1.PublicKey.sum([keys.spendPublicKey, tG.declassified])
    }

    /// The shared points of many transactions at once (a block's), each (b_scan·input_hash)·A:
    /// CCurveBatch's ladder with a scalar per lane where this CPU has a vector path, else
    /// libsecp256k1's ECDH for each.
    public func sharedSecrets(_ tweaks: [SilentPaymentTweak], path: CurveBatchPath = .inUse) throws(SilentPaymentError) -> [SecureBytes] {
        do {
            var scalars = [SecureBytes]()
            scalars.reserveCapacity(tweaks.count)
            for tweak in tweaks { scalars.append(try scanScalar(tweak)) }
            return try Secp256k1Batch.sharedPoints(privateKeys: scalars, points: tweaks.map(\.inputKeySum), path: path)
        } catch {
            throw .invalidKey("the scan key is not a private key")
        }
    }

    /// The shared points b_scan·T of many transactions whose tweak data T = input_hash·A is
    /// given whole (tweak records, a light receiver's): one scalar for every lane.
    public func sharedSecrets(tweakPoints: [Secp256k1.PublicKey], path: CurveBatchPath = .inUse) throws(SilentPaymentError) -> [SecureBytes]
    {
        do { return try Secp256k1Batch.sharedPoints(privateKey: keys.scanPrivateKey, points: tweakPoints, path: path) } catch {
            throw .invalidKey("the scan key is not a private key")
        }
    }

    /// At most this many labels are looked for in the batch below (each one more sum a
    /// transaction); a receiver with more scans each transaction alone.
    public static let batchedLabels = 8

    /// For many transactions' shared points at once (a block's, `sharedSecrets`): the x-only
    /// keys one of a transaction's outputs must have for the receiver to be paid in it at all,
    /// x(P_0) and x(P_0 + label·G) for each label. BIP352 counts k up from 0 only while an
    /// output matches, so a transaction with none of them pays the receiver nothing, and its
    /// scan ends there. CCurveBatch's fixed-base kernel makes every t_0·G + B_spend (+ label·G)
    /// in one call, constant-time in t_0, one inversion per sum; nil where this CPU has no
    /// vector path (libsecp256k1 is faster than the kernel's portable code), with more labels
    /// than `batchedLabels`, or where a t_0 is no scalar: then each transaction is scanned alone.
    public func firstOutputKeys(_ secrets: [SecureBytes], path: CurveBatchPath = .inUse) -> [Set<[UInt8]>]? {
        guard Secp256k1Batch.hasOwnKernel(path), let addends = firstAddends, !secrets.isEmpty else { return nil }
        var scalars = [UInt8]()
        scalars.reserveCapacity(32 * secrets.count)  // no reallocation leaves a copy behind
        for secret in secrets {
            var shared = secret.bytes
            var t = SilentPayment.sharedSecretTweak(shared, 0)
            scalars += t
            SecureBytes.wipe(&shared)
            SecureBytes.wipe(&t)
        }
        let packed = SecureBytes(scalars)
        SecureBytes.wipe(&scalars)
        guard let sums = Secp256k1Batch.kernelGeneratorSums(scalars: packed, addends: addends, path: path) else { return nil }
        let n = secrets.count
        return (0..<n).map { i in
            Set(addends.indices.map { j in Array(sums[33 * (n * j + i) + 1..<33 * (n * j + i) + 33]) })
        }
    }

    /// The outputs (x-only keys of a transaction's taproot outputs) paid to this receiver,
    /// k counting up from 0 while outputs match, at most K_max.
    public func scan(_ tweak: SilentPaymentTweak, outputs: [[UInt8]]) throws(SilentPaymentError) -> [Found] {
        try scan(outputs: outputs, sharedSecret: sharedSecret(tweak))
    }

    /// The same with the transaction's shared point already made (`sharedSecrets`).
    ///
    /// A labeled output is P_k + label·G. With few labels it is found forward: x(P_k + label·G)
    /// against the outputs' x, which needs no output lifted to a point (x-only keys match
    /// either parity, as BIP352's check of output − P_k and its negation does). With more labels
    /// than twice the outputs, BIP352's way: each output (both parities) minus P_k looked up
    /// among the labels.
    ///
    /// `firstKeys`, the transaction's `firstOutputKeys` where they were made: none of the
    /// outputs among them ends the scan before it begins.
    public func scan(outputs: [[UInt8]], sharedSecret secret: SecureBytes, firstKeys: Set<[UInt8]>? = nil) -> [Found] {
        if let firstKeys, !outputs.contains(where: firstKeys.contains) { return [] }
        var shared = secret.bytes
        defer { SecureBytes.wipe(&shared) }
        var remaining = Array(outputs.enumerated())
        let forward = labelPoints.count <= 2 * outputs.count
        var found: [Found] = []
        var k: UInt32 = 0
        while k < SilentPayment.maxOutputsPerReceiver, !remaining.isEmpty {
            let t = SilentPayment.sharedSecretTweak(shared, k)
            guard let pk = outputKey(t) else { break }
            let hit = match(pk, t, remaining: remaining, forward: forward)
            guard let (position, result) = hit else { break }
            found.append(result)
            remaining.remove(at: position)
            k += 1
        }
        return found
    }

    /// The first remaining output (in their order, as BIP352's reference scans them) that P_k
    /// pays, unlabeled or with a label.
    private func match(
        _ pk: Secp256k1.PublicKey, _ t: [UInt8], remaining: [(offset: Int, element: [UInt8])], forward: Bool
    ) -> (Int, Found)? {
        let x = pk.xOnly
        var labeledKeys: [[UInt8]: (m: UInt32, tweak: SecureBytes)]?  // x(P_k + label·G), made when first needed
        for (position, (offset, bytes)) in remaining.enumerated() {
            if bytes == x { return (position, Found(output: offset, xOnlyKey: x, tweak: t, label: nil)) }
            guard !labels.isEmpty else { continue }
            var label: (m: UInt32, tweak: SecureBytes)?
            if forward {
                if labeledKeys == nil {
                    labeledKeys = [:]
                    for l in labelPoints {
                        if let key = Secp256k1.PublicKey.sum([pk, l.point]) { labeledKeys![key.xOnly] = (l.m, l.tweak) }
                    }
                }
                label = labeledKeys![bytes]
            } else if let output = try? Secp256k1.PublicKey(xOnly: bytes) {
                label =
                    [output, output.negated].lazy.compactMap { Secp256k1.PublicKey.sum([$0, pk.negated]) }
                    .compactMap { labels[$0.compressed] }.first
            }
            guard let label, let sum = try? Secp256k1.add(tweak: t, to: label.tweak) else { continue }
            return (position, Found(output: offset, xOnlyKey: bytes, tweak: sum.bytes, label: label.m))
        }
        return nil
    }
}
