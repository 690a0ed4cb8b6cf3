import CLevelDB
import Foundation
import WalletCore
import WalletScan

/// A node's block index (`blocks/index`, LevelDB): where each block it stored lies, its data
/// and its undo data. Read for the undo record of a block whose parent has another child in
/// the block files (a reorg): both siblings' records name that parent in their checksums, and
/// only the index says which is whose.
///
/// Read from bitcoin/bitcoin src/chain.h (CDiskBlockIndex's serialization: VARINT client
/// version, height, status, transaction count; the file when BLOCK_HAVE_DATA (8) or
/// BLOCK_HAVE_UNDO (16) is set, the data position with the first, the undo position with the
/// second; then the header), src/txdb.cpp (DB_BLOCK_INDEX 'b' ‖ the block hash, the block tree
/// DB unobfuscated), src/node/blockstorage.cpp (UndoWriteToDisk: the undo position is the
/// record's first byte after magic and size), and litecoin-project/litecoin src/chain.h
/// @ 127ee52d (the same fields first; its MWEB fields come after the undo position).
///
/// The node holds the database's lock while it runs, and a scanner must not write into the
/// node's directory (opening a LevelDB may recover its log into a new table): the directory is
/// copied into a private temporary one, opened there, and removed when this is released.
final class NodeBlockIndex {
    private let db: OpaquePointer
    private let options: OpaquePointer
    private let readOptions: OpaquePointer
    private let copy: String

    /// Where a block's undo record lies.
    struct UndoPlace: Equatable {
        let file: Int
        let position: Int
    }

    init(directory: String) throws {
        guard FileManager.default.fileExists(atPath: directory + "/CURRENT") else {
            throw ScanError.unsupported("\(directory) is not the node's block index (LevelDB, with its CURRENT file)")
        }
        let template = NSTemporaryDirectory() + "satchel-block-index-XXXXXX"
        var name = Array(template.utf8CString)
        guard let made = mkdtemp(&name) else { throw ScanError.unreadable(template, "cannot make a temporary directory") }
        copy = String(cString: made)
        do {
            // Every file but the lock, whose holder is the node.
            for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file != "LOCK" {
                try FileManager.default.copyItem(atPath: directory + "/" + file, toPath: copy + "/" + file)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: copy)
            throw ScanError.unreadable(directory, "cannot copy the node's block index: \(error.localizedDescription)")
        }
        options = leveldb_options_create()
        leveldb_options_set_create_if_missing(options, 0)
        readOptions = leveldb_readoptions_create()
        var error: UnsafeMutablePointer<CChar>?
        let opened = leveldb_open(options, copy, &error)
        guard let opened, error == nil else {
            let why = error.map { String(cString: $0) } ?? "unknown error"
            if let error { leveldb_free(error) }
            leveldb_readoptions_destroy(readOptions)
            leveldb_options_destroy(options)
            try? FileManager.default.removeItem(atPath: copy)
            throw ScanError.unreadable(directory, "the node's block index does not open (LevelDB: \(why))")
        }
        db = opened
    }

    deinit {
        leveldb_close(db)
        leveldb_readoptions_destroy(readOptions)
        leveldb_options_destroy(options)
        try? FileManager.default.removeItem(atPath: copy)
    }

    /// The undo record's place of the block with this hash (internal byte order); nil when the
    /// index does not hold the block, or holds no undo data for it (not connected, or not yet
    /// written: a running node writes its index to disk from time to time).
    func undoPlace(of hash: [UInt8]) throws -> UndoPlace? {
        let key: [UInt8] = [UInt8(ascii: "b")] + hash
        var length = 0
        var error: UnsafeMutablePointer<CChar>?
        let value = key.withUnsafeBufferPointer { k in
            k.withMemoryRebound(to: CChar.self) { leveldb_get(db, readOptions, $0.baseAddress, k.count, &length, &error) }
        }
        if let error {
            let why = String(cString: error)
            leveldb_free(error)
            throw ScanError.unreadable(copy, "the node's block index: \(why)")
        }
        guard let value else { return nil }
        defer { leveldb_free(value) }
        let bytes = Array(UnsafeRawBufferPointer(start: value, count: length))
        return try Self.undoPlace(record: bytes, what: "the block index's record of \(Hex.encode(hash.reversed()))")
    }

    static let haveData: UInt64 = 8
    static let haveUndo: UInt64 = 16

    /// CDiskBlockIndex's fields up to the undo position.
    static func undoPlace(record: [UInt8], what: String) throws(ScanError) -> UndoPlace? {
        var reader = ByteReader(record, what: what)
        _ = try reader.coreVarInt()  // the client version that wrote it
        _ = try reader.coreVarInt()  // height
        let status = try reader.coreVarInt()
        _ = try reader.coreVarInt()  // transactions
        guard status & haveUndo != 0 else { return nil }
        let file = try reader.coreVarInt()
        if status & haveData != 0 { _ = try reader.coreVarInt() }
        let position = try reader.coreVarInt()
        guard file < 1 << 31, position < 1 << 40 else { throw .malformed(what: what, reason: "a file number or position out of range") }
        return UndoPlace(file: Int(file), position: Int(position))
    }
}
