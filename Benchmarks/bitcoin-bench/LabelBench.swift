import Bitcoin
import BenchSupport
import WalletCore
import WalletCrypto

/// What a silent payment label costs the receiver (issue 56 point 5, the one limit of derive
/// --label and scan-blocks --sp-labels, 99,999): the table made once per run (label·G for each
/// label), and the scan of a transaction with two outputs that pay nobody, beside the scan with
/// change alone, at 1, 1,000, 10,000 and 99,999 labels.
func labelBench() throws {
    let secret = randomSecret
    let keys = try SilentPaymentKeys(scanPrivateKey: secret(), spendPublicKey: Secp256k1.publicKey(of: secret()))
    let transactions = 2_000
    let tweaks = try (0..<transactions).map { t -> SilentPaymentTweak in
        let key = try Secp256k1.publicKey(of: secret())
        let input = SilentPaymentInput(
            outpoint: Bitcoin.outpoint(Hash.sha256(Array("label tx \(t)".utf8)), 0), scriptSig: [],
            witness: [[UInt8](repeating: 0x30, count: 71), key.compressed], spentScript: ScriptTemplate.p2wpkh(key.compressed))
        return SilentPaymentTweak(inputs: [input])!
    }
    let outputs = try (0..<transactions).map { _ in
        [try Secp256k1.publicKey(of: secret()).xOnly, try Secp256k1.publicKey(of: secret()).xOnly]
    }
    let change = try SilentPaymentReceiver(keys: keys, labels: [0])
    let plain = measure(repeats: 3, count: transactions) { t in _ = try? change.scan(tweaks[t], outputs: outputs[t]) }
    print("silent payment labels: the receiver's table and its scan of a 2-output transaction that pays nobody")
    print("labels  table (s)  per label (µs)  scan per tx (µs)  / change alone")
    for n in [1, 1_000, 10_000, 99_999] {
        let start = now()
        let receiver = try SilentPaymentReceiver(keys: keys, labels: Array(0...UInt32(n)))
        let table = now() - start
        let scan = measure(repeats: 3, count: transactions) { t in _ = try? receiver.scan(tweaks[t], outputs: outputs[t]) }
        print(
            String(n).padding(toLength: 8, withPad: " ", startingAt: 0)
                + String(format: "%9.3f  %14.1f  %16.1f  %14.2f", table, table / Double(n + 1) * 1e6, scan * 1e6, scan / plain))
    }
}
