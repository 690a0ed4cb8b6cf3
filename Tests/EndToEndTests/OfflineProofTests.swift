import Foundation
import SatchelTestSupport
import XCTest

/// The offline tools need no network, shown rather than said: each runs in a network namespace
/// of its own, whose one interface (loopback) is down (`unshare --net`), under strace, which
/// writes down every call that opens or uses a socket (socket, connect, bind, listen, accept,
/// send…). The test fails on any such call, naming it. (The tools do call getpeername on
/// stdin, to tell what it is; that touches no network and is not counted.) scan-blocks against a node, run the same way, shows that
/// the check does see a connection attempt.
final class OfflineProofTests: XCTestCase {
    static let phrase = TestPhrase.abandonAbout
    static var moneroPhrase: String {
        ((try! TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any])["keys"] as! [String: Any])["mnemonic"]
            as! String
    }
    var dir: URL!

    override func setUpWithError() throws {
        dir = URL(fileURLWithPath: try temporaryDirectory("offline"))
        try Shell.lines([["mnemonic": Self.phrase]]).write(to: dir.appendingPathComponent("key.json"))
        try "correct horse battery staple\n".write(to: dir.appendingPathComponent("pass"), atomically: true, encoding: .utf8)
        for name in ["key.json", "pass"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: dir.appendingPathComponent(name).path)
        }
    }

    /// Runs `command` in a namespace without network, traced; the network calls it made.
    func offline(_ command: String, stdin: Data = Data()) throws -> (result: Shell.Result, calls: [String]) {
        let trace = dir.appendingPathComponent("trace-\(UUID().uuidString)")
        // strace runs the tool itself, not a shell: bash started without $SHELL or $HOME asks
        // the name service who the user is, and glibc first tries nscd's socket.
        let r = try Shell.run(
            "unshare --net strace -f -qq -e trace=socket,connect,bind,listen,accept,accept4,sendto,sendmsg,sendmmsg -e signal=none -o \(trace.path) -- \(command)",
            stdin: stdin, cwd: dir)
        let calls = ((try? String(contentsOf: trace, encoding: .utf8)) ?? "<no trace>").split(separator: "\n").map(String.init)
        return (r, calls)
    }

    /// /proc/net is the namespace's own (sysfs is the host's): a loopback and nothing else,
    /// and a connection even to 127.0.0.1 fails, as the network is unreachable.
    func testTheNamespaceHasNoNetwork() throws {
        let r = try Shell.run(
            "unshare --net sh -c 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d \" \"; python3 -c \"import socket; socket.create_connection((\\\"127.0.0.1\\\", 9), 2)\" 2>&1 | tail -1'"
        )
        XCTAssertEqual(r.lines, ["lo", "OSError: [Errno 101] Network is unreachable"], r.stderr)
    }

    func testOfflineToolsMakeNoNetworkCall() throws {
        let record = Shell.lines([["mnemonic": Self.phrase]])
        let monero = Shell.lines([["mnemonic": Self.moneroPhrase]])
        let hash = String(repeating: "11", count: 32)
        let ks = "--keystore ks --keystore-pass-file pass --kdf interactive"
        let psbt = try TestPaths.json(TestPaths.projectFixture("psbt/bip174-roles.json")) as! [String: Any]
        try Shell.lines([["extended_key": psbt["master_tprv"] as! String]]).write(to: dir.appendingPathComponent("tprv.json"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: dir.appendingPathComponent("tprv.json").path)
        let cases: [(String, Data)] = [
            ("mnemonic generate --words 24", Data()),
            ("mnemonic validate", record),
            ("mnemonic to-seed", record),
            ("derive --coin btc --purpose 84 --count 3", record),
            ("derive --coin xmr", monero),
            ("derive --coin zec", record),
            ("derive account --coin btc --purpose 84", record),
            ("sign-hash sign --path m/0", Shell.lines([["mnemonic": Self.phrase, "hash": hash]])),
            (
                "sign-tx --key-file key.json",
                Shell.lines([
                    [
                        "eth_tx": [
                            "to": "0xF0109fC8DF283027b6285cc889F5aA624EaC1F55", "value": "1", "gas": 21000,
                            "gasPrice": "1", "nonce": 0, "chainId": 1,
                        ], "path": "m/44h/60h/0h/0/0",
                    ],
                    ["message": "offline", "path": "m/44h/60h/0h/0/0"],
                ])
            ),
            (
                "sign-tx --network test --allow-sighash --key-file tprv.json",
                Shell.lines([["psbt": psbt["updated_with_sighash_all"] as! String]])
            ),
            ("keystore add w \(ks)", record),
            ("keystore list \(ks)", Data()),
            ("keystore birthday w xmr=3000000 \(ks)", Data()),
            ("keystore export w \(ks)", Data()),
            ("keystore destroy w --yes \(ks)", Data()),
        ]
        for (command, stdin) in cases {
            let (r, calls) = try offline(command, stdin: stdin)
            XCTAssertEqual(r.status, 0, command + ": " + r.stderr)
            XCTAssertFalse(r.records.isEmpty && !command.hasPrefix("keystore destroy") && !command.hasPrefix("keystore birthday"), command)
            XCTAssertEqual(calls, [], command + " made network calls")
        }
    }

    /// The check can fail: scan-blocks asked to reach a node opens a socket, strace sees it,
    /// and the tool itself fails loudly (the network is unreachable), with exit 69.
    func testTheCheckSeesAConnectionAttempt() throws {
        let key = Shell.lines([["mnemonic": Self.moneroPhrase]])
        try key.write(to: dir.appendingPathComponent("wallet.json"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: dir.appendingPathComponent("wallet.json").path)
        let (r, calls) = try offline("scan-blocks --node 127.0.0.1:18081 --timeout 1 --birthday 0 --state-dir st --key-file wallet.json")
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertTrue(
            calls.contains { $0.contains("connect(") && $0.contains("127.0.0.1") && $0.contains("ENETUNREACH") },
            calls.joined(separator: "\n"))
    }
}
