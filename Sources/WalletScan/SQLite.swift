import CSQLite
#if canImport(Glibc)
    import Glibc
#endif
import WalletCore

/// A small SQLite connection: prepared statements, transactions, typed columns. Only the
/// synchronizer's state store uses it.
final class SQLiteDatabase {
    private var db: OpaquePointer?
    let path: String

    init(path: String) throws(ScanStateError) {
        self.path = path
        try open()
    }

    private func open() throws(ScanStateError) {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil) == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw .database("cannot open \(path): \(message)")
        }
        // The state reveals the wallet's history: owner-only, like the key store.
        chmod(path, 0o600)
        sqlite3_busy_timeout(db, 5000)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA foreign_keys=ON")
        // A state's batch touches a few pages; a large cache only grows with thousands of
        // wallets (the address table's pages, read once at the start, stayed cached).
        try execute("PRAGMA cache_size=-256")
    }

    /// Closes the connection — its files and its cache — until the next statement opens it
    /// again: a run of thousands of wallets keeps only their locks open. Not inside a
    /// transaction.
    func suspend() {
        guard db != nil else { return }
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        sqlite3_close(db)
        db = nil
    }

    /// Prepared once per SQL text: a scan runs the same few statements for every block and
    /// spend, and preparing was most of their cost.
    private var statements = [String: OpaquePointer]()

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(db)
    }

    func execute(_ sql: String) throws(ScanStateError) {
        if db == nil { try open() }
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown"
            sqlite3_free(error)
            throw .database(message)
        }
    }

    enum Value: Equatable {
        case int(Int64)
        case text(String)
        case blob([UInt8])
        case null
    }

    /// Runs a statement with bound values; returns the rows (each a list of column values).
    @discardableResult
    func query(_ sql: String, _ values: [Value] = []) throws(ScanStateError) -> [[Value]] {
        if db == nil { try open() }
        let statement: OpaquePointer
        if let cached = statements[sql] {
            statement = cached
        } else {
            var prepared: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &prepared, nil) == SQLITE_OK, let prepared else {
                throw .database("\(String(cString: sqlite3_errmsg(db))) in \(sql.prefix(60))")
            }
            statements[sql] = prepared
            statement = prepared
        }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case .int(let n): sqlite3_bind_int64(statement, index, n)
            case .text(let s): sqlite3_bind_text(statement, index, s, -1, transient)
            case .blob(let b): _ = b.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
            case .null: sqlite3_bind_null(statement, index)
            }
        }
        var rows = [[Value]]()
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw .database(String(cString: sqlite3_errmsg(db))) }
            var row = [Value]()
            for c in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, c) {
                case SQLITE_INTEGER: row.append(.int(sqlite3_column_int64(statement, c)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, c))))
                case SQLITE_BLOB:
                    let n = Int(sqlite3_column_bytes(statement, c))
                    let p = sqlite3_column_blob(statement, c)
                    row.append(.blob(n == 0 ? [] : Array(UnsafeRawBufferPointer(start: p, count: n))))
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// Runs `body` in one transaction: all of it is stored, or none.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

extension SQLiteDatabase.Value {
    var int: Int64? { if case .int(let n) = self { n } else { nil } }
    var text: String? { if case .text(let s) = self { s } else { nil } }
    var blob: [UInt8]? { if case .blob(let b) = self { b } else { nil } }
}

public enum ScanStateError: WalletError, Equatable {
    case database(String)
    case locked(String)
    case walletMismatch(String)
    /// A state written by a later release, whose schema this one does not know.
    case newerSchema(path: String, version: Int)

    public var code: String {
        switch self {
        case .database: "scan.state_database"
        case .locked: "scan.locked"
        case .walletMismatch: "scan.state_mismatch"
        case .newerSchema: "scan.state_too_new"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .database: .ioError
        case .locked: .tryAgain
        case .walletMismatch: .usage
        case .newerSchema: .dataError
        }
    }

    public var message: String {
        switch self {
        case .database(let m): "state database: \(m)"
        case .locked(let path): "another scan of this wallet is running (lock \(path) is held); try again later"
        case .walletMismatch(let m): m
        case .newerSchema(let path, let version):
            "the state in \(path) has schema \(version), written by a later Satchel (this one writes \(ScanStateStore.schemaVersion)): scan with that release, or move the state away to scan again from the birthday"
        }
    }
}
