import Bitcoin
import WalletCore
import WalletScan

/// A taproot output: what a silent payment can be.
public struct TaprootOutput: Sendable, Equatable {
    public let vout: Int
    /// The x-only output key.
    public let key: [UInt8]
    public let value: UInt64

    public init(vout: Int, key: [UInt8], value: UInt64) { (self.vout, self.key, self.value) = (vout, key, value) }
}

extension BitcoinTransaction {
    /// Its taproot outputs, in order.
    public var taprootOutputs: [TaprootOutput] {
        outputs.enumerated().compactMap { vout, output in
            guard Self.isTaproot(output.scriptBytes) else { return nil }
            return TaprootOutput(vout: vout, key: Array(output.scriptBytes.dropFirst(2)), value: output.value)
        }
    }

    /// Whether it has a taproot output, asked of every transaction of a block: nothing copied.
    public var hasTaprootOutput: Bool { outputs.contains { Self.isTaproot($0.scriptBytes) } }

    /// OP_1 and a 32-byte push: P2TR's scriptPubKey.
    static func isTaproot(_ s: ArraySlice<UInt8>) -> Bool { s.count == 34 && s[s.startIndex] == 0x51 && s[s.startIndex + 1] == 0x20 }

    /// Its inputs as BIP352 reads them, given each one's spent script: the scriptSig follows
    /// each outpoint in the block, the witness stacks follow the last output.
    func silentPaymentInputs(spent: ArraySlice<[UInt8]>, what: String) throws(ScanError) -> [SilentPaymentInput] {
        var reader = ByteReader(tables.bytes, what: what)
        var inputs: [SilentPaymentInput] = []
        inputs.reserveCapacity(Int(inputCount))
        for (i, script) in zip(0..<Int(inputCount), spent) {
            reader.offset = Int(tables.outpoints[Int(inputStart) + i]) + 36
            let length = try reader.compactSize(maximum: tables.bytes.count - reader.offset)
            let scriptSig = try reader.take(length)
            let outpoint = Array(tables.bytes[Int(tables.outpoints[Int(inputStart) + i])...].prefix(36))
            inputs.append(SilentPaymentInput(outpoint: outpoint, scriptSig: scriptSig, witness: [], spentScript: script))
        }
        guard hasWitness, outputCount > 0 else { return inputs }
        let last = tables.outputs[Int(outputStart) + Int(outputCount) - 1]
        reader.offset = Int(last.offset) + Int(last.length)
        for i in inputs.indices {
            let items = try reader.compactSize(maximum: tables.bytes.count - reader.offset)
            var stack: [[UInt8]] = []
            stack.reserveCapacity(items)
            for _ in 0..<items { stack.append(try reader.take(try reader.compactSize(maximum: tables.bytes.count - reader.offset))) }
            inputs[i].witness = stack
        }
        return inputs
    }
}

extension BitcoinBlock {
    /// Reads what each input spends (`spent`: one script per input of every transaction but
    /// the coinbase, in block order) and gives each transaction that can hold a silent payment
    /// — a taproot output, inputs BIP352 counts — its tweak data, input_hash·A: public, the
    /// same for every wallet, so computed once per block here, where parsing runs on every core.
    public mutating func attachSpent(_ spent: [[UInt8]], what: String) throws(ScanError) {
        let needed = transactions.reduce(0) { $0 + ($1.isCoinbase ? 0 : Int($1.inputCount)) }
        guard spent.count == needed else {
            throw .malformed(what: what, reason: "\(spent.count) spent outputs given for its \(needed) inputs (the coinbase's aside)")
        }
        var at = 0
        for i in transactions.indices where !transactions[i].isCoinbase {
            let count = Int(transactions[i].inputCount)
            defer { at += count }
            try transactions[i].attachSpent(spent[at..<at + count], what: "\(what) transaction \(i)")
        }
    }
}

extension BitcoinTransaction {
    /// The transaction's spent scripts, one per input in order (a block's, or a mempool
    /// transaction's): its tweak data where it can hold a silent payment.
    mutating func attachSpent(_ spent: ArraySlice<[UInt8]>, what: String) throws(ScanError) {
        guard spent.count == Int(inputCount) else {
            throw .malformed(what: what, reason: "\(spent.count) spent outputs given for its \(inputCount) inputs")
        }
        spentKnown = true
        guard hasTaprootOutput else { return }
        silentPaymentTweak = SilentPaymentTweak(inputs: try silentPaymentInputs(spent: spent, what: what))
    }
}

/// A wallet's silent payment receiver in a scan: its keys, the account it is reported
/// under, and the labels looked for (change, 0, among them for a wallet's own keys).
public struct SilentPaymentWatch: Sendable {
    public let keys: SilentPaymentKeys
    public let account: UInt32
    public let labels: [UInt32]
    public let testnet: Bool
    let receiver: SilentPaymentReceiver

    public init(keys: SilentPaymentKeys, account: UInt32 = 0, labels: [UInt32], testnet: Bool) throws(SilentPaymentError) {
        guard account < 1 << 28 else { throw .invalidKey("account \(account) is beyond what a scan follows (2^28)") }
        self.keys = keys
        self.account = account
        self.labels = Array(Set(labels)).sorted()
        self.testnet = testnet
        receiver = try SilentPaymentReceiver(keys: keys, labels: self.labels)
    }

    /// The outputs paid to this receiver in each transaction (its id and taproot outputs),
    /// given each one's shared point (`SilentPaymentReceiver.sharedSecrets`; nil: a scan key
    /// that is no key, which finds nothing). The keys an output must have for k = 0 are made
    /// for all at once first: most transactions end there. Each output carries its tweak
    /// (b_spend + tweak spends it) as its memo; label 0 is change.
    func received(in transactions: [(id: [UInt8], outputs: [TaprootOutput])], secrets: [SecureBytes]?) -> [[ReceivedOutput]] {
        guard let secrets else { return transactions.map { _ in [] } }
        let firstKeys = receiver.firstOutputKeys(secrets)
        return transactions.indices.map { i in
            let (id, outputs) = transactions[i]
            let hits = receiver.scan(outputs: outputs.map(\.key), sharedSecret: secrets[i], firstKeys: firstKeys?[i])
            return hits.map { hit in
                let output = outputs[hit.output]
                var received = ReceivedOutput(
                    height: nil, txID: id, index: output.vout, amount: output.value, account: code,
                    addressIndex: Self.addressIndex(label: hit.label), spendTag: Bitcoin.outpoint(id, UInt32(output.vout)),
                    memo: hit.tweak, unlockTime: 0, isCoinbase: false, outputKey: [0x51, 0x20] + output.key)
                received.isChange = hit.label == 0  // BIP352's change label
                return received
            }
        }
    }

    /// What ties a scan state to these keys: both public keys and the labels.
    var identity: [UInt8] {
        Array("silent-payment".utf8) + keys.scanPublicKey.compressed + keys.spendPublicKey.compressed
            + withUnsafeBytes(of: account.bigEndian) { Array($0) } + labels.flatMap { withUnsafeBytes(of: $0.bigEndian) { Array($0) } }
    }

    /// The engine's account code: slot 4 beside the four script kinds' (`WatchAccount.code`).
    var code: UInt32 { Self.slot << 28 | account }
    static let slot: UInt32 = 4
    /// The engine's address index: 0 for the unlabeled address, the top bit and m for label m.
    static func addressIndex(label: UInt32?) -> UInt32 { label.map { 0x8000_0000 | $0 } ?? 0 }
    static func label(ofIndex index: UInt32) -> UInt32? { index & 0x8000_0000 != 0 ? index & 0x7FFF_FFFF : nil }
}
