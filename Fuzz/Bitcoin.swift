import Bitcoin
import BitcoinScan
import WalletCore
import WalletKeys
import WalletScan
import WalletCrypto

/// Bitcoin-family data: transactions and blocks (Litecoin's MWEB among them) as the scanner
/// and the PSBT code read them, and PSBTs through the signer and finalizer.
enum BitcoinTargets {
    static let all = [
        FuzzTarget(
            name: "bitcoin-tx", covers: "transactions: the scanner's reader against the PSBT code's, both dialects", run: transaction),
        FuzzTarget(
            name: "bitcoin-block", covers: "blocks (merkle root made right by the target): batched txids against one by one", run: block),
        FuzzTarget(
            name: "psbt",
            covers: "PSBTs (v0, v2, BIP375's silent payment fields): read, write, sign with BIP174's example key, finalize, extract",
            run: psbt),
        FuzzTarget(name: "bitcoin-undo", covers: "undo data (rev*.dat records): records, spent scripts, both dialects", run: undo),
        FuzzTarget(
            name: "silent-payment", covers: "sp1/tsp1 addresses; BIP352 inputs (scriptSig, witness, spent script) to tweak data",
            run: silentPayment),
        FuzzTarget(
            name: "tweak-records", covers: "scan-blocks --tweaks: a block's sp_block record and its sp_tweak records (one a line)",
            run: tweakRecords),
    ]

    /// A block of tweak records (the first line its sp_block record, the others its sp_tweak
    /// records) is read whole or refused: what is read holds a record per line, a point per
    /// tweak, and outputs in growing vout order.
    static func tweakRecords(_ bytes: [UInt8]) {
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        guard let first = lines.first else { return }
        let data = BlockData(height: 7, blob: first, transactions: Array(lines.dropFirst()), claimedID: nil)
        guard case .success(let block) = SilentPaymentTweakScanner<BitcoinMainChain>.parse(data) else { return }
        holds(block.transactions.count == lines.count - 1, "a tweak record was dropped")
        holds(block.id.count == 32 && block.previousID.count == 32, "a block id that is not 32 bytes")
        for tx in block.transactions {
            holds(tx.tweak.compressed.count == 33 && tx.id.count == 32, "a tweak that is not a point, or a txid not 32 bytes")
            holds(!tx.outputs.isEmpty && zip(tx.outputs, tx.outputs.dropFirst()).allSatisfy { $0.vout < $1.vout }, "outputs out of order")
            holds(tx.outputs.allSatisfy { $0.key.count == 32 }, "an output key that is not 32 bytes")
        }
    }

    /// Undo records and the spent scripts in them; every script read is one a node could have
    /// spent (a special form decompressed, or the bytes as stored).
    static func undo(_ bytes: [UInt8]) {
        let (selector, rest) = split(bytes)
        let dialect: BitcoinDialect = selector & 1 == 0 ? .bitcoin : .litecoin
        if selector & 2 == 0 {
            guard let records = try? BitcoinUndo.records(rest, magic: [0xF9, 0xBE, 0xB4, 0xD9], name: "fuzz") else { return }
            for record in records {
                holds(record.checksum.count == 32, "an undo record's checksum is not 32 bytes")
                _ = try? BitcoinUndo.spentScripts(record.data, dialect: dialect, what: "fuzz")
            }
            return
        }
        guard let scripts = try? BitcoinUndo.spentScripts(rest[...], dialect: dialect, what: "fuzz") else { return }
        holds(scripts.allSatisfy { $0.count <= 10_000 }, "a spent script longer than MAX_SCRIPT_SIZE")
    }

    /// An address reads back as itself (lower case, version 0) or is refused; a transaction's
    /// inputs, as fuzzed, give tweak data only from keys that are on the curve.
    static func silentPayment(_ bytes: [UInt8]) {
        let (selector, rest) = split(bytes)
        if selector & 1 == 0 {
            let text = String(decoding: rest, as: UTF8.self)
            guard let address = try? SilentPaymentAddress(parsing: text) else { return }
            let again = try? SilentPaymentAddress(parsing: address.description)
            holds(again == address, "an address does not read back as itself")
            return
        }
        // Inputs: [spent script length, script, scriptSig length, scriptSig, witness items…].
        var inputs: [SilentPaymentInput] = []
        var r = rest[...]
        func take(_ n: Int) -> [UInt8]? {
            guard r.count >= n else { return nil }
            defer { r = r.dropFirst(n) }
            return Array(r.prefix(n))
        }
        while inputs.count < 8, let lengths = take(3) {
            guard let script = take(Int(lengths[0]) % 40), let scriptSig = take(Int(lengths[1])) else { break }
            var witness: [[UInt8]] = []
            for _ in 0..<Int(lengths[2] % 4) { if let n = take(1), let item = take(Int(n[0]) % 80) { witness.append(item) } }
            inputs.append(
                SilentPaymentInput(
                    outpoint: Bitcoin.outpoint(Hash.sha256(script), UInt32(inputs.count)), scriptSig: scriptSig, witness: witness,
                    spentScript: script))
        }
        guard let tweak = SilentPaymentTweak(inputs: inputs) else { return }
        holds(tweak.point.compressed.count == 33, "tweak data that is not a point")
        holds(
            Secp256k1.PublicKey.sum(inputs.compactMap(\.publicKey)) == tweak.inputKeySum, "the key sum is not the sum of the counted keys")
    }

    /// Two readers of one format agree: what both read has one txid and the same outputs, and
    /// the PSBT code's transaction writes back as the very bytes read.
    static func transaction(_ bytes: [UInt8]) {
        let (selector, rest) = split(bytes)
        let dialect: BitcoinDialect = selector & 1 == 0 ? .bitcoin : .litecoin
        let scanned = try? Bitcoin.parseTransaction(rest, what: "fuzz", dialect: dialect)
        guard dialect == .bitcoin, let tx = try? BitcoinTx(parsing: rest) else { return }
        holds(tx.serialized(witness: tx.hasWitness) == rest, "a transaction did not write back as the bytes read")
        guard let scanned else { return }
        holds(scanned.id == tx.txid, "the two readers give different txids")
        holds(
            Array(scanned.outputs.map { BitcoinTx.Output(value: $0.value, script: $0.script) }) == tx.outputs,
            "the two readers read different outputs")
    }

    /// The merkle root is rewritten from the transactions one by one, so mutations get past it;
    /// the block's batched txids (SHA-NI, AVX-512 lanes) must then be the one-by-one txids.
    static func block(_ bytes: [UInt8]) {
        let (selector, rest) = split(bytes)
        let dialect: BitcoinDialect = selector & 1 == 0 ? .bitcoin : .litecoin
        var block = rest
        guard let ranges = try? Bitcoin.transactionRanges(block, dialect: dialect) else {
            _ = try? Bitcoin.parseBlock(block, what: "fuzz", dialect: dialect)
            return
        }
        // A Litecoin HogEx is a block's alone (its MWEB flag without an MWEB part): nil here.
        let ids = ranges.map { try? Bitcoin.parseTransaction(Array(block[$0]), what: "fuzz", dialect: dialect).id }
        if !ids.isEmpty, !ids.contains(where: { $0 == nil }) {
            block.replaceSubrange(36..<68, with: Bitcoin.merkleRoot(ids.map { $0! }).root)
        }
        guard let parsed = try? Bitcoin.parseBlock(block, what: "fuzz", dialect: dialect, verifyWitness: selector & 2 == 0) else { return }
        holds(
            parsed.transactions.count == ranges.count, "the block has \(parsed.transactions.count) transactions, its ranges \(ranges.count)"
        )
        for (tx, id) in zip(parsed.transactions, ids) where id != nil { holds(tx.id == id, "a batched txid is not the one-by-one txid") }
        holds(parsed.id == Bitcoin.sha256d(Array(block.prefix(80))), "a block id is not its header's hash")
    }

    /// BIP174's example master key (Tests/Fixtures/psbt): the corpus's PSBTs name it, so the
    /// fuzzer reaches the signer's checks and signatures.
    nonisolated(unsafe) static let keyring: BIP32Keyring = {
        let root = try! ExtendedKey(
            parsing: "tprv8ZgxMBicQKsPd9TeAdPADNnSyH9SSUUbTVeFszDE23Ki6TBB5nCefAdHkK8Fm3qMQR6sHwA56zqRmKmxnHk37JkiFzvncDqoKmPWubu7hDF")
        return try! BIP32Keyring(root: root, nonces: .rfc6979)
    }()

    static func psbt(_ bytes: [UInt8]) {
        guard let read = try? PSBT(parsing: bytes) else {
            holds((try? PSBT(base64: Base64.encode(bytes))) == nil, "the base64 reader took what the binary one refused")
            return
        }
        let written = read.serialized()
        guard let again = try? PSBT(parsing: written) else { holds(false, "a PSBT we wrote does not read"); return }
        holds(again == read && again.serialized() == written, "a PSBT changed on a write and read")
        holds((try? PSBT(base64: read.base64)) == read, "the base64 form reads as another PSBT")
        var signer = PSBTSigner(allowOtherSighash: true)
        signer.coinType = nil
        guard let (signed, report) = try? signer.sign(read, keys: keyring, confirm: { _ in }) else { return }
        holds(report.inputs.count == read.inputs.count && report.outputs.count == read.outputs.count, "the summary lost inputs or outputs")
        holds((try? PSBT(parsing: signed.serialized())) == signed, "a signed PSBT does not read back")
        // What the signer adds to a silent payment PSBT passes BIP375's checks, and nothing is
        // signed while an output lacks its script.
        holds((try? SilentPaymentPSBT.validate(signed)) != nil, "a signed silent payment PSBT fails BIP375's checks")
        holds(
            !report.silentPaymentsPending || report.inputs.allSatisfy { $0.signed == 0 }, "signed while a silent payment script is pending")
        guard report.complete, let final = try? PSBTFinalizer.finalized(signed), let tx = try? PSBTFinalizer.extract(final) else { return }
        holds((try? BitcoinTx(parsing: tx.serialized())) == tx, "an extracted transaction does not read back")
    }
}
