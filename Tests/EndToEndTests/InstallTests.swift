import Foundation
import SatchelTestSupport
import XCTest

/// make install into a temporary prefix, as a user runs it (the tools linked statically from the
/// build's objects: the debug build the tests run, here; release by default), then the
/// installed tools run with the Swift toolchain out of reach; make uninstall removes what
/// install made, and no directory it did not make.
final class InstallTests: XCTestCase {
    let tools = ["mnemonic", "derive", "sign-hash", "sign-tx", "keystore", "scan-blocks", "card-info"]

    func testInstallRunWithoutToolchainAndUninstall() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-prefix-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: prefix) }
        // A directory that was there before install: uninstall must leave it.
        try FileManager.default.createDirectory(atPath: "\(prefix)/share/man/man1", withIntermediateDirectories: true)
        let install = try Shell.run("make install CONFIG=debug PREFIX=\(prefix)")
        XCTAssertEqual(install.status, 0, install.stderr)
        for tool in tools {
            for path in [
                "bin/\(tool)", "share/man/man1/\(tool).1", "share/bash-completion/completions/\(tool)",
                "share/zsh/site-functions/_\(tool)", "share/fish/vendor_completions.d/\(tool).fish",
            ] {
                XCTAssertTrue(FileManager.default.fileExists(atPath: "\(prefix)/\(path)"), path)
            }
            // No Swift runtime, Foundation or libcurl is loaded from outside the binary, and no
            // RUNPATH points into the toolchain.
            let dynamic = try Shell.run("readelf -d \(prefix)/bin/\(tool)")
            XCTAssertEqual(dynamic.status, 0, dynamic.stderr)
            let needed = dynamic.lines.filter { $0.contains("(NEEDED)") }
            XCTAssertFalse(needed.isEmpty, tool)
            for line in needed {
                for runtime in ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime", "libcurl", "libXCTest"] {
                    XCTAssertFalse(line.contains(runtime), "\(tool) needs \(line)")
                }
            }
            for line in dynamic.lines where line.contains("(RUNPATH)") || line.contains("(RPATH)") {
                XCTAssertFalse(line.contains("/opt/") || line.contains("swift"), "\(tool): \(line)")
            }
            // The Debian packages of the libraries it needs are the README's for this tool.
            let sonames = needed.compactMap { line in line.split(separator: "[").last?.split(separator: "]").first.map(String.init) }
            XCTAssertEqual(try Set(sonames.map(Self.debianPackage)), try Self.readmePackages(tool), tool)
            // The completion script loads in bash and registers the tool.
            let bash = try Shell.run("bash -c 'source \(prefix)/share/bash-completion/completions/\(tool) && complete -p \(tool)'")
            XCTAssertEqual(bash.status, 0, tool + bash.stderr)
            XCTAssertTrue(bash.out.hasSuffix(" \(tool)\n"), bash.out)
            XCTAssertEqual(
                try String(contentsOfFile: "\(prefix)/share/zsh/site-functions/_\(tool)", encoding: .utf8).prefix(9), "#compdef ")
        }
        // Bash completes option values, and the default subcommand's options before any
        // subcommand is named (derive --co<TAB> is derive addresses --co<TAB>).
        let completions: [([String], [String])] = [
            (["derive", "--co"], ["--coin", "--coin-type", "--count"]),
            (["derive", "--coin", ""], ["btc", "ltc", "doge", "bch", "zec", "eth", "xmr"]),
            (["derive", "account", "--pool", ""], ["transparent", "sapling", "orchard"]),
            (["derive", ""], ["addresses", "account", "discover", "help"]),
            (["sign-hash", "--scheme", ""], ["ecdsa", "schnorr"]),
            (["sign-tx", "--coin", ""], ["btc", "ltc"]),
            (["sign-tx", "--network", ""], ["main", "test", "regtest", "signet"]),
            (["scan-blocks", "--chain", ""], ["monero", "zcash", "bitcoin", "litecoin"]),
            (["scan-blocks", "--progress", ""], ["auto", "jsonl", "none"]),
            (["mnemonic", "generate", "--words", ""], ["12", "15", "18", "21", "24", "25"]),
            (["keystore", "add", "x", "--kdf", ""], ["interactive", "moderate", "sensitive"]),
            (["card-info", "--rea"], ["--reader"]),
        ]
        for (words, expected) in completions {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let script = """
                source \(prefix)/share/bash-completion/completions/\(words[0])
                COMP_WORDS=(\(quoted)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
                fn=$(complete -p \(words[0]) | sed -E 's/.*-F ([^ ]+).*/\\1/')
                "$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[$COMP_CWORD]}" "${COMP_WORDS[$COMP_CWORD-1]}"
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let r = try Shell.run("PATH=\(prefix)/bin:$PATH bash", stdin: Data(script.utf8))
            XCTAssertEqual(r.status, 0, words.joined(separator: " ") + r.stderr)
            XCTAssertEqual(r.lines, expected, words.joined(separator: " "))
        }
        // The installed tools with the toolchain gone: its directory hidden under an empty
        // tmpfs in a private mount namespace, no LD_LIBRARY_PATH, no swift on PATH.
        let about = TestPhrase.abandonAbout
        let fixture = TestPaths.fixture("monero-regtest").path
        let script = """
            set -e
            toolchain=$(cd "$(dirname "$(readlink -f "$(command -v swift)")")/../.." && pwd)
            mount -t tmpfs tmpfs "$toolchain"
            export PATH=\(prefix)/bin:/usr/bin:/bin LD_LIBRARY_PATH=
            ! command -v swift >/dev/null
            [ -z "$(ls -A "$toolchain")" ]
            for t in \(tools.joined(separator: " ")); do $t --version; done
            echo '\(about)' | derive --purpose 84 | sed -E 's/.*"address":"([^"]*)".*/\\1/'
            echo '{"hash":"\(String(repeating: "11", count: 32))"}' | sign-hash --key-fd 3 3<<< '\(about)' --path m/84h/0h/0h/0/0 | sign-hash verify --address bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu | sed -E 's/.*"valid":([a-z]*).*/\\1/'
            scan-blocks --blocks \(fixture)/blocks.jsonl --txs \(fixture)/txs.jsonl --state-dir "$(mktemp -d)" --birthday 0 --lookahead 3,20 --progress none \\
              --key-fd 3 3<<< '{"view_key":"46e61ce455dbb62c97f6c9b50ea9790ed149658f13a38b1c723daa76d21c7206","address":"493aY7sV3XC2UsGpGxFkzzL69Q5d6ACf2SkTuxcpWDHGZtqwovxtrT5UqWmF6Gzo8rAozgRBpLib31mc51A5g8RJKPqnjzd"}' \\
              | tail -1 | grep -o '"total":"[0-9]*"' | head -1 | tr -dc 0-9; echo
            """
        let isolated = try Shell.run(
            "unshare --mount --propagation private bash -c '\(script.replacingOccurrences(of: "'", with: "'\\''"))'")
        XCTAssertEqual(isolated.status, 0, isolated.stderr)
        // scan-blocks names its curve kernels too.
        XCTAssertEqual(
            isolated.lines,
            tools.map { $0 == "scan-blocks" ? "0.5.0 (curve kernels: \(HostCPU.bestCurveKernels))" : "0.5.0" }
                + ["bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", "true", "108698619364461"], isolated.stderr)

        let man = try Shell.run("man -M \(prefix)/share/man -w derive")
        XCTAssertEqual(man.status, 0, man.stderr)
        XCTAssertEqual(man.out, "\(prefix)/share/man/man1/derive.1\n")

        let uninstall = try Shell.run("make uninstall PREFIX=\(prefix)")
        XCTAssertEqual(uninstall.status, 0, uninstall.stderr)
        // What is left is exactly the directories that were there before.
        let left = FileManager.default.enumerator(atPath: prefix)!.compactMap { $0 as? String }.sorted()
        XCTAssertEqual(left, ["share", "share/man", "share/man/man1"])
    }

    /// The Debian package that holds a shared library, by its soname (ldconfig's path, then
    /// dpkg's owner of the file, under /usr or not: Debian's merged /usr).
    static func debianPackage(_ soname: String) throws -> String {
        let r = try Shell.run(
            #"p=$(ldconfig -p | awk -v s="\#(soname)" '$1==s && /x86-64/ {print $NF; exit}'); f=$(readlink -f "$p"); { dpkg -S "$f" 2>/dev/null || dpkg -S "${f#/usr}"; } | head -1 | cut -d: -f1"#
        )
        XCTAssertEqual(r.status, 0, soname + r.stderr)
        return r.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The packages README.md's table gives a tool: the "every tool" row and its own.
    static func readmePackages(_ tool: String) throws -> Set<String> {
        let readme = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var packages = Set<String>()
        var rows = 0
        for line in readme.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4 else { continue }
            let tools = cells[1].components(separatedBy: ", ")
            if cells[1] == "every tool" || tools.contains(tool) {
                packages.formUnion(cells[2].split(separator: " ").map(String.init))
                rows += 1
            }
        }
        XCTAssertEqual(rows, 2, "README's table: the every-tool row and one for \(tool)")
        return packages
    }
}
