import WalletCore

/// A Partially Created Zcash Transaction (ZIP 374), as the `pczt` crate of zcash/librustzcash
/// encodes it: "PCZT", a little-endian u32 version, then a postcard body (see `PostcardCoder`).
///
/// The fields and their order follow the crate's serde types (pczt 0.9: `src/lib.rs` `v1`/`v2`,
/// `src/common.rs`, `src/transparent.rs`, `src/sapling.rs`, `src/orchard.rs` `v1`/`v2`).
/// Version 1 carries every bundle, Orchard's derived fields and anchor always; version 2
/// (crate 0.8 on) makes each bundle optional (absent: empty), adds the Ironwood bundle (v6
/// transactions), the bundles' note version, optional Orchard-shaped derived fields and anchor,
/// and a memo in place of a ciphertext. A PCZT is written back in the version it was read in,
/// byte for byte; an absent v2 bundle stays absent.
public struct PCZT: Sendable, Equatable {
    public static let magic: [UInt8] = Array("PCZT".utf8)
    /// The body's version: 1, what deployed signers read; 2, with Ironwood.
    public var version: UInt32
    public var global: PCZTGlobal
    /// nil: absent from a version 2 PCZT (an empty bundle).
    public var transparent: PCZTTransparentBundle?
    public var sapling: PCZTSaplingBundle?
    public var orchard: PCZTOrchardBundle?
    /// Version 2 only.
    public var ironwood: PCZTOrchardBundle?

    public init(
        version: UInt32, global: PCZTGlobal, transparent: PCZTTransparentBundle?, sapling: PCZTSaplingBundle?,
        orchard: PCZTOrchardBundle?, ironwood: PCZTOrchardBundle?
    ) {
        (self.version, self.global, self.transparent, self.sapling, self.orchard, self.ironwood) = (
            version, global, transparent, sapling, orchard, ironwood
        )
    }

    /// Reads a PCZT; every length and count is checked against the bytes left before it is
    /// allocated, and an error names the field where the bytes broke.
    public init(parsing data: [UInt8]) throws(PCZTError) {
        guard data.count >= 8 else { throw .malformed(field: "", offset: 0, reason: "\(data.count) bytes, fewer than a header") }
        guard Array(data[0..<4]) == Self.magic else { throw .malformed(field: "", offset: 0, reason: "not a PCZT (no \"PCZT\" magic)") }
        let version = UInt32(data[4]) | UInt32(data[5]) << 8 | UInt32(data[6]) << 16 | UInt32(data[7]) << 24
        guard version == 1 || version == 2 else { throw .unsupported("PCZT version \(version); versions 1 and 2 are read") }
        var reader = PostcardReader(data, offset: 8)
        var pczt = PCZT(version: version, global: PCZTGlobal(), transparent: nil, sapling: nil, orchard: nil, ironwood: nil)
        try pczt.code(&reader)
        guard reader.remaining == 0 else {
            throw .malformed(
                field: "", offset: reader.offset, reason: "\(reader.remaining) byte\(reader.remaining == 1 ? "" : "s") after the PCZT's end"
            )
        }
        self = pczt
    }

    /// The PCZT's bytes, in its version.
    public func serialized() throws(PCZTError) -> [UInt8] {
        var writer = PostcardWriter()
        var copy = self
        try copy.code(&writer)
        return Self.magic + le32(version) + writer.bytes
    }

    mutating func code<C: PostcardCoder>(_ coder: inout C) throws(PCZTError) {
        try coder.value(&global, "global")
        if version == 1 {
            // Version 1 has every bundle, and no Ironwood one.
            var t = transparent ?? PCZTTransparentBundle(), s = sapling ?? PCZTSaplingBundle()
            var o = orchard ?? PCZTOrchardBundle(version: 1)
            try coder.value(&t, "transparent")
            try coder.value(&s, "sapling")
            try coder.scoped("orchard") { (coder: inout C) throws(PCZTError) in try o.code(&coder, version: 1) }
            guard ironwood == nil else { throw .unsupported("a version 1 PCZT has no Ironwood bundle") }
            (transparent, sapling, orchard) = (t, s, o)
        } else {
            try coder.optional(&transparent, "transparent")
            try coder.optional(&sapling, "sapling")
            for (name, bundle) in [("orchard", \PCZT.orchard), ("ironwood", \PCZT.ironwood)] {
                var value = self[keyPath: bundle]
                try coder.option(&value, name, empty: { PCZTOrchardBundle(version: 2) }) {
                    (coder: inout C, item: inout PCZTOrchardBundle) throws(PCZTError) in try item.code(&coder, version: 2)
                }
                self[keyPath: bundle] = value
            }
        }
    }
}

/// A ZIP 32 seed fingerprint and path: where a key of the PCZT comes from.
public struct PCZTDerivation: Sendable, Equatable, PostcardCodable {
    public var seedFingerprint: [UInt8] = []
    public var path: [UInt32] = []

    public init() {}

    mutating func code<C: PostcardCoder>(_ coder: inout C) throws(PCZTError) {
        try coder.fixed(&seedFingerprint, count: 32, "seed_fingerprint")
        try coder.sequence(&path, "derivation_path", empty: { 0 }) { (coder: inout C, step: inout UInt32) throws(PCZTError) in
            try coder.u32(&step, "")
        }
    }
}

public struct PCZTGlobal: Sendable, Equatable, PostcardCodable {
    public var txVersion: UInt32 = 0
    public var versionGroupID: UInt32 = 0
    public var consensusBranchID: UInt32 = 0
    public var fallbackLockTime: UInt32?
    public var expiryHeight: UInt32 = 0
    public var coinType: UInt32 = 0
    /// Bit 0: transparent inputs modifiable; 1: transparent outputs modifiable; 2: has
    /// SIGHASH_SINGLE; 7: shielded modifiable.
    public var txModifiable: UInt8 = 0
    public var proprietary: PCZTMap<String, [UInt8]> = PCZTMap()

    public init() {}

    mutating func code<C: PostcardCoder>(_ coder: inout C) throws(PCZTError) {
        try coder.u32(&txVersion, "tx_version")
        try coder.u32(&versionGroupID, "version_group_id")
        try coder.u32(&consensusBranchID, "consensus_branch_id")
        try coder.optionalU32(&fallbackLockTime, "fallback_lock_time")
        try coder.u32(&expiryHeight, "expiry_height")
        try coder.u32(&coinType, "coin_type")
        try coder.u8(&txModifiable, "tx_modifiable")
        try coder.proprietary(&proprietary)
    }

}

/// A serde map (a BTreeMap): its entries in increasing key order.
public struct PCZTMap<Key: Sendable & Equatable, Value: Sendable & Equatable>: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var key: Key
        public var value: Value

        public init(key: Key, value: Value) {
            self.key = key
            self.value = value
        }
    }

    public var entries: [Entry] = []

    public init() {}

    public subscript(key: Key) -> Value? { entries.first { $0.key == key }?.value }
}

// MARK: Transparent

public struct PCZTTransparentBundle: Sendable, Equatable, PostcardCodable {
    public var inputs: [PCZTTransparentInput] = []
    public var outputs: [PCZTTransparentOutput] = []

    public init() {}

    mutating func code<C: PostcardCoder>(_ coder: inout C) throws(PCZTError) {
        try coder.elements(&inputs, "inputs")
        try coder.elements(&outputs, "outputs")
    }
}

public struct PCZTTransparentInput: Sendable, Equatable, PostcardCodable {
    public var prevoutTxid: [UInt8] = []
    public var prevoutIndex: UInt32 = 0
    public var sequence: UInt32?
    public var requiredTimeLockTime: UInt32?
    public var requiredHeightLockTime: UInt32?
    public var scriptSig: [UInt8]?
    public var value: UInt64 = 0
    public var scriptPubKey: [UInt8] = []
    public var redeemScript: [UInt8]?
    /// Public key (33 bytes) → DER signature and sighash byte.
    public var partialSignatures: PCZTMap<[UInt8], [UInt8]> = PCZTMap()
    public var sighashType: UInt8 = 0
    /// Public key (33 bytes) → where its key comes from.
    public var bip32Derivation: PCZTMap<[UInt8], PCZTDerivation> = PCZTMap()
    public var ripemd160Preimages: PCZTMap<[UInt8], [UInt8]> = PCZTMap()
    public var sha256Preimages: PCZTMap<[UInt8], [UInt8]> = PCZTMap()
    public var hash160Preimages: PCZTMap<[UInt8], [UInt8]> = PCZTMap()
    public var hash256Preimages: PCZTMap<[UInt8], [UInt8]> = PCZTMap()
    public var proprietary: PCZTMap<String, [UInt8]> = PCZTMap()

    public init() {}

    mutating func code<C: PostcardCoder>(_ coder: inout C) throws(PCZTError) {
        try coder.fixed(&prevoutTxid, count: 32, "prevout_txid")
        try coder.u32(&prevoutIndex, "prevout_index")
        try coder.optionalU32(&sequence, "sequence")
        try coder.optionalU32(&requiredTimeLockTime, "required_time_lock_time")
        try coder.optionalU32(&requiredHeightLockTime, "required_height_lock_time")
        try coder.optionalBytes(&scriptSig, "script_sig")
        try coder.u64(&value, "value")
        try coder.bytes(&scriptPubKey, "script_pubkey")
        try coder.optionalBytes(&redeemScript, "redeem_script")
        try coder.byteMap(&partialSignatures, keySize: 33, "partial_signatures")
        try coder.u8(&sighashType, "sighash_type")
        try coder.derivations(&bip32Derivation, "bip32_derivation")
        try coder.byteMap(&ripemd160Preimages, keySize: 20, "ripemd160_preimages")
        try coder.byteMap(&sha256Preimages, keySize: 32, "sha256_preimages")
        try coder.byteMap(&hash160Preimages, keySize: 20, "hash160_preimages")
        try coder.byteMap(&hash256Preimages, keySize: 32, "hash256_preimages")
        try coder.proprietary(&proprietary)
    }

}

public struct PCZTTransparentOutput: Sendable, Equatable, PostcardCodable {
    public var value: UInt64 = 0
    public var scriptPubKey: [UInt8] = []
    public var redeemScript: [UInt8]?
    public var bip32Derivation: PCZTMap<[UInt8], PCZTDerivation> = PCZTMap()
    public var userAddress: String?
    public var proprietary: PCZTMap<String, [UInt8]> = PCZTMap()

    public init() {}

    mutating func code<C: PostcardCoder>(_ coder: inout C) throws(PCZTError) {
        try coder.u64(&value, "value")
        try coder.bytes(&scriptPubKey, "script_pubkey")
        try coder.optionalBytes(&redeemScript, "redeem_script")
        try coder.derivations(&bip32Derivation, "bip32_derivation")
        try coder.optionalString(&userAddress, "user_address")
        try coder.proprietary(&proprietary)
    }

}

extension PostcardCoder {
    /// A `BTreeMap<[u8; 33], Zip32Derivation>`: public keys and where they come from.
    mutating func derivations(_ value: inout PCZTMap<[UInt8], PCZTDerivation>, _ name: String) throws(PCZTError) {
        try map(&value, name, empty: { .init(key: [], value: PCZTDerivation()) }, key: { $0 }) {
            (coder: inout Self, key: inout [UInt8], item: inout PCZTDerivation) throws(PCZTError) in
            try coder.fixed(&key, count: 33, "key")
            try coder.value(&item, "value")
        }
    }

    /// A Merkle path: the position and 32 sibling hashes.
    mutating func witness(_ value: inout PCZTWitness?, _ name: String) throws(PCZTError) {
        try option(&value, name, empty: { PCZTWitness(position: 0, path: []) }) {
            (coder: inout Self, item: inout PCZTWitness) throws(PCZTError) in
            try coder.u32(&item.position, "position")
            if item.path.isEmpty { item.path = Array(repeating: [], count: 32) }
            for index in 0..<32 { try coder.fixed(&item.path[index], count: 32, "path[\(index)]") }
        }
    }
}

/// A note's Merkle path to the anchor: its position and the 32 sibling hashes.
public struct PCZTWitness: Sendable, Equatable {
    public var position: UInt32
    public var path: [[UInt8]]

    public init(position: UInt32, path: [[UInt8]]) { (self.position, self.path) = (position, path) }
}

// MARK: Sapling

public struct PCZTSaplingBundle: Sendable, Equatable, PostcardCodable {
    public var spends: [PCZTSaplingSpend] = []
    public var outputs: [PCZTSaplingOutput] = []
    /// Spends minus outputs, in zatoshi.
    public var valueSum: Int128 = 0
    public var anchor: [UInt8] = Array(repeating: 0, count: 32)
    public var bsk: [UInt8]?

    public init() {}

    mutating func code<C: PostcardCoder>(_ coder: inout C) throws(PCZTError) {
        try coder.elements(&spends, "spends")
        try coder.elements(&outputs, "outputs")
        try coder.i128(&valueSum, "value_sum")
        try coder.fixed(&anchor, count: 32, "anchor")
        try coder.optionalFixed(&bsk, count: 32, "bsk")
    }
}

public struct PCZTSaplingSpend: Sendable, Equatable, PostcardCodable {
    public var cv: [UInt8] = []
    public var nullifier: [UInt8] = []
    public var rk: [UInt8] = []
    public var zkproof: [UInt8]?
    public var spendAuthSig: [UInt8]?
    public var recipient: [UInt8]?
    public var value: UInt64?
    public var rcm: [UInt8]?
    public var rseed: [UInt8]?
    public var rcv: [UInt8]?
    /// (ak, nsk).
    public var proofGenerationKey: [UInt8]?
    public var witness: PCZTWitness?
    public var alpha: [UInt8]?
    public var derivation: PCZTDerivation?
    /// Set only while a dummy spend is built; a Signer refuses it (ZIP 374).
    public var dummyAsk: [UInt8]?
    public var proprietary: PCZTMap<String, [UInt8]> = PCZTMap()

    public init() {}

    mutating func code<C: PostcardCoder>(_ coder: inout C) throws(PCZTError) {
        try coder.fixed(&cv, count: 32, "cv")
        try coder.fixed(&nullifier, count: 32, "nullifier")
        try coder.fixed(&rk, count: 32, "rk")
        try coder.optionalFixed(&zkproof, count: 192, "zkproof")
        try coder.optionalFixed(&spendAuthSig, count: 64, "spend_auth_sig")
        try coder.optionalFixed(&recipient, count: 43, "recipient")
        try coder.optionalU64(&value, "value")
        try coder.optionalFixed(&rcm, count: 32, "rcm")
        try coder.optionalFixed(&rseed, count: 32, "rseed")
        try coder.optionalFixed(&rcv, count: 32, "rcv")
        // A pair of 32-byte arrays is 64 bytes in a row.
        try coder.optionalFixed(&proofGenerationKey, count: 64, "proof_generation_key")
        try coder.witness(&witness, "witness")
        try coder.optionalFixed(&alpha, count: 32, "alpha")
        try coder.optional(&derivation, "zip32_derivation")
        try coder.optionalFixed(&dummyAsk, count: 32, "dummy_ask")
        try coder.proprietary(&proprietary)
    }

}

public struct PCZTSaplingOutput: Sendable, Equatable, PostcardCodable {
    public var cv: [UInt8] = []
    public var cmu: [UInt8] = []
    public var ephemeralKey: [UInt8] = []
    public var encCiphertext: [UInt8] = []
    public var outCiphertext: [UInt8] = []
    public var zkproof: [UInt8]?
    public var recipient: [UInt8]?
    public var value: UInt64?
    public var rseed: [UInt8]?
    public var rcv: [UInt8]?
    public var ock: [UInt8]?
    public var derivation: PCZTDerivation?
    public var userAddress: String?
    public var proprietary: PCZTMap<String, [UInt8]> = PCZTMap()

    public init() {}

    mutating func code<C: PostcardCoder>(_ coder: inout C) throws(PCZTError) {
        try coder.fixed(&cv, count: 32, "cv")
        try coder.fixed(&cmu, count: 32, "cmu")
        try coder.fixed(&ephemeralKey, count: 32, "ephemeral_key")
        try coder.bytes(&encCiphertext, "enc_ciphertext")
        try coder.bytes(&outCiphertext, "out_ciphertext")
        try coder.optionalFixed(&zkproof, count: 192, "zkproof")
        try coder.optionalFixed(&recipient, count: 43, "recipient")
        try coder.optionalU64(&value, "value")
        try coder.optionalFixed(&rseed, count: 32, "rseed")
        try coder.optionalFixed(&rcv, count: 32, "rcv")
        try coder.optionalFixed(&ock, count: 32, "ock")
        try coder.optional(&derivation, "zip32_derivation")
        try coder.optionalString(&userAddress, "user_address")
        try coder.proprietary(&proprietary)
    }

}

// MARK: Orchard and Ironwood

/// An Orchard-shaped bundle: Orchard's, or (version 2) Ironwood's. Fields a version 1 PCZT
/// always carries are optional here for version 2's sake.
public struct PCZTOrchardBundle: Sendable, Equatable {
    public var actions: [PCZTAction] = []
    /// Bit 0 spends enabled, bit 1 outputs enabled (Ironwood: bit 2 cross-address).
    public var flags: UInt8 = 0
    /// Spends minus outputs, as a magnitude and whether it is negative.
    public var valueSumMagnitude: UInt64 = 0
    public var valueSumNegative = false
    public var anchor: [UInt8]?
    /// Version 2: the notes' plaintext version (0: Orchard's V2, 1: Ironwood's V3).
    public var noteVersion: UInt32?
    public var zkproof: [UInt8]?
    public var bsk: [UInt8]?

    public init(version: UInt32) {
        if version == 1 { anchor = Array(repeating: 0, count: 32) }
    }

    mutating func code<C: PostcardCoder>(_ coder: inout C, version: UInt32) throws(PCZTError) {
        try coder.sequence(&actions, "actions", empty: PCZTAction.init) { (coder: inout C, action: inout PCZTAction) throws(PCZTError) in
            try action.code(&coder, version: version)
        }
        try coder.u8(&flags, "flags")
        try coder.u64(&valueSumMagnitude, "value_sum")
        try coder.bool(&valueSumNegative, "value_sum")
        if version == 1 {
            var value = anchor ?? []
            try coder.fixed(&value, count: 32, "anchor")
            anchor = value
        } else {
            try coder.optionalFixed(&anchor, count: 32, "anchor")
            var note = noteVersion ?? 0
            try coder.u32(&note, "note_version")
            guard note <= 1 else { throw .unsupported("note version \(note) (0 and 1 are known)") }
            noteVersion = note
        }
        try coder.optionalBytes(&zkproof, "zkproof")
        try coder.optionalFixed(&bsk, count: 32, "bsk")
    }

}

public struct PCZTAction: Sendable, Equatable {
    public var cvNet: [UInt8]?
    public var spend = PCZTActionSpend()
    public var output = PCZTActionOutput()
    public var rcv: [UInt8]?

    public init() {}

    mutating func code<C: PostcardCoder>(_ coder: inout C, version: UInt32) throws(PCZTError) {
        try coder.derived(&cvNet, version: version, "cv_net")
        try coder.scoped("spend") { (coder: inout C) throws(PCZTError) in try spend.code(&coder, version: version) }
        try coder.scoped("output") { (coder: inout C) throws(PCZTError) in try output.code(&coder, version: version) }
        try coder.optionalFixed(&rcv, count: 32, "rcv")
    }
}

public struct PCZTActionSpend: Sendable, Equatable {
    public var nullifier: [UInt8]?
    public var rk: [UInt8]?
    public var spendAuthSig: [UInt8]?
    public var recipient: [UInt8]?
    public var value: UInt64?
    public var rho: [UInt8]?
    public var rseed: [UInt8]?
    public var fvk: [UInt8]?
    public var witness: PCZTWitness?
    public var alpha: [UInt8]?
    public var derivation: PCZTDerivation?
    /// Set only while a dummy spend is built; a Signer refuses it (ZIP 374).
    public var dummySk: [UInt8]?
    public var proprietary: PCZTMap<String, [UInt8]> = PCZTMap()

    public init() {}

    mutating func code<C: PostcardCoder>(_ coder: inout C, version: UInt32) throws(PCZTError) {
        try coder.derived(&nullifier, version: version, "nullifier")
        try coder.derived(&rk, version: version, "rk")
        try coder.optionalFixed(&spendAuthSig, count: 64, "spend_auth_sig")
        try coder.optionalFixed(&recipient, count: 43, "recipient")
        try coder.optionalU64(&value, "value")
        try coder.optionalFixed(&rho, count: 32, "rho")
        try coder.optionalFixed(&rseed, count: 32, "rseed")
        try coder.optionalFixed(&fvk, count: 96, "fvk")
        try coder.witness(&witness, "witness")
        try coder.optionalFixed(&alpha, count: 32, "alpha")
        try coder.optional(&derivation, "zip32_derivation")
        try coder.optionalFixed(&dummySk, count: 32, "dummy_sk")
        try coder.proprietary(&proprietary)
    }

}

/// An output's note: its ciphertext, or (version 2) the memo to encrypt it again from.
public enum PCZTEncCiphertext: Sendable, Equatable {
    case encrypted([UInt8])
    /// The memo with its trailing zero bytes stripped.
    case memo([UInt8])
}

public struct PCZTActionOutput: Sendable, Equatable {
    public var cmx: [UInt8]?
    public var ephemeralKey: [UInt8] = []
    public var encCiphertext = PCZTEncCiphertext.encrypted([])
    public var outCiphertext: [UInt8] = []
    public var recipient: [UInt8]?
    public var value: UInt64?
    public var rseed: [UInt8]?
    public var ock: [UInt8]?
    public var derivation: PCZTDerivation?
    public var userAddress: String?
    public var proprietary: PCZTMap<String, [UInt8]> = PCZTMap()

    public init() {}

    mutating func code<C: PostcardCoder>(_ coder: inout C, version: UInt32) throws(PCZTError) {
        try coder.derived(&cmx, version: version, "cmx")
        try coder.fixed(&ephemeralKey, count: 32, "ephemeral_key")
        if version == 1 {
            guard case .encrypted(var ciphertext) = encCiphertext else {
                throw .unsupported("a version 1 PCZT carries ciphertexts, not memos")
            }
            try coder.bytes(&ciphertext, "enc_ciphertext")
            encCiphertext = .encrypted(ciphertext)
        } else {
            var (tag, body): (UInt32, [UInt8])
            switch encCiphertext {
            case .encrypted(let bytes): (tag, body) = (0, bytes)
            case .memo(let bytes): (tag, body) = (1, bytes)
            }
            try coder.u32(&tag, "enc_ciphertext")
            guard tag <= 1 else { throw .unsupported("enc_ciphertext variant \(tag) (0 and 1 are known)") }
            try coder.bytes(&body, "enc_ciphertext")
            if tag == 1, body.count > 512 || body.last == 0 {
                throw .unsupported("a memo longer than 512 bytes or with trailing zeros (the crate refuses it)")
            }
            encCiphertext = tag == 0 ? .encrypted(body) : .memo(body)
        }
        try coder.bytes(&outCiphertext, "out_ciphertext")
        try coder.optionalFixed(&recipient, count: 43, "recipient")
        try coder.optionalU64(&value, "value")
        try coder.optionalFixed(&rseed, count: 32, "rseed")
        try coder.optionalFixed(&ock, count: 32, "ock")
        try coder.optional(&derivation, "zip32_derivation")
        try coder.optionalString(&userAddress, "user_address")
        try coder.proprietary(&proprietary)
    }

}

extension PostcardCoder {
    /// A 32-byte field that version 1 always carries and version 2 may leave out (the
    /// receiver computes it again).
    mutating func derived(_ value: inout [UInt8]?, version: UInt32, _ name: String) throws(PCZTError) {
        if version == 1 {
            var bytes = value ?? []
            try fixed(&bytes, count: 32, name)
            value = bytes
        } else {
            try optionalFixed(&value, count: 32, name)
        }
    }
}
