import Foundation

/// Where tests find their vectors and fixtures (in the project) and the built executables.
public enum TestPaths {
    /// The package root, from this file's location (Tests/SatchelTestSupport/Paths.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The test data kept in the project (Tests/Fixtures; its README names each file's source).
    public static let fixtures: URL = packageRoot.appendingPathComponent("Tests/Fixtures")

    public static func vector(_ relative: String) -> URL { fixtures.appendingPathComponent("vectors/" + relative) }
    public static func fixture(_ relative: String) -> URL { fixtures.appendingPathComponent("fixtures/" + relative) }
    /// Fixtures of the project's own making (Tests/Fixtures/testnet, …).
    public static func projectFixture(_ relative: String) -> URL { fixtures.appendingPathComponent(relative) }

    /// The directory of built executables: $SATCHEL_BIN_DIR (set by the Makefile from
    /// `swift build --show-bin-path`), else .build/debug.
    public static var binDir: URL {
        if let dir = ProcessInfo.processInfo.environment["SATCHEL_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        return packageRoot.appendingPathComponent(".build/debug")
    }

    public static func json(_ url: URL) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url))
    }

    /// Lines of a JSON Lines file, each parsed.
    public static func jsonLines(_ url: URL) throws -> [[String: Any]] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }
}

public enum HexString {
    public static func bytes(_ hex: String) -> [UInt8] {
        var out = [UInt8]()
        var it = hex.utf8.makeIterator()
        while let a = it.next(), let b = it.next() {
            out.append(UInt8(String(decoding: [a, b], as: UTF8.self), radix: 16)!)
        }
        return out
    }
}

/// scripts/hostile-monerod.py MODE on 127.0.0.1 (silent, trickle, endless, heights=A,B,…):
/// its port and process, which the caller ends.
public enum HostileMonerod {
    public static func start(_ mode: String) throws -> (port: Int, process: Process) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [TestPaths.packageRoot.appendingPathComponent("scripts/hostile-monerod.py").path, mode]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        var line = [UInt8]()
        while let byte = try out.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A { line.append(byte) }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile)
        }
        return (port, process)
    }
}
