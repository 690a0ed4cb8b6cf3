import Foundation
import SatchelTestSupport
import XCTest

/// make install into a temporary prefix (from the tools this test run built, so no second
/// build runs beside swift test): binaries, man pages, completions; make uninstall removes them.
final class InstallTests: XCTestCase {
    let tools = ["mnemonic", "derive", "sign-hash", "keystore", "scan-blocks", "card-info"]

    func testInstallAndUninstall() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-prefix-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: prefix) }
        let install = try Shell.run("make install PREFIX=\(prefix) INSTALL_FROM=\(TestPaths.binDir.path)")
        XCTAssertEqual(install.status, 0, install.stderr)
        for tool in tools {
            for path in ["bin/\(tool)", "share/man/man1/\(tool).1", "share/bash-completion/completions/\(tool)",
                         "share/zsh/site-functions/_\(tool)", "share/fish/vendor_completions.d/\(tool).fish"] {
                XCTAssertTrue(FileManager.default.fileExists(atPath: "\(prefix)/\(path)"), path)
            }
            // The installed tool, run by its installed path (not the build's PATH).
            let version = try Shell.run("env PATH=/usr/bin:/bin \(prefix)/bin/\(tool) --version")
            XCTAssertEqual(version.status, 0, tool)
            XCTAssertEqual(version.out, "0.5.0\n", tool)
            // The completion script loads in bash and registers the tool.
            let bash = try Shell.run("bash -c 'source \(prefix)/share/bash-completion/completions/\(tool) && complete -p \(tool)'")
            XCTAssertEqual(bash.status, 0, tool + bash.stderr)
            XCTAssertTrue(bash.out.hasSuffix(" \(tool)\n"), bash.out)
            XCTAssertEqual(try String(contentsOfFile: "\(prefix)/share/zsh/site-functions/_\(tool)", encoding: .utf8).prefix(9), "#compdef ")
        }
        let man = try Shell.run("man -M \(prefix)/share/man -w derive")
        XCTAssertEqual(man.status, 0, man.stderr)
        XCTAssertEqual(man.out, "\(prefix)/share/man/man1/derive.1\n")

        let uninstall = try Shell.run("make uninstall PREFIX=\(prefix)")
        XCTAssertEqual(uninstall.status, 0, uninstall.stderr)
        let left = FileManager.default.enumerator(atPath: prefix)!.compactMap { $0 as? String }.filter {
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: "\(prefix)/\($0)", isDirectory: &isDir)
            return !isDir.boolValue
        }
        XCTAssertEqual(left, [])
    }
}
