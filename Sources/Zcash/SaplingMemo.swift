import CSodium
import WalletCore
import WalletCrypto

/// A Sapling output as a full transaction carries it (the compact form keeps 52 bytes of the
/// 580-byte note ciphertext; the rest holds the memo).
public struct FullSaplingOutput: Sendable, Equatable {
    public let cmu: [UInt8]
    public let ephemeralKey: [UInt8]
    public let encCiphertext: [UInt8]
    /// The value commitment and the 80-byte ciphertext an outgoing viewing key opens.
    public let cv: [UInt8]
    public let outCiphertext: [UInt8]
}

/// An Orchard-protocol action as a full transaction carries it (Orchard's, and v6's Ironwood's).
public struct FullOrchardAction: Sendable, Equatable {
    public let nullifier: [UInt8]
    public let cmx: [UInt8]
    public let ephemeralKey: [UInt8]
    public let encCiphertext: [UInt8]
}

/// A v5 (ZIP-225) or v6 (NU6.3's: v5's layout with an Ironwood bundle, Orchard's encoding,
/// after the Orchard bundle) transaction, read whole: its shielded outputs for memos, and the
/// fields its transaction id commits to (`ZcashTransactionID`); proofs and signatures are kept
/// as the bytes the v5 authorizing digest hashes.
public struct ZcashFullTransaction: Sendable {
    struct SaplingSpend { let cv, nullifier, rk: [UInt8] }
    struct SaplingOutput { let cv, cmu, ephemeralKey, encCiphertext, outCiphertext: [UInt8] }
    struct Action { let cv, nullifier, rk, cmx, ephemeralKey, encCiphertext, outCiphertext: [UInt8] }
    /// An Orchard-encoded bundle: its actions, and (when it has any) flags, value balance, anchor
    /// and authorization (proofs without their length, spend authorization and binding signatures).
    struct Bundle {
        var actions = [Action]()
        var flags: UInt8 = 0
        var valueBalance = [UInt8](), anchor = [UInt8](), authorization = [UInt8]()
    }

    let version: UInt32
    let header: [UInt8]  // version, version group, branch id, lock time, expiry height: 20 bytes
    let branchID: [UInt8]
    let inputs: [(outpoint: [UInt8], script: [UInt8], sequence: [UInt8])]
    let outputs: [(value: [UInt8], script: [UInt8])]
    let spends: [SaplingSpend]
    let saplingOutputs: [SaplingOutput]
    let saplingValueBalance: [UInt8]
    let saplingAnchor: [UInt8]
    /// Spend proofs, spend authorization signatures, output proofs and the binding signature.
    let saplingAuthorization: [UInt8]
    let orchard: Bundle
    let ironwood: Bundle?

    /// v5's version group id (ZIP-225) and v6's (NU6.3).
    static let v5VersionGroup: UInt32 = 0x26A7_270A
    static let v6VersionGroup: UInt32 = 0xD884_B698

    public var isV6: Bool { version == 6 }

    /// `experimentalGroup`: a v6 version group id accepted besides the network's (zcash-test-vectors'
    /// v6 rows use 0xFFFFFFFF), for tests.
    public init(_ raw: [UInt8], experimentalGroup: UInt32? = nil) throws(ZcashDataError) {
        var r = raw[...]
        func take(_ n: Int) throws(ZcashDataError) -> [UInt8] {
            guard n >= 0, r.count >= n else { throw .badBlock(height: nil, reason: "a full transaction ends early") }
            defer { r = r.dropFirst(n) }
            return Array(r.prefix(n))
        }
        func compactSize() throws(ZcashDataError) -> Int {
            let first = try take(1)[0]
            let width = first == 0xFD ? 2 : first == 0xFE ? 4 : first == 0xFF ? 8 : 0
            if width == 0 { return Int(first) }
            let value = try take(width).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard value <= 1 << 24 else { throw .badBlock(height: nil, reason: "a count of \(value) in a full transaction") }
            return Int(value)
        }
        func uint32(_ b: [UInt8]) -> UInt32 { b.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        header = try take(20)
        let word = uint32(Array(header[0..<4]))
        guard word & 0x8000_0000 != 0, [5, 6].contains(word & 0x7FFF_FFFF) else {
            throw .badBlock(height: nil, reason: "only v5 and v6 transactions are read (version \(word & 0x7FFF_FFFF))")
        }
        version = word & 0x7FFF_FFFF
        let group = uint32(Array(header[4..<8]))
        guard group == (version == 6 ? Self.v6VersionGroup : Self.v5VersionGroup) || (version == 6 && group == experimentalGroup) else {
            throw .badBlock(height: nil, reason: "a v\(version) transaction with the version group id \(String(group, radix: 16))")
        }
        branchID = Array(header[8..<12])
        var inputs = [(outpoint: [UInt8], script: [UInt8], sequence: [UInt8])]()
        for _ in 0..<(try compactSize()) { inputs.append((try take(36), try take(try compactSize()), try take(4))) }
        self.inputs = inputs
        var outputs = [(value: [UInt8], script: [UInt8])]()
        for _ in 0..<(try compactSize()) { outputs.append((try take(8), try take(try compactSize()))) }
        self.outputs = outputs
        var spends = [SaplingSpend]()
        for _ in 0..<(try compactSize()) { spends.append(SaplingSpend(cv: try take(32), nullifier: try take(32), rk: try take(32))) }
        self.spends = spends
        var saplingOutputs = [SaplingOutput]()
        for _ in 0..<(try compactSize()) {
            saplingOutputs.append(
                SaplingOutput(
                    cv: try take(32), cmu: try take(32), ephemeralKey: try take(32),
                    encCiphertext: try take(580), outCiphertext: try take(80)))
        }
        self.saplingOutputs = saplingOutputs
        let sapling = spends.count + saplingOutputs.count
        saplingValueBalance = sapling > 0 ? try take(8) : []
        saplingAnchor = spends.isEmpty ? [] : try take(32)
        saplingAuthorization = try take(spends.count * (192 + 64) + saplingOutputs.count * 192 + (sapling > 0 ? 64 : 0))
        func bundle() throws(ZcashDataError) -> Bundle {
            var b = Bundle()
            for _ in 0..<(try compactSize()) {
                b.actions.append(
                    Action(
                        cv: try take(32), nullifier: try take(32), rk: try take(32), cmx: try take(32),
                        ephemeralKey: try take(32), encCiphertext: try take(580), outCiphertext: try take(80)))
            }
            guard !b.actions.isEmpty else { return b }
            b.flags = try take(1)[0]
            b.valueBalance = try take(8)
            b.anchor = try take(32)
            b.authorization = try take(try compactSize()) + take(b.actions.count * 64 + 64)
            return b
        }
        orchard = try bundle()
        ironwood = version == 6 ? try bundle() : nil
        guard r.isEmpty else { throw .badBlock(height: nil, reason: "a full transaction has \(r.count) bytes after its last bundle") }
    }

    /// The Sapling outputs and both Orchard-protocol bundles' actions, as memos need them.
    public var shieldedOutputs: (sapling: [FullSaplingOutput], orchard: [FullOrchardAction], ironwood: [FullOrchardAction]) {
        func full(_ b: Bundle?) -> [FullOrchardAction] {
            (b?.actions ?? []).map {
                FullOrchardAction(nullifier: $0.nullifier, cmx: $0.cmx, ephemeralKey: $0.ephemeralKey, encCiphertext: $0.encCiphertext)
            }
        }
        return (
            saplingOutputs.map {
                FullSaplingOutput(
                    cmu: $0.cmu, ephemeralKey: $0.ephemeralKey, encCiphertext: $0.encCiphertext, cv: $0.cv, outCiphertext: $0.outCiphertext)
            },
            full(orchard), full(ironwood)
        )
    }
}

/// Reading full transactions for memos.
public enum ZcashTransactionParser {
    public static func saplingOutputs(_ raw: [UInt8]) throws(ZcashDataError) -> [FullSaplingOutput] {
        try shieldedBundles(raw).sapling
    }

    public static func shieldedBundles(
        _ raw: [UInt8]
    ) throws(ZcashDataError)
        -> (sapling: [FullSaplingOutput], orchard: [FullOrchardAction], ironwood: [FullOrchardAction])
    {
        try ZcashFullTransaction(raw).shieldedOutputs
    }
}

/// A Sapling memo (ZIP-302): 512 bytes.
public enum SaplingMemo {
    /// The full note plaintext: ChaCha20-Poly1305 (IETF, zero nonce, no associated data) of the
    /// 580-byte ciphertext under the note key; nil when the tag does not verify.
    public static func plaintext(encCiphertext: [UInt8], key: [UInt8]) -> [UInt8]? {
        encCiphertext.count == 580 ? open(encCiphertext, key: key) : nil
    }

    /// ChaCha20-Poly1305 (IETF, zero nonce, no associated data): the plaintext, or nil when the
    /// tag does not verify (a note's ciphertext, or an out_ciphertext under its ock).
    static func open(_ ciphertext: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard ciphertext.count >= 16, key.count == 32 else { return nil }
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: ciphertext.count - 16)
        var length: UInt64 = 0
        let nonce = [UInt8](repeating: 0, count: 12)
        let rc = crypto_aead_chacha20poly1305_ietf_decrypt(&out, &length, nil, ciphertext, UInt64(ciphertext.count), nil, 0, nonce, key)
        return rc == 0 && Int(length) == out.count ? out : nil
    }

    /// The memo's text when it is one (first byte ≤ 0xF4: UTF-8, trailing zeros dropped); nil
    /// for "no memo" (0xF6 then zeros), arbitrary data (0xFF) and the reserved forms.
    public static func text(_ memo: [UInt8]) -> String? {
        guard let first = memo.first, first <= 0xF4 else { return nil }
        var end = memo.count
        while end > 0 && memo[end - 1] == 0 { end -= 1 }
        return String(validating: memo[0..<end], as: UTF8.self)
    }

    /// Whether the memo says "no memo" (0xF6 followed by zeros).
    public static func isEmpty(_ memo: [UInt8]) -> Bool {
        memo.first == 0xF6 && memo.dropFirst().allSatisfy { $0 == 0 }
    }
}
