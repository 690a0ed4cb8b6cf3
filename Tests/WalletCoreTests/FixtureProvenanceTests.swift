import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
import WalletCrypto

/// Every data file in Tests/Fixtures/vectors and Tests/Fixtures/fixtures is the one its README
/// pins by SHA-256 (copied from the shared folder, which is no git repository), and every file
/// there is listed: nothing drifts in unrecorded.
final class FixtureProvenanceTests: XCTestCase {
    func testEveryFixtureMatchesItsRecordedHash() throws {
        let readme = try String(contentsOf: TestPaths.fixtures.appendingPathComponent("README.md"), encoding: .utf8)
        var pinned = [String: String]()
        for line in readme.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].count == 64, parts[0].allSatisfy(\.isHexDigit) { pinned[String(parts[1])] = String(parts[0]) }
        }
        XCTAssertEqual(pinned.count, 112)
        var found = Set<String>()
        for top in ["vectors", "fixtures"] {
            let base = TestPaths.fixtures.appendingPathComponent(top)
            let files = FileManager.default.enumerator(atPath: base.path)!.compactMap { $0 as? String }
            for relative in files where !relative.hasSuffix(".md") {
                var isDir: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: base.appendingPathComponent(relative).path, isDirectory: &isDir)
                if !isDir.boolValue { found.insert(top + "/" + relative) }
            }
        }
        XCTAssertEqual(found, Set(pinned.keys))
        for (path, hash) in pinned {
            let data = try Data(contentsOf: TestPaths.fixtures.appendingPathComponent(path))
            XCTAssertEqual(Hex.encode(Hash.sha256(Array(data))), hash, path)
        }
    }

    /// Folders made or copied by hand in this project pin their files in their own README.
    func testHandMadeFoldersMatchTheirReadme() throws {
        for folder in ["ethereum", "psbt", "bitcoin-sighash", "state-pre-ironwood"] {
            let base = TestPaths.fixtures.appendingPathComponent(folder)
            let readme = try String(contentsOf: base.appendingPathComponent("README.md"), encoding: .utf8)
            var pinned = [String: String]()
            for line in readme.split(separator: "\n") {
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                if parts.count == 2, parts[0].count == 64, parts[0].allSatisfy(\.isHexDigit) { pinned[String(parts[1])] = String(parts[0]) }
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: base.path).filter { !$0.hasSuffix(".md") }
            XCTAssertEqual(Set(files), Set(pinned.keys), folder)
            for (name, hash) in pinned {
                XCTAssertEqual(
                    Hex.encode(Hash.sha256(Array(try Data(contentsOf: base.appendingPathComponent(name))))), hash, "\(folder)/\(name)")
            }
        }
    }
}
