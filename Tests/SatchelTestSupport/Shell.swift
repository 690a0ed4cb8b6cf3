import Foundation

/// Runs a bash command line with the built executables first on PATH.
public struct Shell {
    public struct Result {
        public let stdout: Data
        public let stderr: String
        public let status: Int32
        public var out: String { String(decoding: stdout, as: UTF8.self) }
        public var lines: [String] { out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
        /// Each stdout line parsed as a JSON object.
        public var records: [[String: Any]] {
            lines.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? ["unparsable": $0] }
        }
    }

    public static func run(_ command: String, stdin: Data = Data(), cwd: URL = TestPaths.packageRoot) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", command]
        process.currentDirectoryURL = cwd
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = TestPaths.binDir.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        process.environment = env
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both pipes concurrently so a large output cannot dead-lock the child.
        nonisolated(unsafe) var outData = Data(), errData = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outData = output.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = errors.fileHandleForReading.readDataToEndOfFile() }
        input.fileHandleForWriting.write(stdin)
        try input.fileHandleForWriting.close()
        group.wait()
        process.waitUntilExit()
        return Result(stdout: outData, stderr: String(decoding: errData, as: UTF8.self), status: process.terminationStatus)
    }

    public static func lines(_ records: [[String: Any]]) -> Data {
        Data(records.map { String(decoding: try! JSONSerialization.data(withJSONObject: $0), as: UTF8.self) + "\n" }.joined().utf8)
    }
}
