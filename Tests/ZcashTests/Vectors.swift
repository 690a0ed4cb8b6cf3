import Foundation
import SatchelTestSupport
import WalletCore
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

    /// Exact integer fields (JSONSerialization turns integers over 2^63 into doubles): each row's
    /// value of `field` as text, by WalletCore's parser, which keeps numbers as written.
    static func exactIntegers(_ file: String, field: String) throws -> [UInt64] {
        let data = try Data(contentsOf: TestPaths.vector("zcash/" + file))
        guard case .array(let all) = try JSONParser.parse(Array(data)), case .array(let header) = all[1],
            case .string(let names) = header[0], let column = names.components(separatedBy: ", ").firstIndex(of: field)
        else {
            throw VectorError("no \(field) in \(file)")
        }
        return try all.dropFirst(2).map { row in
            guard case .array(let values) = row, case .number(let text) = values[column], let n = UInt64(text) else {
                throw VectorError("\(field) is not an integer")
            }
            return n
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

struct VectorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
