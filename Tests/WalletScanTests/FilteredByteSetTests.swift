import WalletScan
import XCTest

/// The filtered set against Swift's Set as the oracle, on random keys of the lengths scan keys
/// have (scripts, outpoints, key images) and of odd ones (empty, one byte).
final class FilteredByteSetTests: XCTestCase {
    func testAgreesWithSet() {
        var generator = SystemRandomNumberGenerator()
        var filtered = FilteredByteSet(), oracle = Set<[UInt8]>()
        let lengths = [0, 1, 2, 22, 23, 25, 32, 34, 36]
        func key() -> [UInt8] {
            let n = lengths.randomElement(using: &generator)!
            // Short keys from a small alphabet, so that inserts, repeats and removals meet.
            return (0..<n).map { _ in UInt8.random(in: 0...3, using: &generator) }
        }
        for round in 0..<20_000 {
            let k = key()
            switch round % 3 {
            case 0:
                filtered.insert(k)
                oracle.insert(k)
            case 1:
                XCTAssertEqual(filtered.remove(k), oracle.remove(k) != nil, "\(k)")
            default:
                XCTAssertEqual(filtered.contains(k), oracle.contains(k), "\(k)")
                // A slice of a larger buffer is the same key as the array.
                let padded = [0xFF] + k + [0xEE]
                XCTAssertEqual(filtered.contains(padded[1..<padded.count - 1]), oracle.contains(k))
            }
            XCTAssertEqual(filtered.count, oracle.count)
        }
        for k in oracle { XCTAssertTrue(filtered.mayContain(k[...])) }
        XCTAssertEqual(filtered.isEmpty, oracle.isEmpty)
    }

    func testByteKeyEquality() {
        let a: [UInt8] = [1, 2, 3, 4], b: [UInt8] = [9, 1, 2, 3, 4]
        XCTAssertEqual(ByteKey(a), ByteKey(b[1...]))
        XCTAssertEqual(ByteKey(a).hashValue, ByteKey(b[1...]).hashValue)
        XCTAssertNotEqual(ByteKey(a), ByteKey(b))
        XCTAssertNotEqual(ByteKey(a), ByteKey(b[1..<4]))
    }
}
