import XCTest
@testable import Monero
@testable import MoneroScan

/// The 16-byte-an-entry subaddress table against a Dictionary of full keys (the table it
/// replaced), on random keys, keys sharing an 8-byte prefix, and strangers' keys.
final class SubaddressTableTests: XCTestCase {
    private var generator = SystemRandomNumberGenerator()

    private func randomKey() -> [UInt8] { (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) } }

    func testAgainstADictionaryOfFullKeys() {
        var oracle = [[UInt8]: (UInt32, UInt32)]()
        var byIndex = [UInt64: [UInt8]]()
        var entries = [(key: [UInt8], major: UInt32, minor: UInt32)]()
        for major in UInt32(0)..<20 {
            for minor in UInt32(0)..<100 {
                var key = randomKey()
                // Every 50th key shares its first 8 bytes with the one before it.
                if minor % 50 == 1, let previous = entries.last?.key { key.replaceSubrange(0..<8, with: previous[0..<8]) }
                entries.append((key, major, minor))
                oracle[key] = (major, minor)
                byIndex[SubaddressTable.pack(major, minor)] = key
            }
        }
        var table = SubaddressTable()
        // In two parts, as a table grows; the second part repeats some of the first.
        table.insert(Array(entries[0..<1200]))
        table.insert(Array(entries[1000...]))
        XCTAssertEqual(table.count, 2000)
        XCTAssertEqual(table.allIndexes, Set(byIndex.keys))
        var derivations = 0
        let derive = { (major: UInt32, minor: UInt32) -> [UInt8]? in
            derivations += 1
            return byIndex[SubaddressTable.pack(major, minor)]
        }
        for entry in entries.shuffled() {
            let found = table.owner(of: entry.key, derive: derive)
            XCTAssertEqual(found?.major, oracle[entry.key]?.0)
            XCTAssertEqual(found?.minor, oracle[entry.key]?.1)
        }
        // A stranger's key, and one that shares a wallet key's prefix only.
        derivations = 0
        for _ in 0..<2000 { XCTAssertNil(table.owner(of: randomKey(), derive: derive)) }
        XCTAssertEqual(derivations, 0, "no derivation without a prefix match")
        var lookalike = entries[7].key
        lookalike[31] ^= 1
        XCTAssertNil(table.owner(of: lookalike, derive: derive))
        XCTAssertEqual(derivations, 1)
        XCTAssertNil(table.owner(of: [1, 2, 3], derive: derive))
    }
}
