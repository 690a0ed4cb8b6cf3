import Foundation
import SatchelTestSupport
import XCTest

/// scripts/fake-lightwalletd.py on a free port of 127.0.0.1, for as long as this lives.
final class FakeLightwalletd {
    let port: Int
    private let process: Process

    /// Serves `blocks` (JSON Lines compact blocks) with the fake's `options`.
    init(blocks: String, _ options: [String] = []) throws {
        // Started directly (not through a shell in the background, whose inherited pipe would
        // keep Shell.run waiting): its first line on stdout is the port.
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["scripts/fake-lightwalletd.py", blocks] + options
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
            throw NotStarted()
        }
        self.port = port
    }

    /// A failure, not a skip: `make test` installs what the fake needs.
    struct NotStarted: Error, CustomStringConvertible {
        var description: String { "scripts/fake-lightwalletd.py did not start (python3-grpcio, protobuf-compiler: make install-deps)" }
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}
