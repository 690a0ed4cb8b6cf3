#if canImport(Glibc)
    import Glibc
#endif

/// Directories that hold secrets or wallet state (the key store, scan state): made with
/// mkdir(2) at 0700, missing parents included, so no other user ever sees them open, whatever
/// the umask; an existing one that others can enter is refused, never silently used.
public enum PrivateDirectory {
    public enum Problem: Error, Equatable {
        /// mkdir or stat failed: the path and strerror.
        case cannotCreate(path: String, reason: String)
        case notADirectory(path: String)
        /// Group or others have access (mode in octal).
        case loose(path: String, mode: String)
        case notOwned(path: String)
    }

    /// Makes `path` and its missing parents (each 0700), then checks `path` itself.
    public static func prepare(_ path: String) throws(Problem) {
        var missing = [String]()
        var current = path
        while !current.isEmpty, current != "/", access(current, F_OK) != 0 {
            missing.append(current)
            guard let slash = current.lastIndex(of: "/") else { break }
            current = String(current[..<slash])
        }
        for dir in missing.reversed() {
            guard mkdir(dir, 0o700) == 0 || errno == EEXIST else {
                throw .cannotCreate(path: dir, reason: String(cString: strerror(errno)))
            }
        }
        try check(path)
    }

    /// A directory owned by this user with no access for group or others.
    public static func check(_ path: String) throws(Problem) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .cannotCreate(path: path, reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(path: path) }
        guard info.st_uid == geteuid() else { throw .notOwned(path: path) }
        guard info.st_mode & 0o077 == 0 else { throw .loose(path: path, mode: String(info.st_mode & 0o777, radix: 8)) }
    }
}
