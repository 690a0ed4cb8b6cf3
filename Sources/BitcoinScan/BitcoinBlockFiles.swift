import Bitcoin
import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import WalletCore
import WalletScan

/// A node's block files (`blocks/blk*.dat`: network magic ‖ size ‖ block, over and over, zeros
/// after the last), plain or zstd, a directory of them or one file. Blocks lie in the order
/// they arrived, stale ones among them, so the files are read twice: first each block's header
/// (its hash, parent and nBits) to find the chain with the most cumulative work from the
/// genesis block — as a node follows it, never the most blocks: test networks have
/// minimum-difficulty blocks —, each header's proof of work checked where branches compete,
/// then the blocks of that chain in height order. Bitcoin Core 28's obfuscation (`xor.dat` beside the files)
/// is undone. Plain files are read block by block where the index says; a zstd file cannot be
/// read at an offset, so it is decompressed whole when a block in it is wanted, and the last
/// two are kept (blocks that arrived out of order lie near a file's end or the next's start).
public final class BitcoinBlockFileSource: BlockSource, @unchecked Sendable {  // every use after init holds `lock`
    struct File {
        let path: String
        let name: String
        let zstd: Bool
    }

    /// Where one block lies: which file, the offset of its first byte there, and its size.
    struct Place {
        let file: Int32
        let size: UInt32
        let offset: Int
    }

    private let files: [File]
    /// Bitcoin Core 28's `xor.dat`: byte i of every file is XORed with key[i % 8]; nil: none.
    private let key: [UInt8]?
    /// The chain, by height: where each block lies, and its hash.
    private let chain: [Place]
    private let hashes: [[UInt8]]
    /// The chain's heights whose block has a sibling in the files (a reorg): its undo record
    /// and the sibling's both name their parent, and only the node's block index tells them apart.
    private let contested: Set<Int>
    /// The node's block index (blocks/index beside the files), opened when a contested block's
    /// undo data is first wanted.
    private let indexDirectory: String
    private var blockIndex: NodeBlockIndex?
    private let lock = NSLock()
    private var cached = [(file: Int32, bytes: [UInt8])]()
    /// Plain files open for reading, by number (a few at a time).
    private var descriptors = [Int32: Int32]()
    /// With `spentOutputs`: the network's magic, to read the undo files with.
    private let undoMagic: [UInt8]?
    private let dialect: BitcoinDialect
    /// The undo data of the chain's blocks in the last undo file read, by height (read into
    /// scripts when its block is: a file's worth of scripts is millions of small arrays).
    private var undo: (file: Int32, byHeight: [Int: ArraySlice<UInt8>])?

    /// `path`: a directory holding blk*.dat (or blk*.dat.zst) files, or one such file. `magic`:
    /// the network's four bytes before each block; `proofOfWork`: the chain's.
    /// `spentOutputs`: each block comes with what its inputs spend, read from the undo file
    /// beside its block file (rev00042.dat beside blk00042.dat), for silent payments.
    public init(
        path: String, magic: [UInt8], proofOfWork: ProofOfWork, spentOutputs: Bool = false, dialect: BitcoinDialect = .bitcoin
    ) throws {
        undoMagic = spentOutputs ? magic : nil
        self.dialect = dialect
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ScanError.unreadable(path, "no such file or directory")
        }
        var found = [File]()
        let directory: String
        if isDirectory.boolValue {
            directory = path
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            found = names.compactMap { name -> (Int, File)? in
                guard name.hasPrefix("blk"), let number = Int(name.dropFirst(3).prefix { $0.isNumber }) else { return nil }
                let rest = name.dropFirst(3).drop { $0.isNumber }
                guard rest == ".dat" || rest == ".dat.zst" else { return nil }
                return (number, File(path: path + "/" + name, name: name, zstd: rest == ".dat.zst"))
            }.sorted { $0.0 < $1.0 }.map(\.1)
            guard !found.isEmpty else { throw ScanError.unsupported("\(path) holds no block files (blk00000.dat, …, plain or .zst)") }
        } else {
            directory = (path as NSString).deletingLastPathComponent
            found = [File(path: path, name: (path as NSString).lastPathComponent, zstd: try Self.isZstd(path))]
        }
        files = found
        key = try Self.obfuscationKey(directory: directory.isEmpty ? "." : directory)
        (chain, hashes, contested) = try Self.index(found, magic: magic, key: key, proofOfWork: proofOfWork)
        indexDirectory = (directory.isEmpty ? "." : directory) + "/index"
    }

    deinit {
        for fd in descriptors.values { close(fd) }
    }

    public func chainHeight() throws -> Int? { chain.count }

    public func blocks(from height: Int, count: Int) throws -> [BlockData] {
        lock.lock()
        defer { lock.unlock() }
        guard height >= 0, height < chain.count else { return [] }
        return try (height..<min(chain.count, height + count)).map { h in
            BlockData(
                height: h, blob: try read(chain[h]), transactions: [], claimedID: hashes[h],
                spent: undoMagic == nil ? nil : try spentScripts(h))
        }
    }

    /// The scripts block `h`'s inputs spend, from the undo file beside its block file. Records
    /// there are in the order the node connected the blocks, not the block file's; each names
    /// its block's parent in its checksum (SHA256d of the parent's hash and the undo data). A
    /// block alone among the files' blocks with its parent owns the one record that names it;
    /// a block with a sibling (a reorg) shares that parent with the sibling's record, and its
    /// own is the one the node's block index places (`NodeBlockIndex`), never a guess.
    private func spentScripts(_ h: Int) throws -> [[UInt8]] {
        guard h > 0, let magic = undoMagic else { return [] }  // the genesis block spends nothing
        let number = chain[h].file
        let name = "rev" + files[Int(number)].name.dropFirst(3)
        if undo?.file != number {
            let blocks = files[Int(number)]
            let path = (blocks.path as NSString).deletingLastPathComponent + "/" + name
            guard FileManager.default.fileExists(atPath: path) else {
                throw ScanError.unsupported(
                    "silent payments need what each input spends: \(name) is not beside \(blocks.name) (give the node's whole blocks directory; a pruned node has dropped it)"
                )
            }
            let bytes = try Self.wholeFile(File(path: path, name: name, zstd: blocks.zstd), key: key)
            let records = try BitcoinUndo.records(bytes, magic: magic, name: name)
            var pending = chain.indices.filter { $0 > 0 && chain[$0].file == number && !contested.contains($0) }
            var byHeight: [Int: ArraySlice<UInt8>] = [:]
            for record in records {
                // Usually the next block in height order; else any not yet matched.
                guard let hit = pending.firstIndex(where: { record.belongs(after: hashes[$0 - 1]) }) else { continue }
                byHeight[pending.remove(at: hit)] = record.data
            }
            for c in contested.sorted() where chain[c].file == number {
                byHeight[c] = try contestedRecord(c, records: records, file: number, name: name)
            }
            undo = (number, byHeight)
        }
        guard let data = undo?.byHeight[h] else {
            throw ScanError.unsupported(
                "silent payments need what each input spends, and the undo file beside block \(h)'s has no record for it (the node has not connected it yet?)"
            )
        }
        return try BitcoinUndo.spentScripts(data, dialect: dialect, what: "\(name), block \(h)'s undo data")
    }

    /// The undo record of block `h`, whose parent has another child in the files: the one at
    /// the place the node's block index gives, which must name that parent.
    private func contestedRecord(_ h: Int, records: [BitcoinUndo.Record], file: Int32, name: String) throws -> ArraySlice<UInt8> {
        let why =
            "block \(h)'s parent has another child in the block files (a reorg), and both their undo records name that parent"
        if blockIndex == nil {
            guard FileManager.default.fileExists(atPath: indexDirectory) else {
                throw ScanError.unsupported(
                    "\(why): only the node's block index tells them apart, and \(indexDirectory) is not there (give the node's whole blocks directory, index/ with it)"
                )
            }
            blockIndex = try NodeBlockIndex(directory: indexDirectory)
        }
        guard let place = try blockIndex!.undoPlace(of: hashes[h]) else {
            throw ScanError.unsupported(
                "\(why), and the node's block index (\(indexDirectory)) does not place block \(h)'s yet (a running node writes its index to disk from time to time): run again later or once the node is stopped, or give what the inputs spend another way (--node, or JSON Lines with \"spent\")"
            )
        }
        guard place.file == Int(file), let record = records.first(where: { $0.data.startIndex == place.position }),
            record.belongs(after: hashes[h - 1])
        else {
            throw ScanError.malformed(
                what: name,
                reason:
                    "the node's block index places block \(h)'s undo data at byte \(place.position) of rev\(String(format: "%05d", place.file)).dat, and no record there names its parent"
            )
        }
        return record.data
    }

    public func mempool() throws -> [[UInt8]] { [] }

    // MARK: - Reading

    /// One block's bytes, obfuscation undone.
    private func read(_ place: Place) throws -> [UInt8] {
        let file = files[Int(place.file)]
        if file.zstd {
            let whole = try decompressed(place.file)
            return Array(whole[place.offset..<place.offset + Int(place.size)])
        }
        let fd: Int32
        if let known = descriptors[place.file] {
            fd = known
        } else {
            if descriptors.count >= 8, let (other, otherFD) = descriptors.first {
                close(otherFD)
                descriptors[other] = nil
            }
            fd = Glibc.open(file.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ScanError.unreadable(file.path, String(cString: strerror(errno))) }
            descriptors[place.file] = fd
        }
        // Read into uninitialized memory: zeroing a block first costs a pass over it, and the
        // page faults of fresh memory would then be taken there.
        var bytes = try [UInt8](unsafeUninitializedCapacity: Int(place.size)) { buffer, initialized in
            try Self.pread(fd, into: UnsafeMutableRawBufferPointer(buffer), at: place.offset, name: file.name)
            initialized = buffer.count
        }
        if let key { Self.unmask(&bytes, at: place.offset, key: key) }
        return bytes
    }

    /// A zstd file's contents, decompressed (and unmasked); the last two are kept.
    private func decompressed(_ index: Int32) throws -> [UInt8] {
        if let hit = cached.firstIndex(where: { $0.file == index }) { return cached[hit].bytes }
        let bytes = try Self.wholeFile(files[Int(index)], key: key)
        if cached.count >= 2 { cached.removeFirst() }
        cached.append((index, bytes))
        return bytes
    }

    static func wholeFile(_ file: File, key: [UInt8]?) throws -> [UInt8] {
        let stream = try ByteStream(path: file.path)
        var bytes = [UInt8]()
        while try stream.next({ bytes.append(contentsOf: $0) }) {}
        if let key { unmask(&bytes, at: 0, key: key) }
        return bytes
    }

    static func pread(_ fd: Int32, into bytes: inout [UInt8], at offset: Int, name: String) throws {
        try bytes.withUnsafeMutableBytes { try pread(fd, into: $0, at: offset, name: name) }
    }

    /// Fills `buffer` from `offset` on, or throws.
    static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int, name: String) throws {
        var done = 0
        while done < buffer.count {
            let n = Glibc.pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw ScanError.unreadable(name, String(cString: strerror(errno)))
            }
            if n == 0 { throw ScanError.malformed(what: name, reason: "it ends early (at byte \(offset + done))") }
            done += n
        }
    }

    static func unmask(_ bytes: inout [UInt8], at offset: Int, key: [UInt8]) {
        for i in bytes.indices { bytes[i] ^= key[(offset + i) & 7] }
    }

    static func isZstd(_ path: String) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ScanError.unreadable(path, "cannot open it") }
        defer { try? handle.close() }
        return Array((try? handle.read(upToCount: 4)) ?? Data()) == Zstd.magic
    }

    /// `xor.dat` in the directory: eight bytes, all zero when the node does not obfuscate.
    static func obfuscationKey(directory: String) throws -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: directory + "/xor.dat") else { return nil }
        guard data.count == 8 else {
            throw ScanError.malformed(what: directory + "/xor.dat", reason: "it holds \(data.count) bytes, not the 8 of a key")
        }
        let key = Array(data)
        return key.allSatisfy { $0 == 0 } ? nil : key
    }

    // MARK: - The index

    /// A block's hash as a dictionary key.
    struct Key: Hashable {
        let a: UInt64, b: UInt64, c: UInt64, d: UInt64
        init(_ bytes: UnsafeRawBufferPointer) {
            (a, b, c, d) = (
                bytes.loadUnaligned(as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
            )
        }
        init(_ bytes: [UInt8]) { self = bytes.withUnsafeBytes { Key($0) } }
        static let zero = Key([UInt8](repeating: 0, count: 32))
    }

    /// Every block's header, in the files' order: the chain with the most work from the genesis
    /// block (ties: the block seen first), as places and hashes by height. Each header's proof
    /// of work is checked where branches compete (a block whose parent has another child, and
    /// all after it): a branch that fails it, from that block on, is no chain.
    static func index(
        _ files: [File], magic: [UInt8], key: [UInt8]?, proofOfWork: ProofOfWork
    ) throws -> ([Place], [[UInt8]], contested: Set<Int>) {
        var places = [Place](), ids = [Key](), parents = [Key](), hashes = [[UInt8]](), bits = [UInt32]()
        var position = [Key: Int]()
        for (number, file) in files.enumerated() {
            try headers(of: file, magic: magic, key: key, last: number == files.count - 1) { offset, size, header in
                let hash = Bitcoin.sha256d(header)
                let id = Key(hash)
                guard position[id] == nil else { return }  // the same block twice (a re-download): the first counts
                position[id] = places.count
                places.append(Place(file: Int32(number), size: size, offset: offset))
                ids.append(id)
                parents.append(Key(UnsafeRawBufferPointer(rebasing: header[4..<36])))
                hashes.append(hash)
                bits.append(header.loadUnaligned(fromByteOffset: 72, as: UInt32.self).littleEndian)
            }
        }
        // Heights: a block's is its parent's plus one; the genesis block's (parent zero) is 0;
        // a block whose ancestry leaves the files has none.
        var height = [Int](repeating: -2, count: places.count)  // -2: not yet known, -1: none
        for start in places.indices where height[start] == -2 {
            var path = [Int]()
            var i = start
            var base: Int
            while true {
                if height[i] != -2 {
                    base = height[i]
                    break
                }
                if parents[i] == .zero {
                    (height[i], base) = (0, 0)
                    break
                }
                path.append(i)
                guard let parent = position[parents[i]] else {
                    base = -1
                    break
                }
                i = parent
            }
            for j in path.reversed() {
                base = base < 0 ? -1 : base + 1
                height[j] = base
            }
        }
        // Cumulative work, parents before children; proof of work where branches compete.
        let order = places.indices.filter { height[$0] >= 0 }.sorted { (height[$0], $0) < (height[$1], $1) }
        var children = [Int](repeating: 0, count: places.count)
        for i in order where height[i] > 0 { children[position[parents[i]]!] += 1 }
        var competing = [Bool](repeating: false, count: places.count)
        var valid = [Bool](repeating: true, count: places.count)
        var work = [Work](repeating: .zero, count: places.count)
        var proofs = [UInt32: Work]()
        var reader = HeaderReader(files: files, key: key)
        for i in order {
            let parent = height[i] > 0 ? position[parents[i]] : nil
            if let parent {
                competing[i] = competing[parent] || children[parent] > 1
                valid[i] = valid[parent]
            }
            if competing[i] && valid[i] { valid[i] = proofOfWork.isValid(try reader.header(places[i])) }
            let own: Work
            if let known = proofs[bits[i]] { own = known } else { own = Work.proof(compact: bits[i]); proofs[bits[i]] = own }
            work[i] = (parent.map { work[$0] } ?? .zero).adding(own)
        }
        guard let tip = order.filter({ valid[$0] }).max(by: { work[$0] < work[$1] || (work[$0] == work[$1] && $0 > $1) }) else {
            throw ScanError.unsupported(
                "the block files hold no genesis block (a block whose parent is zero): give the node's whole blocks directory, from blk00000.dat on"
            )
        }
        var chain = [Place](repeating: places[tip], count: height[tip] + 1)
        var chainHashes = [[UInt8]](repeating: [], count: height[tip] + 1)
        var contested = Set<Int>()
        var i = tip
        while true {
            chain[height[i]] = places[i]
            chainHashes[height[i]] = hashes[i]
            guard height[i] > 0 else { break }
            i = position[parents[i]]!
            if children[i] > 1 { contested.insert(height[i] + 1) }
        }
        return (chain, chainHashes, contested)
    }

    /// A block's 80-byte header again, for its proof of work (a zstd file decompressed whole,
    /// the last one kept).
    struct HeaderReader {
        let files: [File]
        let key: [UInt8]?
        var cached: (file: Int32, bytes: [UInt8])?

        mutating func header(_ place: Place) throws -> [UInt8] {
            let file = files[Int(place.file)]
            if file.zstd {
                if cached?.file != place.file { cached = (place.file, try BitcoinBlockFileSource.wholeFile(file, key: key)) }
                return Array(cached!.bytes[place.offset..<place.offset + 80])
            }
            let fd = Glibc.open(file.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ScanError.unreadable(file.path, String(cString: strerror(errno))) }
            defer { close(fd) }
            var bytes = [UInt8](repeating: 0, count: 80)
            try BitcoinBlockFileSource.pread(fd, into: &bytes, at: place.offset, name: file.name)
            if let key { BitcoinBlockFileSource.unmask(&bytes, at: place.offset, key: key) }
            return bytes
        }
    }

    /// Calls `body` with each block's offset, size and 80-byte header (unmasked). Zeros where
    /// the magic is due end the file (the node writes ahead in zeroed chunks); so does a block
    /// cut short at the end of the last file (the node may be writing it).
    static func headers(
        of file: File, magic: [UInt8], key: [UInt8]?, last: Bool,
        _ body: (Int, UInt32, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var prefix = [UInt8](repeating: 0, count: 88)
        if file.zstd {
            let bytes = try wholeFile(file, key: key)
            var at = 0
            while at + 8 <= bytes.count {
                prefix = Array(bytes[at..<min(bytes.count, at + 88)])
                guard let size = try frame(prefix, at: at, of: file, magic: magic) else { return }
                guard prefix.count == 88, at + 8 + Int(size) <= bytes.count else {
                    if last { return }
                    throw ScanError.malformed(what: file.name, reason: "the block at byte \(at) ends early (it says \(size) bytes)")
                }
                try prefix.withUnsafeBytes { try body(at + 8, size, UnsafeRawBufferPointer(rebasing: $0[8..<88])) }
                at += 8 + Int(size)
            }
            return
        }
        let fd = Glibc.open(file.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ScanError.unreadable(file.path, String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ScanError.unreadable(file.path, String(cString: strerror(errno))) }
        let length = Int(info.st_size)
        var at = 0
        while at + 8 <= length {
            prefix = [UInt8](repeating: 0, count: min(88, length - at))
            try pread(fd, into: &prefix, at: at, name: file.name)
            if let key { unmask(&prefix, at: at, key: key) }
            guard let size = try frame(prefix, at: at, of: file, magic: magic) else { return }
            guard prefix.count == 88, at + 8 + Int(size) <= length else {
                if last { return }
                throw ScanError.malformed(what: file.name, reason: "the block at byte \(at) ends early (it says \(size) bytes)")
            }
            try prefix.withUnsafeBytes { try body(at + 8, size, UnsafeRawBufferPointer(rebasing: $0[8..<88])) }
            at += 8 + Int(size)
        }
    }

    /// The size a block's 8-byte prefix gives; nil at the zeros that end a file.
    private static func frame(_ prefix: [UInt8], at offset: Int, of file: File, magic: [UInt8]) throws -> UInt32? {
        if prefix[0..<4].allSatisfy({ $0 == 0 }) { return nil }
        guard Array(prefix[0..<4]) == magic else {
            throw ScanError.malformed(
                what: file.name,
                reason:
                    "at byte \(offset): \(Hex.encode(Array(prefix[0..<4]))) is not this network's magic \(Hex.encode(magic)) (another network's files?)"
            )
        }
        let size = prefix[4..<8].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard size >= 81, Int(size) <= Bitcoin.maxBlockSize else {
            throw ScanError.malformed(what: file.name, reason: "the block at byte \(offset) says it has \(size) bytes")
        }
        return size
    }
}
