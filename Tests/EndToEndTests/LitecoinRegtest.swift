import Foundation
import SatchelTestSupport
import XCTest

/// A real litecoind (Debian's 0.21) in regtest on 127.0.0.1, in a temporary data directory of
/// its own, and litecoin-cli against it. The tests that use it stop it in their tearDown.
final class LitecoinRegtest {
    let dir: String
    private(set) var port = 0
    private var node: Process?

    /// Skips the test when litecoind is not installed (scripts/install-deps.sh --test installs it).
    init(name: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/litecoind") else {
            throw XCTSkip("litecoind is not installed (scripts/install-deps.sh --test installs Debian's litecoind)")
        }
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/node", withIntermediateDirectories: true)
    }

    /// Starts litecoind on the test's datadir, with REST or without; on a port below the
    /// ephemeral range (where a port may be taken by an outgoing connection), another if it
    /// cannot. A node that does not start fails the test: litecoind is installed.
    func start(rest: Bool, options: [String] = []) throws {
        for _ in 0..<3 {
            port = 20_000 + Int.random(in: 0..<10_000)
            if try startOnce(rest: rest, options: options) { return }
        }
        XCTFail("litecoind did not start on three ports")
        throw CocoaError(.featureUnsupported)
    }

    private func startOnce(rest: Bool, options: [String]) throws -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/litecoind")
        p.arguments =
            [
                "-regtest", "-datadir=\(dir)/node", "-rpcport=\(port)", "-rpcbind=127.0.0.1", "-rpcallowip=127.0.0.1", "-listen=0",
                "-fallbackfee=0.0001", "-printtoconsole=0", "-discover=0", "-dnsseed=0",
            ] + (rest ? ["-rest"] : []) + options
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        node = p
        let deadline = Date().addingTimeInterval(60)
        while (try? run(["getblockcount"], wallet: nil)) == nil {
            guard Date() < deadline, p.isRunning else {
                if p.isRunning { p.terminate() }
                p.waitUntilExit()
                return false
            }
            Thread.sleep(forTimeInterval: 0.3)
        }
        return true
    }

    /// Stops the node (it writes its block files out).
    func stop() throws {
        guard let node, node.isRunning else { return }
        _ = try? run(["stop"], wallet: nil)
        let deadline = Date().addingTimeInterval(30)
        while node.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        if node.isRunning { node.terminate() }
        node.waitUntilExit()
    }

    func tearDown() throws {
        try stop()
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// litecoin-cli against the node; its answer, trimmed. Throws on a non-zero exit.
    @discardableResult
    func run(_ args: [String], wallet: String?) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/litecoin-cli")
        p.arguments = ["-regtest", "-datadir=\(dir)/node", "-rpcport=\(port)"] + (wallet.map { ["-rpcwallet=\($0)"] } ?? []) + args
        let out = Pipe(), err = Pipe()
        (p.standardOutput, p.standardError) = (out, err)
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let problem = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw NSError(
                domain: "litecoin-cli", code: Int(p.terminationStatus), userInfo: [NSLocalizedDescriptionKey: "\(args): \(problem)"])
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func json(_ args: [String], wallet: String?) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(try run(args, wallet: wallet).utf8), options: [.fragmentsAllowed])
    }
}
