import Foundation

/// Where tests find the shared vectors and the built executables.
public enum TestPaths {
    /// The package root, from this file's location (Tests/SatchelTestSupport/Paths.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared` beside the checkout, or $SATCHEL_SHARED. Tests read vectors in place.
    public static var shared: URL {
        if let dir = ProcessInfo.processInfo.environment["SATCHEL_SHARED"] { return URL(fileURLWithPath: dir) }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }

    public static func vector(_ relative: String) -> URL { shared.appendingPathComponent("vectors/" + relative) }
    public static func fixture(_ relative: String) -> URL { shared.appendingPathComponent("fixtures/" + relative) }
    /// Fixtures kept in the project (Tests/Fixtures, each folder with a README of its source).
    public static func projectFixture(_ relative: String) -> URL { packageRoot.appendingPathComponent("Tests/Fixtures/" + relative) }

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
