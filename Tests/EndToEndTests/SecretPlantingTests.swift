import Foundation
import SatchelTestSupport
import XCTest

/// Known secrets — a phrase, a BIP39 passphrase, a key-store passphrase, a private key, a PIN,
/// a PUK and a pairing password — planted through every way a secret comes in (stdin records,
/// a key file, a passphrase descriptor, a credentials descriptor, the no-echo prompt), then
/// searched for where they must never be: the process's argv and environment (/proc, read while
/// the tool holds the secret and waits), every error record, stderr, and the core a SIGSEGV
/// would write. (A result record may carry a secret by design: mnemonic validate writes the
/// phrase it checked, keystore export the entry.) A control run of cat(1) shows that each search finds a secret that is there.
final class SecretPlantingTests: XCTestCase {
    static let phrase = TestPhrase.legalWinner
    static let passphrase = "plant3d-Passphrase!"
    static let storePassphrase = "plant3d-keystore-pass"
    static let hexKey = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
    static let wif = "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ"
    static let pin = "135792", puk = "246813579024", pairing = "plant3d-pairing"
    /// What is searched for: each secret whole, and pieces of the phrase (an error that quoted
    /// part of it would leak as much).
    static let needles = [phrase, "thank year wave", "sausage worth useful", passphrase, storePassphrase, hexKey, wif, pin, puk, pairing]

    var dir: URL!

    override func setUpWithError() throws {
        dir = URL(fileURLWithPath: try temporaryDirectory("plant"))
        try write("key.json", Shell.lines([["mnemonic": Self.phrase, "passphrase": Self.passphrase]]))
        try write("pass", Data((Self.storePassphrase + "\n").utf8))
        try write("wrong-pass", Data("not the passphrase\n".utf8))
    }

    func write(_ name: String, _ data: Data) throws {
        try data.write(to: dir.appendingPathComponent(name))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: dir.appendingPathComponent(name).path)
    }

    struct Seen {
        var argv = "", environment = "", stdout = "", stderr = "", cores = [String](), status = "", alive = false
    }

    /// Starts `command` with `feed` on a FIFO kept open (so the tool waits for more after the
    /// secret), reads its argv and environment from /proc, sends `bad` (records that fail after
    /// the secret came in), then SIGSEGV under `ulimit -c unlimited`.
    func plant(_ command: String, feed: Data, bad: Data = Data()) throws -> Seen {
        let run = dir.appendingPathComponent("run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        try feed.write(to: run.appendingPathComponent("feed"))
        try bad.write(to: run.appendingPathComponent("bad"))
        let script = """
            set -u
            cd \(run.path)
            ulimit -c unlimited
            mkfifo in passfifo
            \(command) < in > out 2> err &
            pid=$!
            exec 3> in
            cat feed >&3
            sleep 1
            if [ -r /proc/$pid/cmdline ] && tr '\\0' '\\n' < /proc/$pid/cmdline > argv 2>/dev/null && tr '\\0' '\\n' < /proc/$pid/environ > environ 2>/dev/null; then echo alive=yes; fi
            cat bad >&3
            sleep 1
            kill -SEGV $pid 2>/dev/null
            wait $pid
            echo "status=$?"
            exec 3>&-
            """
        let r = try Shell.run(script, cwd: dir)
        func file(_ name: String) -> String { (try? String(contentsOf: run.appendingPathComponent(name), encoding: .utf8)) ?? "" }
        var seen = Seen()
        seen.alive = r.lines.contains("alive=yes")
        seen.status = r.lines.first { $0.hasPrefix("status=") }.map { String($0.dropFirst(7)) } ?? "?"
        (seen.argv, seen.environment, seen.stdout, seen.stderr) = (file("argv"), file("environ"), file("out"), file("err"))
        let names = (try? FileManager.default.contentsOfDirectory(atPath: run.path)) ?? []
        for core in names where core.hasPrefix("core") {
            seen.cores.append(String(decoding: (try? Data(contentsOf: run.appendingPathComponent(core))) ?? Data(), as: UTF8.self))
        }
        return seen
    }

    func leaks(_ text: String) -> [String] { Self.needles.filter { text.contains($0) } }

    /// cat holds what it reads, echoes it and dumps core: every search finds the secret there.
    func testTheSearchesFindASecretThatIsThere() throws {
        let seen = try plant("cat", feed: Data((Self.phrase + "\n").utf8))
        XCTAssertTrue(seen.alive)
        XCTAssertEqual(seen.status, "139")
        XCTAssertEqual(leaks(seen.stdout), [Self.phrase, "thank year wave", "sausage worth useful"])
        XCTAssertEqual(seen.cores.count, 1, "core_pattern must be \"core\" (Debian's default) for the core check")
        XCTAssertEqual(seen.cores.first.map(leaks), [Self.phrase, "thank year wave", "sausage worth useful"])
        let env = try plant("env SATCHEL_PLANTED='\(Self.pin)' cat", feed: Data())
        XCTAssertEqual(leaks(env.environment), [Self.pin])
        let argv = try plant("cat - '\(Self.hexKey)'", feed: Data())
        XCTAssertEqual(leaks(argv.argv), [Self.hexKey])
    }

    func testNoToolLeaksAPlantedSecret() throws {
        let hash = String(repeating: "11", count: 32)
        let ks = "--keystore ../ks --keystore-pass-file ../pass --kdf interactive"
        // status: 139 for a tool that held the secret and waited (then SIGSEGV), else its exit.
        let cases: [(command: String, feed: [[String: Any]], bad: [[String: Any]], status: String)] = [
            (
                "mnemonic validate", [["mnemonic": Self.phrase]],
                [["mnemonic": Self.phrase + " zoo"], ["mnemonic": Self.phrase.replacingOccurrences(of: "yellow", with: "yelow")]], "139"
            ),
            (
                "mnemonic to-seed", [["mnemonic": Self.phrase, "passphrase": Self.passphrase]],
                [["mnemonic": Self.phrase, "passphrase": 5], ["mnemonic": Self.phrase + " legal", "passphrase": Self.passphrase]], "139"
            ),
            (
                "derive --coin btc --count 2", [["mnemonic": Self.phrase, "passphrase": Self.passphrase]],
                [
                    ["mnemonic": Self.phrase.replacingOccurrences(of: "wave", with: "wavy"), "passphrase": Self.passphrase],
                    ["private_key": Self.hexKey],
                ], "139"
            ),
            (
                "sign-hash sign", [["wif": Self.wif, "hash": hash], ["private_key": Self.hexKey, "hash": hash]],
                [
                    ["wif": Self.wif, "hash": "zz"], ["private_key": Self.hexKey + "00", "hash": hash],
                    ["wif": String(Self.wif.dropLast()) + "U", "hash": hash],
                ], "139"
            ),
            (
                "sign-tx --key-file ../key.json --path m/44h/60h/0h/0/0", [["message": "planted"]],
                [["eth_tx": ["chainId": 1, "nonce": -1]], ["psbt": "cHNidP8="]], "139"
            ),
            ("keystore add w \(ks)", [["mnemonic": Self.phrase]], [], "0"),
            // A wrong passphrase: keystore reports it on stderr (exit 77), with no record.
            ("keystore export w --keystore ../ks --keystore-pass-file ../wrong-pass", [], [], "77"),
            ("keystore add w2 --keystore ../ks --keystore-pass-fd 5 5<>passfifo", [["mnemonic": Self.phrase]], [], "139"),
            // It reads the credentials, then waits for a reader.
            ("card-info init --credentials-fd 0", [["pin": Self.pin, "puk": Self.puk, "pairing_password": Self.pairing]], [], "139"),
        ]
        for c in cases {
            let seen = try plant(c.command, feed: Shell.lines(c.feed), bad: Shell.lines(c.bad))
            XCTAssertEqual(seen.alive, c.status == "139", c.command + " (did it hold the secret and wait?) " + seen.stderr)
            XCTAssertEqual(seen.status, c.status, c.command + ": " + seen.stderr)
            XCTAssertEqual(leaks(seen.argv), [], c.command + ": argv")
            XCTAssertEqual(leaks(seen.environment), [], c.command + ": environment")
            let errors = seen.stdout.split(separator: "\n").filter { $0.hasPrefix("{\"type\":\"error\"") }.map(String.init)
            XCTAssertEqual(leaks(errors.joined(separator: "\n")), [], c.command + ": error records\n" + seen.stdout)
            XCTAssertEqual(leaks(seen.stderr), [], c.command + ": stderr\n" + seen.stderr)
            XCTAssertEqual(seen.cores.count, 0, c.command + ": a core file")
            XCTAssertEqual(errors.count, c.bad.count, c.command + ": one error record for each bad record\n" + seen.stdout)
        }
    }

    /// The no-echo prompt: a phrase typed at the terminal is not shown, and is in no record.
    func testThePromptShowsNoPhrase() throws {
        let (shown, status) = try Terminal.run(
            "derive --coin btc --count 1 > \(dir.path)/out.jsonl", waitFor: "(not shown)", type: Self.phrase)
        XCTAssertEqual(status, 0, shown)
        XCTAssertTrue(shown.hasPrefix("Seed phrase (not shown): "), shown)
        XCTAssertEqual(leaks(shown), [], "the terminal showed: " + shown)
        let out = try String(contentsOf: dir.appendingPathComponent("out.jsonl"), encoding: .utf8)
        XCTAssertEqual(leaks(out), [])
        XCTAssertEqual(out.split(separator: "\n").count, 1, out)
        XCTAssertTrue(out.hasPrefix("{\"type\":\"address\",\"v\":1,"), out)
    }
}
