#if canImport(Glibc)
    import Glibc
#endif

/// Replaces a file whole or not at all: the bytes go to a temporary file beside it
/// (".NAME.tmp-PID-RANDOM", O_EXCL, never following a link), are synced, and renamed over it;
/// then the directory is synced. A kill -9 between the two leaves the old file and a
/// temporary: the next write of the same file removes every temporary of it whose writer is
/// no longer running, so none stays behind for long (kill campaigns, docs/RELIABILITY.md).
public enum AtomicFile {
    public struct Failure: Error, Equatable, Sendable {
        /// What failed, with strerror: the path and never the bytes.
        public let reason: String
    }

    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws(Failure) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let prefix = ".\(base).tmp-"
        removeStale(in: directory, prefix: prefix)
        let temp = "\(directory)/\(prefix)\(getpid())-\(UInt32.random(in: 0..<(1 << 30)))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(reason: "cannot create a file in \(directory): \(String(cString: strerror(errno)))") }
        var failure = writeAll(fd, bytes)
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0 && rename(temp, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temp)
            throw Failure(reason: "cannot write \(path): \(String(cString: strerror(failure)))")
        }
        syncDirectory(directory)
    }

    /// Every byte to `fd`, through short writes and EINTR: 0, or the errno that stopped it.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n < 0 ? errno : EIO }
            offset += n
        }
        return 0
    }

    /// Syncs a directory, so that a rename or unlink in it outlives a crash.
    public static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }

    /// The names in a directory but "." and "..", unsorted; nil if it cannot be opened.
    public static func names(in directory: String) -> [String]? {
        guard let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        var names = [String]()
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Temporaries of this file whose writer's process is gone.
    static func removeStale(in directory: String, prefix: String) {
        for name in names(in: directory) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix(while: { $0 != "-" })) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink("\(directory)/\(name)") }
        }
    }
}
