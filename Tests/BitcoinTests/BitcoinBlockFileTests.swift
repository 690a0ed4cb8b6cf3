import Foundation
import SatchelTestSupport
import WalletCore
import WalletScan
import XCTest
@testable import Bitcoin
@testable import BitcoinScan

/// blk*.dat files as a node writes them: blocks out of order and across files, a stale
/// branch, zeros after the last block, Bitcoin Core 28's xor.dat, zstd copies; and refusals.
final class BitcoinBlockFileTests: XCTestCase {
    static let magic: [UInt8] = [0xFA, 0xBF, 0xB5, 0xDA]  // regtest
    var dir = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory("blk")
    }

    /// A real block (Litecoin regtest 432) as the body of every test block: only its header changes.
    private lazy var body: [UInt8] = {
        let hex = try! String(contentsOf: TestPaths.projectFixture("litecoin-regtest/block432.hex"), encoding: .utf8)
        return try! Hex.decode(hex.trimmingCharacters(in: .whitespacesAndNewlines))
    }()

    /// A block whose parent is `parent` (nil: zero, a genesis block); `nonce` tells siblings
    /// apart. Its header meets its target (regtest's, `bits` if given), as SHA256d proof of
    /// work: the nonce is ground from `nonce` · 10^6 on; `valid: false` grinds for a miss.
    private func block(parent: [UInt8]?, nonce: UInt32 = 0, bits: UInt32? = nil, valid: Bool = true) -> [UInt8] {
        var b = body
        b.replaceSubrange(4..<36, with: parent ?? [UInt8](repeating: 0, count: 32))
        if let bits { b.replaceSubrange(72..<76, with: withUnsafeBytes(of: bits.littleEndian) { Array($0) }) }
        var n = nonce * 1_000_000
        repeat {
            b.replaceSubrange(76..<80, with: withUnsafeBytes(of: n.littleEndian) { Array($0) })
            n += 1
        } while ProofOfWork.sha256d.isValid(Array(b[0..<80])) != valid
        return b
    }

    private func hash(_ block: [UInt8]) -> [UInt8] { Bitcoin.sha256d(Array(block[0..<80])) }

    private func framed(_ blocks: [[UInt8]], zeros: Int = 0) -> [UInt8] {
        blocks.flatMap { b in Self.magic + withUnsafeBytes(of: UInt32(b.count).littleEndian) { Array($0) } + b }
            + [UInt8](repeating: 0, count: zeros)
    }

    private func write(_ bytes: [UInt8], _ name: String, key: [UInt8]? = nil) throws {
        var out = bytes
        if let key { BitcoinBlockFileSource.unmask(&out, at: 0, key: key) }
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(out)))
    }

    /// genesis ← b1 ← b2 ← b3, and a stale sibling of b1; b2 lies before b1, across files.
    private func chain() -> (main: [[UInt8]], stale: [UInt8], files: [[UInt8]]) {
        let genesis = block(parent: nil)
        let b1 = block(parent: hash(genesis)), stale = block(parent: hash(genesis), nonce: 7)
        let b2 = block(parent: hash(b1)), b3 = block(parent: hash(b2))
        return ([genesis, b1, b2, b3], stale, [framed([genesis, stale, b2], zeros: 4096), framed([b1, b3], zeros: 100)])
    }

    private func assertServes(
        _ source: BitcoinBlockFileSource, _ main: [[UInt8]], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(try source.chainHeight(), main.count, file: file, line: line)
        let served = try source.blocks(from: 0, count: 10)
        XCTAssertEqual(served.map(\.height), Array(0..<main.count), file: file, line: line)
        XCTAssertEqual(served.map(\.blob), main, file: file, line: line)
        XCTAssertEqual(served.map(\.claimedID), main.map(hash), file: file, line: line)
        XCTAssertEqual(try source.blocks(from: 2, count: 1).map(\.blob), [main[2]], file: file, line: line)
        XCTAssertEqual(try source.blocks(from: main.count, count: 5).count, 0, file: file, line: line)
    }

    func testTheLongestChainInHeightOrder() throws {
        let (main, _, files) = chain()
        try write(files[0], "blk00000.dat")
        try write(files[1], "blk00001.dat")
        try write([1, 2, 3], "rev00000.dat")  // not a block file: left alone
        try assertServes(try BitcoinBlockFileSource(path: dir, magic: Self.magic, proofOfWork: .sha256d), main)
    }

    func testObfuscatedFiles() throws {
        let (main, _, files) = chain()
        let key: [UInt8] = [0x5A, 0x01, 0xFF, 0x80, 0x33, 0x00, 0x9C, 0x42]
        try write(files[0], "blk00000.dat", key: key)
        try write(files[1], "blk00001.dat", key: key)
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/xor.dat", contents: Data(key)))
        try assertServes(try BitcoinBlockFileSource(path: dir, magic: Self.magic, proofOfWork: .sha256d), main)
        // Without the key the magic is not found: said, not misread.
        try FileManager.default.removeItem(atPath: dir + "/xor.dat")
        XCTAssertThrowsError(try BitcoinBlockFileSource(path: dir, magic: Self.magic, proofOfWork: .sha256d)) { error in
            XCTAssertEqual(
                error as? ScanError,
                .malformed(
                    what: "blk00000.dat", reason: "at byte 0: a0be4a5a is not this network's magic fabfb5da (another network's files?)"))
        }
    }

    func testZstdFiles() throws {
        let (main, _, files) = chain()
        for (i, bytes) in files.enumerated() {
            try write(bytes, "plain\(i)")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/zstd")
            p.arguments = ["-q", "-f", dir + "/plain\(i)", "-o", dir + String(format: "/blk%05d.dat.zst", i)]
            try p.run()
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0)
            try FileManager.default.removeItem(atPath: dir + "/plain\(i)")
        }
        try assertServes(try BitcoinBlockFileSource(path: dir, magic: Self.magic, proofOfWork: .sha256d), main)
    }

    /// One file given by name, holding the whole chain.
    func testOneFile() throws {
        let (main, stale, _) = chain()
        try write(framed([main[0], main[1], stale, main[2], main[3]]), "blk00000.dat")
        try assertServes(try BitcoinBlockFileSource(path: dir + "/blk00000.dat", magic: Self.magic, proofOfWork: .sha256d), main)
    }

    /// A block cut short ends the last file (the node may be writing it); in an earlier file it
    /// is an error.
    func testACutBlock() throws {
        let (main, _, _) = chain()
        let whole = framed(Array(main[0..<3]))
        try write(whole + framed([main[3]]).dropLast(10), "blk00000.dat")
        try assertServes(try BitcoinBlockFileSource(path: dir, magic: Self.magic, proofOfWork: .sha256d), Array(main[0..<3]))
        try write(framed([main[3]]), "blk00001.dat")
        XCTAssertThrowsError(try BitcoinBlockFileSource(path: dir, magic: Self.magic, proofOfWork: .sha256d)) { error in
            XCTAssertEqual(
                error as? ScanError,
                .malformed(what: "blk00000.dat", reason: "the block at byte \(whole.count) ends early (it says \(main[3].count) bytes)"))
        }
    }

    func testRefusals() throws {
        let (main, _, _) = chain()
        // No genesis block: heights cannot be known.
        try write(framed([main[1], main[2]]), "blk00000.dat")
        XCTAssertThrowsError(try BitcoinBlockFileSource(path: dir, magic: Self.magic, proofOfWork: .sha256d)) { error in
            XCTAssertEqual(
                error as? ScanError,
                .unsupported(
                    "the block files hold no genesis block (a block whose parent is zero): give the node's whole blocks directory, from blk00000.dat on"
                ))
        }
        // Mainnet's magic in regtest files.
        try write(framed([main[0]]), "blk00000.dat")
        XCTAssertThrowsError(try BitcoinBlockFileSource(path: dir, magic: [0xF9, 0xBE, 0xB4, 0xD9], proofOfWork: .sha256d)) { error in
            XCTAssertEqual(
                error as? ScanError,
                .malformed(
                    what: "blk00000.dat", reason: "at byte 0: fabfb5da is not this network's magic f9beb4d9 (another network's files?)"))
        }
        // A size no block has.
        try write(Self.magic + [0xFF, 0xFF, 0xFF, 0x7F] + main[0], "blk00000.dat")
        XCTAssertThrowsError(try BitcoinBlockFileSource(path: dir, magic: Self.magic, proofOfWork: .sha256d)) { error in
            XCTAssertEqual(
                error as? ScanError, .malformed(what: "blk00000.dat", reason: "the block at byte 0 says it has 2147483647 bytes"))
        }
        let empty = dir + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        XCTAssertThrowsError(try BitcoinBlockFileSource(path: empty, magic: Self.magic, proofOfWork: .sha256d)) { error in
            XCTAssertEqual(error as? ScanError, .unsupported("\(empty) holds no block files (blk00000.dat, …, plain or .zst)"))
        }
    }
}

/// The chain a node follows (#42): the most cumulative work, not the most blocks, and a
/// header's proof of work checked where branches compete.
extension BitcoinBlockFileTests {
    /// genesis ← h1 ← h2 at nBits 0x1f7fffff (each about 512 times regtest's work), against
    /// genesis ← e1 … e4 at regtest's minimum difficulty: the shorter branch has more work.
    func testTheMostWorkNotTheMostBlocks() throws {
        let genesis = block(parent: nil)
        let h1 = block(parent: hash(genesis), bits: 0x1F7F_FFFF), h2 = block(parent: hash(h1), bits: 0x1F7F_FFFF)
        var easy = [block(parent: hash(genesis), nonce: 7)]
        for n in 8...10 { easy.append(block(parent: hash(easy.last!), nonce: UInt32(n))) }
        try write(framed([genesis] + easy + [h1, h2]), "blk00000.dat")
        try assertServes(try BitcoinBlockFileSource(path: dir, magic: Self.magic, proofOfWork: .sha256d), [genesis, h1, h2])
        XCTAssertEqual(Work.proof(compact: 0x1F7F_FFFF), Work(limbs: [0, 0, 0, 512]))
    }

    /// A longer competing branch whose second block does not meet its target: it and all
    /// after it are no chain, and the valid branch is served.
    func testACompetingBranchWithoutProofOfWork() throws {
        let genesis = block(parent: nil)
        let a1 = block(parent: hash(genesis)), a2 = block(parent: hash(a1))
        let b1 = block(parent: hash(genesis), nonce: 7), b2 = block(parent: hash(b1), nonce: 8, valid: false),
            b3 = block(parent: hash(b2), nonce: 9)
        try write(framed([genesis, b1, b2, b3, a1, a2]), "blk00000.dat")
        try assertServes(try BitcoinBlockFileSource(path: dir, magic: Self.magic, proofOfWork: .sha256d), [genesis, a1, a2])
    }

    /// Bitcoin Core's GetBlockProof values: mainnet's genesis nBits 0x1d00ffff is 4295032833,
    /// regtest's 0x207fffff is 2; a negative, zero or overflowing nBits has none. Litecoin's
    /// scrypt proof of work against Python's hashlib.scrypt (OpenSSL) on a real regtest header,
    /// which meets its target, and whose SHA256d does not decide it.
    func testWorkAndScrypt() throws {
        XCTAssertEqual(Work.proof(compact: 0x1D00_FFFF), Work(limbs: [0, 0, 0, 4_295_032_833]))
        XCTAssertEqual(Work.proof(compact: 0x207F_FFFF), Work(limbs: [0, 0, 0, 2]))
        for invalid: UInt32 in [0x01FE_DCBA, 0x2300_0001, 0x2201_0000, 0x0000_0000, 0x0380_0000] {
            XCTAssertEqual(Work.proof(compact: invalid), .zero, String(invalid, radix: 16))
        }
        XCTAssertEqual(Work.target(compact: 0x1D00_FFFF), Work(limbs: [0x0000_0000_FFFF_0000, 0, 0, 0]))
        let header = Array(body[0..<80])
        let r = try Shell.run(
            "/usr/bin/python3 -c 'import hashlib,sys; h=bytes.fromhex(sys.argv[1]); print(hashlib.scrypt(h, salt=h, n=1024, r=1, p=1, dklen=32).hex())' \(Hex.encode(header))"
        )
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(Hex.encode(ProofOfWork.scrypt.hash(header)), r.out.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertTrue(ProofOfWork.scrypt.isValid(header))
    }
}
