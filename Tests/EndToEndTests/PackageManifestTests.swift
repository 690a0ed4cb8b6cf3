import Foundation
import SatchelTestSupport
import XCTest

/// scripts/check-imports.py, which `make lint` runs: it agrees with today's Package.swift, and
/// it fails both ways on a manifest that lies — a dependency dropped that a file imports, and
/// one added that no file imports.
final class PackageManifestTests: XCTestCase {
    func testTheImportCheckCatchesAManifestThatLies() throws {
        let dump = try Shell.run("swift package dump-package")
        XCTAssertEqual(dump.status, 0, dump.stderr)
        var package = try XCTUnwrap(try JSONSerialization.jsonObject(with: dump.stdout) as? [String: Any])
        let dir = URL(fileURLWithPath: try temporaryDirectory("manifest"))
        defer { try? FileManager.default.removeItem(at: dir) }

        func check(_ package: [String: Any], _ name: String) throws -> Shell.Result {
            let path = dir.appendingPathComponent(name).path
            try JSONSerialization.data(withJSONObject: package).write(to: URL(fileURLWithPath: path))
            return try Shell.run("python3 scripts/check-imports.py \(path)")
        }
        let truth = try check(package, "truth.json")
        XCTAssertEqual(truth.status, 0, truth.out)
        XCTAssertEqual(
            truth.lines.last,
            "check-imports: every target's imports and declared dependencies agree (\((package["targets"] as? [Any])?.count ?? 0) targets)")

        // ZcashScan imports WalletScan: drop it; and give Ethereum a dependency it never imports.
        var targets = try XCTUnwrap(package["targets"] as? [[String: Any]])
        let zcash = try XCTUnwrap(targets.firstIndex { $0["name"] as? String == "ZcashScan" })
        let ethereum = try XCTUnwrap(targets.firstIndex { $0["name"] as? String == "Ethereum" })
        let zcashDeps = try XCTUnwrap(targets[zcash]["dependencies"] as? [[String: Any]])
        targets[zcash]["dependencies"] = zcashDeps.filter { ($0["byName"] as? [Any])?.first as? String != "WalletScan" }
        XCTAssertEqual((targets[zcash]["dependencies"] as? [Any])?.count, zcashDeps.count - 1)
        targets[ethereum]["dependencies"] =
            (targets[ethereum]["dependencies"] as? [[String: Any]] ?? []) + [["byName": ["WalletQR", NSNull()]]]
        package["targets"] = targets
        let lie = try check(package, "lie.json")
        XCTAssertEqual(lie.status, 1, lie.out)
        XCTAssertEqual(
            lie.lines.filter { !$0.hasSuffix("each imported") },
            [
                "Ethereum: declared but not imported: WalletQR; imported but not declared: -",
                "ZcashScan: declared but not imported: -; imported but not declared: WalletScan",
            ])
        XCTAssertEqual(lie.stderr, "check-imports: 2 target(s) whose imports and Package.swift disagree\n")
    }

    /// scripts/check-docs.py: ARCHITECTURE.md as it is passes; a copy that names a file, a type
    /// and a module the code does not have, and no longer names WalletRecords, fails on each.
    func testTheDocsCheckCatchesWhatDoesNotExist() throws {
        let truth = try Shell.run("python3 scripts/check-docs.py")
        XCTAssertEqual(truth.status, 0, truth.out + truth.stderr)
        let doc = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-arch-\(UUID().uuidString).md")
        defer { try? FileManager.default.removeItem(at: copy) }
        let altered =
            doc.replacingOccurrences(of: "WalletRecords", with: "RecordKit")
            + "\nSee Sources/WalletScan/Vanished.swift and `GhostScanner.run`.\n"
        try altered.write(to: copy, atomically: true, encoding: .utf8)
        let lie = try Shell.run("python3 scripts/check-docs.py \(copy.path)")
        XCTAssertEqual(lie.status, 1)
        XCTAssertEqual(
            lie.lines,
            [
                "\(copy.path): no such file: Sources/WalletScan/Vanished.swift",
                "\(copy.path): module not named: WalletRecords",
                "\(copy.path): names what the code does not have: GhostScanner",
                "\(copy.path): names what the code does not have: RecordKit",
            ])
    }

    /// make lint's layout check (.swift-format) passes on the code and fails on a file laid out
    /// otherwise.
    func testTheFormatCheckCatchesALayout() throws {
        let code = try Shell.run("swift format lint --strict --configuration .swift-format -r Sources/WalletRecords")
        XCTAssertEqual(code.status, 0, code.stderr)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-layout-\(UUID().uuidString).swift")
        defer { try? FileManager.default.removeItem(at: file) }
        try "struct A {\n  var b = 1\n}\n".write(to: file, atomically: true, encoding: .utf8)
        let bad = try Shell.run("swift format lint --strict --configuration .swift-format \(file.path)")
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertEqual(bad.stderr, "\(file.path):2:1: error: [Indentation] indent by 2 spaces\n")
    }

    /// scripts/check-pins.py: today's resolved graph is Dependencies.pinned; a graph where one
    /// package resolved to another version fails, naming both lines.
    func testThePinCheckCatchesAnotherVersion() throws {
        let shown = try Shell.run("swift package show-dependencies --format json")
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let same = try Shell.run("python3 scripts/check-pins.py /dev/stdin", stdin: shown.stdout)
        XCTAssertEqual(same.status, 0, same.out + same.stderr)
        let pinned = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("Dependencies.pinned"), encoding: .utf8)
        let line = try XCTUnwrap(pinned.split(separator: "\n").first { $0.hasPrefix("swift-nio-http2 ") })
        XCTAssertEqual(line, "swift-nio-http2 1.46.0 https://github.com/apple/swift-nio-http2.git")
        let moved = shown.out.replacingOccurrences(of: "\"version\": \"1.46.0\"", with: "\"version\": \"1.47.0\"")
        XCTAssertNotEqual(moved, shown.out)
        let other = try Shell.run("python3 scripts/check-pins.py /dev/stdin", stdin: Data(moved.utf8))
        XCTAssertEqual(other.status, 1)
        XCTAssertEqual(
            other.lines,
            [
                "check-pins: pinned but not resolved: swift-nio-http2 1.46.0 https://github.com/apple/swift-nio-http2.git",
                "check-pins: resolved but not pinned: swift-nio-http2 1.47.0 https://github.com/apple/swift-nio-http2.git",
            ])
    }
}

/// Every tool's and subcommand's --help reads on an 80-column terminal: prose paragraphs are
/// one logical line each (ArgumentParser wraps them to the terminal), and every line laid out
/// by hand — examples, record shapes — fits in 80 columns, so none is broken mid-word.
final class HelpLayoutTests: XCTestCase {
    func testHelpFitsAnEightyColumnTerminal() throws {
        let tools = ["mnemonic", "derive", "sign-hash", "sign-tx", "keystore", "scan-blocks", "card-info"]
        var pages = 0
        for tool in tools {
            let top = try Shell.run("COLUMNS=2000 \(tool) --help")
            XCTAssertEqual(top.status, 0, tool)
            var subcommands = [""]
            var inList = false
            for line in top.lines {
                if line == "SUBCOMMANDS:" { inList = true; continue }
                if inList, line.hasPrefix("  "), let name = line.split(separator: " ").first, !line.hasPrefix("   ") {
                    subcommands.append(String(name))
                }
                if inList, line.isEmpty { inList = false }
            }
            for sub in subcommands {
                let wide = try Shell.run("COLUMNS=2000 \(tool) \(sub) --help")
                XCTAssertEqual(wide.status, 0, "\(tool) \(sub)")
                pages += 1
                let discussion = wide.lines.prefix { !$0.hasPrefix("USAGE:") }
                for line in discussion where line.hasPrefix("  ") {
                    XCTAssertLessThanOrEqual(line.count, 80, "\(tool) \(sub): \(line)")
                }
                let narrow = try Shell.run("COLUMNS=80 \(tool) \(sub) --help")
                // ArgumentParser writes the USAGE line whole, whatever the width: not ours to wrap.
                for line in narrow.lines where !line.hasPrefix("USAGE:") {
                    XCTAssertLessThanOrEqual(line.count, 80, "\(tool) \(sub): \(line)")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(pages, 30)
    }
}
