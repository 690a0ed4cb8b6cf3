import Foundation
import SatchelTestSupport
import XCTest

/// Secrets stay out of core files and crash reports: each tool, stopped by SIGSEGV while it
/// holds a phrase (or waits for a secret) under `ulimit -c unlimited`, writes no core file and
/// prints no backtrace (the Swift runtime's shows registers and the memory they point at).
/// RLIMIT_CORE is read from /proc; the file check needs core_pattern "core" (Debian's default).
final class HardeningTests: XCTestCase {
    static let phrase = TestPhrase.abandonAbout

    func crash(_ command: String, feed: String) throws -> (limits: String, status: String, files: String, stderr: String) {
        let dir = URL(fileURLWithPath: try temporaryDirectory("core"))
        defer { try? FileManager.default.removeItem(at: dir) }
        try feed.write(to: dir.appendingPathComponent("feed"), atomically: true, encoding: .utf8)
        let script = """
            set -u
            cd \(dir.path)
            ulimit -c unlimited
            mkfifo in
            \(command) < in > out 2> err &
            pid=$!
            exec 3> in
            cat feed >&3
            sleep 1
            echo "limits=$(awk '/core file size/ {print $5, $6}' /proc/$pid/limits)"
            kill -SEGV $pid
            # A tool that hangs in a crash handler (Swift's backtracer can) is killed: status 137.
            # The watchdog keeps no inherited descriptor: Foundation sees this shell end by one.
            watch() {
              exec </dev/null >/dev/null 2>&1
              for fd in /proc/$BASHPID/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done
              sleep 20; kill -9 $pid
            }
            watch & watchdog=$!
            wait $pid
            echo "status=$?"
            kill $watchdog 2>/dev/null
            exec 3>&-
            echo "files=$(ls | grep '^core' | tr '\\n' ' ')"
            """
        let r = try Shell.run(script)
        let fields = Dictionary(
            uniqueKeysWithValues: r.lines.compactMap { line -> (String, String)? in
                guard let eq = line.firstIndex(of: "=") else { return nil }
                return (String(line[..<eq]), String(line[line.index(after: eq)...]).trimmingCharacters(in: .whitespaces))
            })
        let err = (try? String(contentsOf: dir.appendingPathComponent("err"), encoding: .utf8)) ?? "<no err file>"
        return (fields["limits"] ?? r.out + r.stderr, fields["status"] ?? "?", fields["files"] ?? "?", err)
    }

    func testNoCoreFileAndNoBacktraceFromAnyTool() throws {
        let record = #"{"mnemonic":"\#(Self.phrase)"}"# + "\n"
        let hash = String(repeating: "11", count: 32)
        let cases: [(String, String)] = [
            ("mnemonic validate", record),
            ("derive --purpose 84", record),
            ("sign-hash sign --path m/0", #"{"mnemonic":"\#(Self.phrase)","hash":"\#(hash)"}"# + "\n"),
            ("sign-tx --path m/0", #"{"mnemonic":"\#(Self.phrase)","message":"x"}"# + "\n"),
            // keystore waits for its passphrase after reading the phrase; these two wait on stdin
            // for a key record and for the PIN record.
            ("mkfifo pass; keystore add w --keystore ks --keystore-pass-fd 5 5<>pass", record),
            ("scan-blocks --blocks /dev/null --state-dir st", ""),
            ("card-info init --credentials-fd 0", ""),
        ]
        for (command, feed) in cases {
            let result = try crash(command, feed: feed)
            XCTAssertEqual(result.limits, "0 0", command)
            XCTAssertEqual(result.status, "139", command + ": " + result.stderr)
            XCTAssertEqual(result.files, "", command)
            XCTAssertFalse(result.stderr.contains("abandon"), command)
            XCTAssertFalse(result.stderr.contains("mnemonic"), command)
            XCTAssertFalse(result.stderr.contains("Backtracing"), command)
        }
    }
}
