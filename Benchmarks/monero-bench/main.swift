// monero-bench: what a scan of a chain must spend on curve arithmetic, the limit scan-blocks
// is compared with. It reads chain files (as scan-blocks does), collects every transaction key
// a view-key scan multiplies (the main one, and the per-output ones), and times those key
// derivations: with Satchel's multiplication on every core (as the scan runs them), and one
// core each for Satchel's and libsodium's (crypto_scalarmult_ed25519_noclamp, whose subgroup
// check Satchel's skips). One JSON line. bench/monero_bulk.py runs it; make check-long runs
// its --oracle.
import BenchSupport
import CSodium
import Dispatch
#if canImport(Glibc)
    import Glibc
#endif
import Monero
import WalletCore
import WalletScan
import MoneroScan
import WalletCrypto

Sodium.ensureInitialized()  // libsodium's fast X25519, the yardstick, only after sodium_init
let args = CommandLine.arguments

/// --relink N BLOCKS TXS OUT-BLOCKS OUT-TXS: the chain N times over as one chain, for the
/// reader's memory at N× the data: heights renumbered, each block's previous id set to the
/// block written before it and its hash recomputed; the transaction records repeated N times.
func relink(times: Int, blocks: String, txs: String, outBlocks: String, outTxs: String) throws {
    func lines(_ path: String) throws -> [String] {
        let p = popen("zstd -dcf '\(path)'", "r")!
        defer { pclose(p) }
        var out = [String]()
        while let line = readLine(from: p) { out.append(line) }
        return out
    }
    func readLine(from file: UnsafeMutablePointer<FILE>) -> String? {
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        defer { free(buffer) }
        let n = getline(&buffer, &size, file)
        guard n > 0, let buffer else { return nil }
        return String(cString: buffer).trimmingSuffix()
    }
    let blockLines = try lines(blocks), txLines = try lines(txs)
    guard let bo = fopen(outBlocks, "w"), let to = fopen(outTxs, "w") else { throw ScanError.unreadable(outBlocks, "cannot write") }
    defer { fclose(bo); fclose(to) }
    var previous = [UInt8](repeating: 0, count: 32)
    var height = 0
    for _ in 0..<times {
        for line in txLines { fputs(line + "\n", to) }
        for line in blockLines {
            var record = try JSONParser.parseObject(Array(line.utf8))
            guard case .string(let hex)? = record["blob"] else { continue }
            var blob = try Hex.decode(hex)
            var offset = 0
            for _ in 0..<3 { while blob[offset] & 0x80 != 0 { offset += 1 }; offset += 1 }
            if height > 0 { blob.replaceSubrange(offset..<offset + 32, with: previous) }
            let id = try MoneroBlock(blob: blob).id
            record["height"] = .number(String(height))
            record["blob"] = .string(Hex.encode(blob))
            record["hash"] = .string(Hex.encode(id))
            record["prev_hash"] = .string(Hex.encode(previous))
            fputs(String(decoding: JSONWriter.line(record), as: UTF8.self), bo)
            previous = id
            height += 1
        }
    }
}

extension String {
    func trimmingSuffix() -> String {
        var s = self
        while s.last == "\n" || s.last == "\r" { s.removeLast() }
        return s
    }
}

/// --oracle N: the long oracle run (make check-long): N random scalars and points through every
/// batched X25519 path this CPU runs, against libsodium's crypto_scalarmult_curve25519, in
/// batches of 1 to 300 on every core, and the batched Keccak against the one-at-a-time one on
/// N / 100 random messages. Exit 1 at the first difference, with its inputs.
func oracle(_ count: Int) -> Bool {
    let paths = CurveBatchPath.allCases.filter(\.isSupported)
    let batches = Array(stride(from: 0, to: count, by: 4_096))
    let failures = ParallelMap.map(batches) { start -> String? in
        var done = start
        let end = min(start + 4_096, count)
        while done < end {
            let n = min(Int.random(in: 1...300), end - done)
            var k = [UInt8](repeating: 0, count: 32)
            randombytes_buf(&k, 32)
            let points = (0..<n).map { _ in
                var u = [UInt8](repeating: 0, count: 32); randombytes_buf(&u, 32); return u
            }
            let expected = points.map { u -> [UInt8]? in
                var q = [UInt8](repeating: 0, count: 32)
                return crypto_scalarmult_curve25519(&q, k, u) == 0 ? q : nil
            }
            // The portable path is libsodium's ladder itself: only the other paths are compared.
            for path in paths where X25519Batch.hasOwnLadder(path) {
                let got = k.withUnsafeBytes { X25519Batch.multiply(scalar: $0, points: points, path: path) }
                if let i = got.indices.first(where: { got[$0] != expected[$0] }) {
                    return "x25519 \(path.rawValue): k \(Hex.encode(k)) u \(Hex.encode(points[i]))"
                }
            }
            done += n
        }
        let messages = (0..<max(1, (end - start) / 100)).map { _ in (0..<Int.random(in: 0...700)).map { _ in UInt8.random(in: 0...255) } }
        let hashes = messages.map(Keccak256.hash)
        for path in paths where Keccak256.hashAll(messages, path: path) != hashes { return "keccak \(path.rawValue) differs" }
        return nil
    }.compactMap { $0 }
    let names = paths.map(\.rawValue).joined(separator: ", ")
    print(
        failures.first.map { "oracle: \($0)" }
            ?? "oracle: \(count) X25519 inputs and \(max(1, count / 100)) Keccak messages, paths \(names): all equal to the references")
    return failures.isEmpty
}

if args.count == 7, args[1] == "--relink", let times = Int(args[2]) {
    try relink(times: times, blocks: args[3], txs: args[4], outBlocks: args[5], outTxs: args[6])
    exit(0)
}
if args.count == 3, args[1] == "--oracle", let count = Int(args[2]) {
    exit(oracle(count) ? 0 : 1)
}
guard args.count == 3 else {
    let usage = "usage: monero-bench BLOCKS TXS | monero-bench --relink N BLOCKS TXS OUT-BLOCKS OUT-TXS | monero-bench --oracle N\n"
    _ = usage.withCString { write(2, $0, strlen($0)) }
    exit(64)
}
func measure(blocksPath: String, txsPath: String) throws {
    let source = try MoneroFileBlockSource(blocksPath: blocksPath, transactionsPath: txsPath)
    var keys = [[UInt8]]()
    var transactions = 0
    var height = 0
    while true {
        let blocks = try source.blocks(from: height, count: 200)
        guard let last = blocks.last else { break }
        for data in blocks {
            let block = try MoneroScanner.parse(data).get()
            for tx in block.transactions {
                transactions += 1
                let extra = tx.extraFields
                if let main = extra.main { keys.append(main) }
                keys += extra.additional.prefix(tx.outputs.count)
            }
        }
        height = last.height + 1
    }
    var secret = [UInt8](repeating: 0, count: 32)
    crypto_core_ed25519_scalar_random(&secret)
    let viewKey = SecureBytes(secret)

    func best(_ rounds: Int, _ body: () -> Void) -> Double {
        (0..<rounds).map { _ in
            let t = now(); body(); return now() - t
        }.min()!
    }

    let all = keys
    let parallel = best(3) {
        _ = ParallelMap.map(Array(stride(from: 0, to: keys.count, by: 64))) { start in
            all[start..<min(start + 64, all.count)].map { Ed25519.moneroDerivation(secret: viewKey, publicKey: $0) }
        }
    }
    // What the scan runs: the X25519 view-tag filter, runs of keys from several blocks, on every core.
    let filter = ViewTagFilter(viewSecret: viewKey)
    let filtered = best(3) {
        _ = ParallelMap.map(Array(stride(from: 0, to: all.count, by: 128))) { start in
            filter.candidates(Array(all[start..<min(start + 128, all.count)]))
        }
    }
    let oneCore = best(2) { for k in keys { _ = Ed25519.moneroDerivation(secret: viewKey, publicKey: k) } }
    var eightA = [UInt8](repeating: 0, count: 32)
    crypto_core_ed25519_scalar_mul(&eightA, secret, [8] + [UInt8](repeating: 0, count: 31))
    let sodium = best(2) {
        var out = [UInt8](repeating: 0, count: 32)
        for k in keys { _ = crypto_scalarmult_ed25519_noclamp(&out, eightA, k) }
    }
    // X25519 on one core, µs a point: libsodium's ladder, and the batched one on each path this
    // CPU runs (runs of 256 points, as a busy block gives), on the chain's keys as u-coordinates.
    let points = Array(keys.prefix(8_192)).map { key -> [UInt8] in
        var u = key; u[31] &= 0x7F; return u
    }
    var clamped = eightA
    clamped[0] &= 248
    clamped[31] = (clamped[31] & 127) | 64
    let x25519Sodium =
        best(3) {
            var out = [UInt8](repeating: 0, count: 32)
            for u in points { _ = crypto_scalarmult_curve25519(&out, clamped, u) }
        } / Double(points.count) * 1e6
    var perPath = [String]()
    for path in CurveBatchPath.allCases where path.isSupported {
        let seconds = best(3) {
            clamped.withUnsafeBytes { k in
                for start in stride(from: 0, to: points.count, by: 256) {
                    _ = X25519Batch.multiply(scalar: k, points: Array(points[start..<min(start + 256, points.count)]), path: path)
                }
            }
        }
        perPath.append(#""\#(path.rawValue)":\#(seconds / Double(points.count) * 1e6)"#)
    }
    print(
        #"{"blocks":\#(height),"transactions":\#(transactions),"derivations":\#(keys.count),"#
            + #""filter_all_cores_seconds":\#(filtered),"exact_all_cores_seconds":\#(parallel),"exact_one_core_seconds":\#(oneCore),"#
            + #""libsodium_one_core_seconds":\#(sodium),"x25519_us":{"libsodium":\#(x25519Sodium),\#(perPath.joined(separator: ","))},"#
            + #""own_ladder":[\#(CurveBatchPath.allCases.filter { X25519Batch.hasOwnLadder($0) }.map { "\"\($0.rawValue)\"" }.joined(separator: ","))]}"#
    )
}

try measure(blocksPath: args[1], txsPath: args[2])
