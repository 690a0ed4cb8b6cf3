#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import WalletCore
import WalletCrypto
import WalletFiles

/// A directory of entry files, NAME.key, each 0600 in a 0700 directory. Writes are atomic
/// (temporary file, fsync, rename, fsync of the directory) and serialised by a lock file, so
/// a killed writer leaves the old file whole and two writers cannot interleave.
public struct FileKeyStore: KeyStorer {
    public let directory: String
    public let kdf: KDFParameters
    public static let minimumPassphraseLength = 8

    public init(directory: String, kdf: KDFParameters = .moderate) {
        self.directory = directory
        self.kdf = kdf
    }

    /// $XDG_DATA_HOME/satchel/keystore, else ~/.local/share/satchel/keystore.
    public static var defaultDirectory: String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? "/root") + "/.local/share")
        return base + "/satchel/keystore"
    }

    public static func validate(name: String) throws(KeyStoreError) {
        let ok =
            (1...64).contains(name.utf8.count) && !name.hasPrefix(".")
            && name.utf8.allSatisfy { c in
                (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 46 || c == 95 || c == 45
            }
        guard ok else { throw .invalidName(name) }
    }

    private func path(_ name: String) -> String { directory + "/" + name + ".key" }
    /// Where destroy moves an entry before overwriting it: hidden (list skips dot files), so a
    /// destroy killed half-way leaves no damaged entry, and a second destroy finishes it.
    private func destroyingPath(_ name: String) -> String { directory + "/.destroying-" + name + ".key" }

    /// Entries whose destroy was interrupted (killed after the entry was moved aside).
    public func interruptedDestroys() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix(".destroying-") && $0.hasSuffix(".key") }
            .map { String($0.dropFirst(".destroying-".count).dropLast(4)) }.sorted()
    }

    /// Whether an entry of that name exists (checked before a passphrase is asked for, so a
    /// typo costs no Argon2 run and no typing).
    public func exists(_ name: String) throws(KeyStoreError) -> Bool {
        try Self.validate(name: name)
        var info = stat()
        return lstat(path(name), &info) == 0
    }

    public func store(_ entry: KeyStoreEntry, passphrase: SecureBytes) throws(KeyStoreError) {
        try Self.validate(name: entry.metadata.name)
        guard passphrase.count >= Self.minimumPassphraseLength else { throw .weakPassphrase(minimum: Self.minimumPassphraseLength) }
        let sealed = try EntryFile.seal(entry, passphrase: passphrase, kdf: kdf)
        try withLock { () throws(KeyStoreError) in
            guard access(path(entry.metadata.name), F_OK) != 0 else { throw .entryExists(entry.metadata.name) }
            try atomicWrite(sealed, to: path(entry.metadata.name))
        }
    }

    public func load(_ name: String, passphrase: SecureBytes) throws(KeyStoreError) -> KeyStoreEntry {
        try Self.validate(name: name)
        return try EntryFile.open(try read(name), name: name, passphrase: passphrase)
    }

    public func list() throws(KeyStoreError) -> [ListedEntry] {
        guard access(directory, F_OK) == 0 else { return [] }
        try checkDirectory()
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".key") && !$0.hasPrefix(".") }.map { String($0.dropLast(4)) }.sorted()
        return names.map { name in
            ListedEntry(name: name, metadata: Result { () throws(KeyStoreError) in try EntryFile.metadata(of: try read(name), name: name) })
        }
    }

    /// Moves the file aside (one rename: the entry is gone from the list at once), then
    /// overwrites it with random bytes, syncs, and unlinks it. A destroy killed after the
    /// rename is finished by the next destroy of the same name. On flash storage or a
    /// copy-on-write file system the old blocks may survive; see keystore(1).
    public func destroy(_ name: String) throws(KeyStoreError) {
        try Self.validate(name: name)
        try withLock { () throws(KeyStoreError) in
            let aside = destroyingPath(name)
            var info = stat()
            // An interrupted destroy first, so that the move below cannot replace its file unwiped.
            let interrupted = lstat(aside, &info) == 0
            if interrupted { try wipe(aside) }
            if Glibc.rename(path(name), aside) == 0 {
                AtomicFile.syncDirectory(directory)
                try wipe(aside)
            } else if errno != ENOENT {
                throw .io("cannot move \(path(name)) aside: \(String(cString: strerror(errno)))")
            } else if !interrupted {
                throw .unknownEntry(name)
            }
        }
    }

    /// Random bytes over the whole file, synced, then the file unlinked.
    private func wipe(_ file: String) throws(KeyStoreError) {
        let fd = Glibc.open(file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw .io("cannot open \(file): \(String(cString: strerror(errno)))") }
        var info = stat()
        fstat(fd, &info)
        let noise = Sodium.randomBytes(Int(info.st_size)).bytes
        var failure = AtomicFile.writeAll(fd, noise)
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        close(fd)
        guard failure == 0 else { throw .io("cannot overwrite \(file): \(String(cString: strerror(failure)))") }
        guard unlink(file) == 0 else { throw .io("cannot remove \(file): \(String(cString: strerror(errno)))") }
        AtomicFile.syncDirectory(directory)
    }

    public func changePassphrase(_ name: String, from old: SecureBytes, to new: SecureBytes) throws(KeyStoreError) {
        guard new.count >= Self.minimumPassphraseLength else { throw .weakPassphrase(minimum: Self.minimumPassphraseLength) }
        try withLock { () throws(KeyStoreError) in
            let entry = try load(name, passphrase: old)
            try atomicWrite(try EntryFile.seal(entry, passphrase: new, kdf: kdf), to: path(name))
        }
    }

    /// Replaces an entry's birthdays (metadata), keeping its secret.
    public func setBirthdays(_ name: String, _ birthdays: [String: Int], passphrase: SecureBytes) throws(KeyStoreError) {
        try withLock { () throws(KeyStoreError) in
            var entry = try load(name, passphrase: passphrase)
            entry.metadata.birthdays.merge(birthdays) { $1 }
            try atomicWrite(try EntryFile.seal(entry, passphrase: passphrase, kdf: kdf), to: path(name))
        }
    }

    // MARK: - Files

    private func read(_ name: String) throws(KeyStoreError) -> [UInt8] {
        try checkDirectory()
        let fd = Glibc.open(path(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw .unknownEntry(name) }
            if errno == ELOOP { throw .insecureEntry(name: name, problem: "\(path(name)) is a symbolic link; entries are regular files") }
            throw .io("cannot open \(path(name)): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        // Only a regular file of ours that nobody else can read (as the directory): a readable
        // entry lets anyone try passphrases offline.
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io("cannot stat \(path(name))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .insecureEntry(name: name, problem: "\(path(name)) is not a regular file") }
        guard info.st_uid == geteuid() else { throw .insecureEntry(name: name, problem: "\(path(name)) belongs to another user") }
        guard info.st_mode & 0o077 == 0 else {
            throw .insecureEntry(
                name: name,
                problem: "\(path(name)) has mode \(String(info.st_mode & 0o777, radix: 8)): others can read it; run chmod 600 \(path(name))"
            )
        }
        var out = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .io("cannot read \(path(name))") }
            if n == 0 { break }
            out += buffer[0..<n]
            guard out.count <= 1 << 20 else { throw .damaged(name: name, reason: "larger than 1 MiB") }
        }
        return out
    }

    /// Creates the directory 0700 if needed; refuses one that others can read.
    private func checkDirectory() throws(KeyStoreError) {
        // The store and its missing parents with mkdir(2) at 0700, so no other process ever
        // sees them with wider permissions (creating then chmod-ing would race).
        do { try PrivateDirectory.prepare(directory) } catch {
            switch error {
            case .loose(let path, let mode): throw .insecureDirectory(path: path, mode: mode)
            case .notOwned(let path): throw .insecureDirectory(path: path, mode: "owned by another user")
            case .cannotCreate(let path, let reason): throw .io("cannot create \(path): \(reason)")
            case .notADirectory(let path): throw .io("\(path) is not a directory")
            }
        }
    }

    private func withLock<T>(_ body: () throws(KeyStoreError) -> T) throws(KeyStoreError) -> T {
        try checkDirectory()
        let fd = Glibc.open(directory + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io("cannot open the lock file in \(directory)") }
        defer { close(fd) }
        // Wait up to ten seconds for another writer, then say so (exit 75).
        var waited = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard waited < 200 else { throw .locked(directory: directory) }
            usleep(50_000)
            waited += 1
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// The entry replaced whole (AtomicFile: a writer killed midway leaves the old entry, and
    /// its temporary is removed by the next write).
    private func atomicWrite(_ bytes: [UInt8], to file: String) throws(KeyStoreError) {
        do { try AtomicFile.write(bytes, to: file, mode: 0o600) } catch { throw .io(error.reason) }
    }
}
