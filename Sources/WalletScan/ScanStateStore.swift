import WalletCore

/// One wallet's state in SQLite: the scanned chain (hashes, for reorgs), owned outputs,
/// spends, the address table, and the outbox of events committed but not yet delivered.
/// Every change of a batch is one transaction.
///
/// The schema speaks of every chain: an output's account and address index (Monero: major
/// and minor), its spend tag (a key image, a nullifier) and memo (a payment id, a memo), its
/// output key (a one-time key, a note commitment); the address table holds each address's
/// key. Its version is SQLite's `user_version`: 0 is 0.5.0's schema (Monero's column names),
/// which `migrate` renames in place, in one transaction.
final class ScanStateStore {
    let db: SQLiteDatabase

    /// The schema this release writes.
    static let schemaVersion = 1

    /// `pools`: the pools a new state is scanned for from its birthday (`ChainScanner.addedPools`):
    /// it needs no catch-up for them.
    init(path: String, walletID: String, birthday: Int, pools: [String] = []) throws {
        db = try SQLiteDatabase(path: path)
        // Stamped once, when the tables are made: setting it on every open would be a commit
        // per wallet per run.
        let stamp = try Self.migrate(db, path: path) < Self.schemaVersion ? "PRAGMA user_version = \(Self.schemaVersion);" : ""
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS blocks (height INTEGER PRIMARY KEY, hash BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS outputs (
                txid BLOB NOT NULL, idx INTEGER NOT NULL, height INTEGER NOT NULL, amount TEXT NOT NULL,
                account INTEGER NOT NULL, address_index INTEGER NOT NULL, output_key BLOB NOT NULL, spend_tag BLOB,
                unlock_time TEXT NOT NULL, coinbase INTEGER NOT NULL, memo BLOB,
                spent_height INTEGER, spent_txid BLOB, PRIMARY KEY (txid, idx));
            CREATE INDEX IF NOT EXISTS outputs_spend_tag ON outputs (spend_tag);
            CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY, height INTEGER NOT NULL, record BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS address_table (account INTEGER NOT NULL, address_index INTEGER NOT NULL, key BLOB NOT NULL,
                PRIMARY KEY (account, address_index));
            CREATE TABLE IF NOT EXISTS pending_reported (txid BLOB NOT NULL, idx INTEGER NOT NULL, PRIMARY KEY (txid, idx));
            CREATE TABLE IF NOT EXISTS tallies (height INTEGER PRIMARY KEY, tally BLOB NOT NULL);
            \(stamp)
            """)
        let stored = try db.query("SELECT value FROM meta WHERE key = 'wallet'").first?.first?.text
        if let stored, stored != walletID {
            throw ScanStateError.walletMismatch("the state in \(path) belongs to another wallet")
        }
        if stored == nil {
            _ = try db.transaction {
                try db.query(
                    "INSERT INTO meta VALUES ('wallet', ?), ('birthday', ?), ('next_height', ?)",
                    [.text(walletID), .text(String(birthday)), .text(String(birthday))])
                for pool in pools { try setPoolScanned(pool, through: nil) }
            }
        }
    }

    /// Brings a state of an earlier schema to this one, in one transaction (a crash leaves
    /// the old schema, which the next run migrates again); a later schema is refused. The
    /// schema version the state has now (0: a new, empty file).
    static func migrate(_ db: SQLiteDatabase, path: String) throws -> Int {
        let version = Int(try db.query("PRAGMA user_version").first?.first?.int ?? 0)
        guard version <= schemaVersion else { throw ScanStateError.newerSchema(path: path, version: version) }
        guard version == 0, try !db.query("SELECT 1 FROM pragma_table_info('outputs') WHERE name = 'major'").isEmpty else { return version }
        _ = try db.transaction {
            try db.execute(
                """
                ALTER TABLE outputs RENAME COLUMN major TO account;
                ALTER TABLE outputs RENAME COLUMN minor TO address_index;
                ALTER TABLE outputs RENAME COLUMN key_image TO spend_tag;
                ALTER TABLE outputs RENAME COLUMN payment_id TO memo;
                DROP INDEX IF EXISTS outputs_key_image;
                CREATE INDEX outputs_spend_tag ON outputs (spend_tag);
                ALTER TABLE subaddresses RENAME TO address_table;
                ALTER TABLE address_table RENAME COLUMN major TO account;
                ALTER TABLE address_table RENAME COLUMN minor TO address_index;
                ALTER TABLE address_table RENAME COLUMN spend_key TO key;
                PRAGMA user_version = \(schemaVersion);
                """)
        }
        return schemaVersion
    }

    func meta(_ key: String) throws -> String? { try db.query("SELECT value FROM meta WHERE key = ?", [.text(key)]).first?.first?.text }

    /// Where a pool added after this state was made stands: nil when it was never scanned
    /// (an earlier version's state), `.done` when every stored block was scanned for it, or
    /// the next height its catch-up scans.
    enum PoolMark: Equatable { case done, next(Int) }

    func poolMark(_ pool: String) throws -> PoolMark? {
        guard let value = try meta("pool_scanned:" + pool) else { return nil }
        return value == "done" ? .done : Int(value).map { .next($0) }
    }

    /// Marks a pool scanned in every stored block (`through` nil), or up to `through` − 1.
    func setPoolScanned(_ pool: String, through next: Int?) throws {
        try db.query("INSERT OR REPLACE INTO meta VALUES (?, ?)", [.text("pool_scanned:" + pool), .text(next.map(String.init) ?? "done")])
    }

    /// Kept in memory too, so that a run of many wallets need not open every state to know
    /// where each stands; `forgetCached` drops it when a transaction did not commit.
    private var knownNextHeight: Int?

    var nextHeight: Int {
        get throws {
            if let knownNextHeight { return knownNextHeight }
            let h = Int(try meta("next_height") ?? "0") ?? 0
            knownNextHeight = h
            return h
        }
    }

    func setNextHeight(_ h: Int) throws {
        knownNextHeight = nil
        try db.query("UPDATE meta SET value = ? WHERE key = 'next_height'", [.text(String(h))])
    }

    /// What was read inside a transaction that was then rolled back is not the state's.
    func forgetCached() { knownNextHeight = nil }

    func blockHash(_ height: Int) throws -> [UInt8]? {
        try db.query("SELECT hash FROM blocks WHERE height = ?", [.int(Int64(height))]).first?.first?.blob
    }

    func addBlock(_ height: Int, hash: [UInt8], tally: [UInt8]?) throws {
        try db.query("INSERT OR REPLACE INTO blocks VALUES (?, ?)", [.int(Int64(height)), .blob(hash)])
        if let tally { try db.query("INSERT OR REPLACE INTO tallies VALUES (?, ?)", [.int(Int64(height)), .blob(tally)]) }
    }

    /// The chain's running totals at the end of a stored block, if its block said (a table of
    /// its own: states made before it simply have none, and their next block is not checked).
    func blockTally(_ height: Int) throws -> [UInt8]? {
        try db.query("SELECT tally FROM tallies WHERE height = ?", [.int(Int64(height))]).first?.first?.blob
    }

    /// The height an output (txid, index) was stored at, if it was.
    func outputHeight(txID: [UInt8], index: Int) throws -> Int? {
        try db.query("SELECT height FROM outputs WHERE txid = ? AND idx = ?", [.blob(txID), .int(Int64(index))]).first?.first?.int.map(
            Int.init)
    }

    func addOutput(_ o: ReceivedOutput) throws {
        try db.query(
            "INSERT OR IGNORE INTO outputs VALUES (?,?,?,?,?,?,?,?,?,?,?,NULL,NULL)",
            [
                .blob(o.txID), .int(Int64(o.index)), .int(Int64(o.height ?? -1)), .text(String(o.amount)),
                .int(Int64(o.account)), .int(Int64(o.addressIndex)), .blob(o.outputKey), o.spendTag.map { .blob($0) } ?? .null,
                .text(String(o.unlockTime)), .int(o.isCoinbase ? 1 : 0), o.memo.map { .blob($0) } ?? .null,
            ])
    }

    /// The owned unspent output with this spend tag, if there is one.
    func unspentOutput(spendTag: [UInt8]) throws -> ReceivedOutput? {
        try db.query("SELECT * FROM outputs WHERE spend_tag = ? AND spent_height IS NULL", [.blob(spendTag)]).first.map(Self.row)?.output
    }

    /// Any owned output with this spend tag, spent or not.
    func output(spendTag: [UInt8]) throws -> ReceivedOutput? {
        try db.query("SELECT * FROM outputs WHERE spend_tag = ? LIMIT 1", [.blob(spendTag)]).first.map(Self.row)?.output
    }

    /// Marks the owned output with this spend tag spent; the output it was, if it was one.
    func markSpent(spendTag: [UInt8], height: Int, txID: [UInt8]) throws -> ReceivedOutput? {
        let rows = try db.query("SELECT * FROM outputs WHERE spend_tag = ? AND spent_height IS NULL", [.blob(spendTag)])
        guard let output = rows.first.map(Self.row)?.output else { return nil }
        try db.query(
            "UPDATE outputs SET spent_height = ?, spent_txid = ? WHERE txid = ? AND idx = ?",
            [.int(Int64(height)), .blob(txID), .blob(output.txID), .int(Int64(output.index))])
        return output
    }

    /// Rolls back everything above `height` (kept: blocks ≤ height). Returns undone counts.
    func rollBack(above height: Int) throws -> (outputs: Int, spends: Int) {
        let outputs = try db.query("SELECT COUNT(*) FROM outputs WHERE height > ?", [.int(Int64(height))]).first?.first?.int ?? 0
        let spends =
            try db.query("SELECT COUNT(*) FROM outputs WHERE spent_height > ? AND height <= ?", [.int(Int64(height)), .int(Int64(height))])
            .first?.first?.int ?? 0
        try db.query("DELETE FROM outputs WHERE height > ?", [.int(Int64(height))])
        try db.query("UPDATE outputs SET spent_height = NULL, spent_txid = NULL WHERE spent_height > ?", [.int(Int64(height))])
        try db.query("DELETE FROM outbox WHERE height > ?", [.int(Int64(height))])
        try db.query("DELETE FROM blocks WHERE height > ?", [.int(Int64(height))])
        try db.query("DELETE FROM tallies WHERE height > ?", [.int(Int64(height))])
        try setNextHeight(height + 1)
        return (Int(outputs), Int(spends))
    }

    struct Row {
        let output: ReceivedOutput
        let spentHeight: Int?
        let spentTxID: [UInt8]?
    }

    func allOutputs() throws -> [Row] { try db.query("SELECT * FROM outputs ORDER BY height, txid, idx").map(Self.row) }

    private static func row(_ r: [SQLiteDatabase.Value]) -> Row {
        Row(
            output: ReceivedOutput(
                height: Int(r[2].int ?? -1), txID: r[0].blob ?? [], index: Int(r[1].int ?? 0),
                amount: UInt64(r[3].text ?? "0") ?? 0, account: UInt32(r[4].int ?? 0), addressIndex: UInt32(r[5].int ?? 0),
                spendTag: r[7].blob, memo: r[10].blob, unlockTime: UInt64(r[8].text ?? "0") ?? 0,
                isCoinbase: r[9].int == 1, outputKey: r[6].blob ?? []),
            spentHeight: r[11].int.map(Int.init), spentTxID: r[12].blob)
    }

    // MARK: - Outbox

    /// Adds encoded events; `encode` gets each event's id, which never repeats in this state
    /// (kept in meta, so ids stay unique after the rows are delivered and deleted).
    func enqueue(_ events: [(height: Int, event: ScanEvent)], encode: (ScanEvent, Int64) -> [UInt8]) throws {
        guard !events.isEmpty else { return }
        var id = Int64(try meta("last_event_id") ?? "0") ?? 0
        for (height, event) in events {
            id += 1
            try db.query("INSERT INTO outbox VALUES (?, ?, ?)", [.int(id), .int(Int64(height)), .blob(encode(event, id))])
        }
        try db.query("INSERT OR REPLACE INTO meta VALUES ('last_event_id', ?)", [.text(String(id))])
    }

    /// Events committed but not yet delivered, oldest first.
    func outbox() throws -> [(id: Int64, record: [UInt8])] {
        try db.query("SELECT id, record FROM outbox ORDER BY id").map { ($0[0].int ?? 0, $0[1].blob ?? []) }
    }

    /// Where the delivery of the outbox began, recorded before its write.
    func deliveryMark() throws -> SinkPosition? {
        let parts = (try meta("delivery") ?? "").split(separator: ":")
        guard parts.count == 3, let d = UInt64(parts[0]), let i = UInt64(parts[1]), let o = Int64(parts[2]) else { return nil }
        return SinkPosition(device: d, inode: i, offset: o)
    }

    func setDeliveryMark(_ mark: SinkPosition?) throws {
        if let mark {
            try db.query("INSERT OR REPLACE INTO meta VALUES ('delivery', ?)", [.text("\(mark.device):\(mark.inode):\(mark.offset)")])
        } else {
            try db.query("DELETE FROM meta WHERE key = 'delivery'")
        }
    }

    /// The outbox up to `id` was delivered.
    func delivered(through id: Int64) throws {
        try db.query("DELETE FROM outbox WHERE id <= ?", [.int(id)])
        try setDeliveryMark(nil)
    }

    /// The address table of earlier runs: deriving 10,000 keys on every cron run is waste.
    func addresses() throws -> [AddressEntry] {
        try db.query("SELECT account, address_index, key FROM address_table").map {
            AddressEntry(account: UInt32($0[0].int ?? 0), index: UInt32($0[1].int ?? 0), key: $0[2].blob ?? [])
        }
    }

    func addAddresses(_ entries: [AddressEntry]) throws {
        for e in entries {
            try db.query(
                "INSERT OR IGNORE INTO address_table VALUES (?, ?, ?)", [.int(Int64(e.account)), .int(Int64(e.index)), .blob(e.key)])
        }
    }

    func pendingAlreadyReported(_ txid: [UInt8], _ index: Int) throws -> Bool {
        try !db.query("SELECT 1 FROM pending_reported WHERE txid = ? AND idx = ?", [.blob(txid), .int(Int64(index))]).isEmpty
    }

    func notePendingReported(_ txid: [UInt8], _ index: Int) throws {
        try db.query("INSERT OR IGNORE INTO pending_reported VALUES (?, ?)", [.blob(txid), .int(Int64(index))])
    }
}
