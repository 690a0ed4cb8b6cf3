import Monero
import MoneroScan

/// Monero: block and transaction blobs (daemon answers and files), and epee, the binary form
/// of monerod's RPC answers.
enum MoneroTargets {
    static let all = [
        FuzzTarget(name: "monero-tx", covers: "transaction blobs; ids hashed one by one and in batches", run: transaction),
        FuzzTarget(name: "monero-block", covers: "block blobs with their miner transaction", run: block),
        FuzzTarget(name: "epee", covers: "epee portable storage (get_blocks.bin answers)", run: epee),
    ]

    /// The batched id (Keccak on 4 or 8 lanes) is the one-at-a-time id, for each of up to
    /// nine copies of a transaction (a full batch and a remainder).
    static func transaction(_ bytes: [UInt8]) {
        guard let one = try? MoneroTransaction(blob: bytes) else {
            holds((try? MoneroTransaction(blob: bytes, deferringID: true)) == nil, "the deferred parse took a blob the plain one refused")
            return
        }
        _ = one.extraFields
        guard let deferred = try? MoneroTransaction(blob: bytes, deferringID: true) else {
            holds(false, "the deferred parse refused a blob the plain one took")
            return
        }
        var batch = [MoneroTransaction](repeating: deferred, count: 1 + Int(bytes.last ?? 0) % 9)
        MoneroTransaction.computeIDs(&batch)
        for tx in batch { holds(tx.id == one.id, "a batched transaction id is not the scalar one") }
        holds(one.outputs.count == deferred.outputs.count && one.fee == deferred.fee, "the two parses read different transactions")
    }

    static func block(_ bytes: [UInt8]) {
        guard let block = try? MoneroBlock(blob: bytes) else { return }
        holds(block.id.count == 32 && block.previousID.count == 32, "a block id is not 32 bytes")
        _ = block.minerTransaction.extraFields
    }

    static func epee(_ bytes: [UInt8]) {
        _ = try? EpeeStorage.parse(bytes)
        // A request we write is a reply we can read: one array of uint64 under its name.
        let numbers = stride(from: 0, to: bytes.count - bytes.count % 8, by: 8).map { i in
            bytes[i..<(i + 8)].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        }
        guard let read = try? EpeeStorage.parse(EpeeStorage.request("heights", uint64s: numbers)),
            case .array(let values)? = read["heights"]
        else { holds(false, "our own epee request does not read back"); return }
        holds(values.count == numbers.count, "epee read \(values.count) numbers of \(numbers.count)")
        for (value, number) in zip(values, numbers) {
            guard case .uint(let got) = value else { holds(false, "a uint64 read back as another type"); return }
            holds(got == number, "epee read \(got) for \(number)")
        }
    }
}
