import Foundation
import SatchelTestSupport
import XCTest

/// zcash-test-vectors JSON: row 0 names the generator, row 1 the fields, each later row a vector
/// (bytes as lowercase hex in protocol order, null for an absent value).
enum ZcashVectors {
    static func rows(_ file: String) throws -> [[String: Any]] {
        let all = try XCTUnwrap(TestPaths.json(TestPaths.vector("zcash/" + file)) as? [[Any]])
        let fields = try XCTUnwrap(all[1].first as? String).components(separatedBy: ", ")
        return all.dropFirst(2).map { row in
            var record = [String: Any]()
            for (name, value) in zip(fields, row) where !(value is NSNull) { record[name] = value }
            return record
        }
    }

    static func abandonArt() throws -> [String: Any] {
        try XCTUnwrap(TestPaths.json(TestPaths.vector("zcash/generated/wallet_abandon_art_account0.json")) as? [String: Any])
    }
}

extension Dictionary where Key == String, Value == Any {
    func hex(_ key: String) -> String? { self[key] as? String }
    func bytes(_ key: String) -> [UInt8]? { (self[key] as? String).map(HexString.bytes) }
}
