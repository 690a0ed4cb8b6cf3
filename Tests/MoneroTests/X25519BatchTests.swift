import CSodium
import WalletCore
import XCTest
import WalletCrypto

/// The batched X25519 ladder (issue 23) on every path this CPU runs, against libsodium's
/// crypto_scalarmult_curve25519 byte for byte, and against RFC 7748's vectors.
final class X25519BatchTests: XCTestCase {
    private let paths = CurveBatchPath.allCases.filter(\.isSupported)

    private func oracle(_ k: [UInt8], _ u: [UInt8]) -> [UInt8]? {
        var q = [UInt8](repeating: 0, count: 32)
        return crypto_scalarmult_curve25519(&q, k, u) == 0 ? q : nil
    }

    private func multiply(_ k: [UInt8], _ points: [[UInt8]], _ path: CurveBatchPath) -> [[UInt8]?] {
        k.withUnsafeBytes { X25519Batch.multiply(scalar: $0, points: points, path: path) }
    }

    private func random(_ count: Int = 32) -> [UInt8] {
        var b = [UInt8](repeating: 0, count: count)
        randombytes_buf(&b, count)
        return b
    }

    /// Points of order 1, 2, 4 and 8 on the curve and its twist (libsodium's blocklist), the
    /// same with the top bit set, and non-canonical encodings of ordinary points (u ≥ p).
    private static let special: [[UInt8]] = {
        let hex = [
            "0000000000000000000000000000000000000000000000000000000000000000",
            "0100000000000000000000000000000000000000000000000000000000000000",
            "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
            "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
            "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // p − 1
            "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // p ≡ 0
            "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // p + 1 ≡ 1
            "f6ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // p + 9 ≡ 9
            "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // 2^255 − 1 ≡ 18
            "0900000000000000000000000000000000000000000000000000000000000000",
        ]
        let points = hex.map { try! Hex.decode($0) }
        return points
            + points.map {
                var top = $0; top[31] |= 0x80; return top
            }
    }()

    /// ≥ 10^5 random scalars and points per path, in batches of 1, 7, 8, 9, 63, 64, 65 and 200
    /// (partial last vectors), one scalar per batch, with the special points mixed in.
    func testEveryPathAgreesWithLibsodium() {
        XCTAssertTrue(paths.contains(.portable))
        XCTAssertFalse(X25519Batch.hasOwnLadder(.portable), "libsodium is the portable path")
        // The vector ladders themselves are under test, not a fallback to libsodium.
        XCTAssertEqual(X25519Batch.hasOwnLadder(.ifma), CurveBatchPath.ifma.isSupported)
        XCTAssertEqual(X25519Batch.hasOwnLadder(.avx2), CurveBatchPath.avx2.isSupported)
        let sizes = [1, 7, 8, 9, 63, 64, 65, 200]
        var total = 0, round = 0
        while total < 100_000 {
            let n = sizes[round % sizes.count]
            let k = random()
            var points = (0..<n).map { _ in random() }
            if round % 3 == 0 {
                for s in Self.special.shuffled().prefix(max(1, n / 4)) { points[Int.random(in: 0..<n)] = s }
            }
            let expected = points.map { oracle(k, $0) }
            for path in paths {
                let got = multiply(k, points, path)
                guard got == expected else {
                    let i = got.indices.first { got[$0] != expected[$0] } ?? 0
                    XCTFail("\(path): batch \(round) (\(n) points) differs at \(i): u \(Hex.encode(points[i]))")
                    return
                }
            }
            total += n
            round += 1
        }
        XCTAssertGreaterThanOrEqual(total, 100_000)
    }

    /// Every special point alone and together, on every path: small order gives nil.
    func testSmallOrderAndNonCanonicalPoints() {
        let k = random()
        let expected = Self.special.map { oracle(k, $0) }
        XCTAssertEqual(expected.filter { $0 == nil }.count, 14, "7 small-order points, twice")
        for path in paths {
            XCTAssertEqual(multiply(k, Self.special, path), expected, "\(path)")
            for (point, want) in zip(Self.special, expected) { XCTAssertEqual(multiply(k, [point], path), [want], "\(path)") }
        }
        XCTAssertEqual(multiply(k, [], .ifma), [])
    }

    /// RFC 7748 section 5.2: the two vectors and the iterated one (1 and 1,000 rounds).
    func testRFC7748Vectors() throws {
        let vectors = [
            (
                "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
                "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
                "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"
            ),
            (
                "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
                "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
                "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"
            ),
        ]
        for path in paths {
            for (k, u, out) in vectors {
                XCTAssertEqual(
                    multiply(try Hex.decode(k), [try Hex.decode(u)], path).first??.map { Hex.encode([$0]) }.joined(), out, "\(path)")
            }
            var k = try Hex.decode("0900000000000000000000000000000000000000000000000000000000000000"), u = k
            for i in 1...1000 {
                let next = try XCTUnwrap(multiply(k, [u], path).first ?? nil)
                u = k
                k = next
                if i == 1 { XCTAssertEqual(Hex.encode(k), "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079", "\(path)") }
            }
            XCTAssertEqual(Hex.encode(k), "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51", "\(path)")
        }
    }
}
