import Bitcoin
import WalletCore
import WalletScan

/// What one block holds for a wallet: the outputs that pay its scripts and the inputs that
/// spend its outputs.
public struct BitcoinFindings: Sendable, Equatable {
    public struct Received: Sendable, Equatable {
        public let txIndex: Int
        public let txid: [UInt8]
        public let vout: UInt32
        public let value: UInt64
        public let script: [UInt8]
        public let coinbase: Bool
    }

    public struct Spent: Sendable, Equatable {
        public let txIndex: Int
        public let txid: [UInt8]
        public let vin: Int
        /// The output it spends: txid ‖ vout.
        public let outpoint: [UInt8]
    }

    public var received: [Received] = []
    public var spent: [Spent] = []
}

extension BitcoinBlock {
    /// The wallet's findings in this block. `scripts`: the watched scriptPubKeys, matched
    /// whole (a key's P2PKH hash in a P2SH or P2WPKH script is another script, not a match);
    /// `owned`: outpoints the wallet holds unspent from earlier blocks. Transactions are taken
    /// in block order, so an output that a later transaction of the same block spends is
    /// found received and then spent.
    public func findings(watching scripts: Set<[UInt8]>, owned: Set<[UInt8]>) -> BitcoinFindings {
        findings(watching: FilteredByteSet(scripts), owned: FilteredByteSet(owned))
    }

    /// The same, over filtered sets (what a scanner keeps). Each script and outpoint is first
    /// tested against the filter by the slot the parse kept; a slice is made only for the few
    /// the filter lets through.
    public func findings(watching scripts: FilteredByteSet, owned: FilteredByteSet) -> BitcoinFindings {
        var found = BitcoinFindings()
        var owned = owned
        let tables = self.tables
        for txIndex in transactions.indices {
            let tx = transactions[txIndex]
            if !tx.isCoinbase && !owned.isEmpty {
                for vin in 0..<Int(tx.inputCount) {
                    let at = Int(tables.outpoints[Int(tx.inputStart) + vin])
                    guard owned.filter.mayContain(slot: tables.outpointSlots[Int(tx.inputStart) + vin]),
                        owned.remove(tables.bytes[at..<at + 36])
                    else { continue }
                    found.spent.append(.init(txIndex: txIndex, txid: tx.id, vin: vin, outpoint: Array(tables.bytes[at..<at + 36])))
                }
            }
            tx.outputs(passing: scripts.filter) { vout, value, script in
                guard scripts.contains(script) else { return }
                found.received.append(
                    .init(
                        txIndex: txIndex, txid: tx.id, vout: UInt32(vout), value: value,
                        script: Array(script), coinbase: tx.isCoinbase))
                owned.insert(Bitcoin.outpoint(tx.id, UInt32(vout)))
            }
        }
        return found
    }
}
