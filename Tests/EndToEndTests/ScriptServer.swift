import Foundation
import SatchelTestSupport
import XCTest

/// scripts/fake-lightwalletd.py, serving `blocks` (JSON Lines compact blocks) with the fake's
/// `options`.
typealias FakeLightwalletd = ScriptServer

extension ScriptServer {
    convenience init(blocks: String, _ options: [String] = []) throws {
        try self.init(script: "scripts/fake-lightwalletd.py", [blocks] + options)
    }
}

/// A server in scripts/ (a fake, or a proxy in front of a real node) on a free port of
/// 127.0.0.1, for as long as this lives: its first line on stdout is the port.
final class ScriptServer {
    let port: Int
    private let process: Process
    private let script: String

    init(script: String, _ arguments: [String]) throws {
        self.script = script
        // Started directly (not through a shell in the background, whose inherited pipe would
        // keep Shell.run waiting): its first line on stdout is the port.
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script] + arguments
        process.currentDirectoryURL = TestPaths.packageRoot
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            process.waitUntilExit()
            throw NotStarted(script: script)
        }
        self.port = port
    }

    /// A failure, not a skip: `make test` installs what the fake needs.
    struct NotStarted: Error, CustomStringConvertible {
        let script: String
        var description: String { "\(script) did not start (python3-grpcio, protobuf-compiler: make install-deps)" }
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}
