import Foundation
import XCTest

extension XCTestCase {
    /// A directory of this test's own, "satchel-LABEL-…" under the system's temporary
    /// directory, removed when the test ends.
    public func temporaryDirectory(_ label: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }
}

/// The tests' well-known phrases, named once.
public enum TestPhrase {
    /// BIP39's all-zero entropy phrase, the one every wallet's test vectors start from.
    public static let abandonAbout = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
    /// BIP39's 0x7f… entropy phrase.
    public static let legalWinner = "legal winner thank year wave sausage worth useful legal winner thank yellow"
}
