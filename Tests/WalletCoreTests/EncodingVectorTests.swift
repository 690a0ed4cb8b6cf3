import Foundation
import SatchelTestSupport
import XCTest
@testable import WalletCore
@testable import WalletCrypto
import WalletKeys

final class HandWrittenHashTests: XCTestCase {
    /// The RIPEMD-160 authors' test vectors (Dobbertin, Bosselaers, Preneel).
    func testRIPEMD160() {
        let cases = [
            ("", "9c1185a5c5e9fc54612808977ee8f548b2258d31"),
            ("a", "0bdc9d2d256b3ee9daae347be6f4dc835a467ffe"),
            ("abc", "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"),
            ("message digest", "5d0689ef49d2fae572b881b123a85ffa21595f36"),
            ("abcdefghijklmnopqrstuvwxyz", "f71c27109c692c1b56bbdceb5b9d2865b3708dbc"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "12a053384a9c0c88e405a06c27dcf49ada62eb2b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "b0e20b6e3116640286ed3a87a5713079b21f5189"),
            (String(repeating: "1234567890", count: 8), "9b752e45573d4b39f4dbd3323cab82bf63326bfb"),
        ]
        for (input, digest) in cases { XCTAssertEqual(Hex.encode(RIPEMD160.hash(Array(input.utf8))), digest, input) }
        XCTAssertEqual(Hex.encode(RIPEMD160.hash([UInt8](repeating: 0x61, count: 1_000_000))), "52783243c1697bdbe16d37f97f68f08325dc1528")
    }

    /// Lengths around the 136-byte rate (padding in its own block, or sharing the last one),
    /// bytes i mod 251; values from an independent straight-from-the-spec Python Keccak whose
    /// output for "" and "abc" matches the published ones.
    func testKeccak256AroundTheBlockSize() throws {
        let expected = [
            135: "cbdfd9dee5faad3818d6b06f95a219fd290b0e1706f6a82e5a595b9ce9faca62",
            136: "7ce759f1ab7f9ce437719970c26b0a66ff11fe3e38e17df89cf5d29c7d7f807e",
            137: "ac73d4fae68b8453f764007c1a20ce95994187861f0c3227a3a8e99a73a3b1db",
            271: "27eceb59ebc3dc8a04a5b135be641591a7278540e4556a2ba9f408194e666ec3",
            272: "8e2476e65823b24d96ebe239f2c1534cdf763e689e2410c3b1cb0c74e6177bfc",
            273: "3f02f134370e4debb95140ef49ddd3aed8c65ff1ed83a43f1b269421f179c5f9",
            2000: "eac17d1278bbca702a882c4f66898f5b7b9973d12a68dd67fe5ebe07810c1338",
        ]
        for (n, digest) in expected {
            let message = (0..<n).map { UInt8($0 % 251) }
            XCTAssertEqual(Hex.encode(Keccak256.hash(message)), digest, "\(n) bytes")
            XCTAssertEqual(Hex.encode(Keccak256.hash(message[...])), digest, "\(n) bytes, a slice")
            XCTAssertEqual(Hex.encode(Keccak256.hash(message.lazy.map { $0 })), digest, "\(n) bytes, not contiguous")
        }
    }

    /// The batched Keccak (CCurveBatch) on every path this CPU runs: the vectors above, in one
    /// call with "" and "abc", and 5,000 random messages of random lengths (0 to 1,500 bytes,
    /// the block edges often) against the one-at-a-time hash.
    func testKeccak256Batched() throws {
        let paths = CurveBatchPath.allCases.filter(\.isSupported)
        XCTAssertTrue(paths.contains(.portable))
        let known: [(Int, String)] = [
            (0, "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"),
            (135, "cbdfd9dee5faad3818d6b06f95a219fd290b0e1706f6a82e5a595b9ce9faca62"),
            (136, "7ce759f1ab7f9ce437719970c26b0a66ff11fe3e38e17df89cf5d29c7d7f807e"),
            (137, "ac73d4fae68b8453f764007c1a20ce95994187861f0c3227a3a8e99a73a3b1db"),
            (2000, "eac17d1278bbca702a882c4f66898f5b7b9973d12a68dd67fe5ebe07810c1338"),
        ]
        let messages = known.map { n, _ in (0..<n).map { UInt8($0 % 251) } } + [Array("abc".utf8)]
        let digests = known.map(\.1) + ["4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"]
        var random = [[UInt8]]()
        for i in 0..<5_000 {
            let edge = [135, 136, 137, 271, 272, 273][i % 6]
            let n = i % 3 == 0 ? edge : Int.random(in: 0...1_500)
            random.append((0..<n).map { _ in UInt8.random(in: 0...255) })
        }
        let expected = random.map(Keccak256.hash)
        for path in paths {
            XCTAssertEqual(Keccak256.hashAll(messages, path: path).map(Hex.encode), digests, "\(path)")
            XCTAssertEqual(Keccak256.hashAll(random, path: path), expected, "\(path)")
            XCTAssertEqual(Keccak256.hashAll(random.prefix(9).map { $0[...] }, path: path), Array(expected.prefix(9)), "\(path), slices")
            XCTAssertEqual(Keccak256.hashAll([[UInt8]](), path: path), [])
        }
    }

    func testKeccak256() throws {
        XCTAssertEqual(Hex.encode(Keccak256.hash([UInt8]())), "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")
        XCTAssertEqual(Hex.encode(Keccak256.hash(Array("abc".utf8))), "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45")
        // Across the 136-byte rate boundary.
        XCTAssertEqual(
            Hex.encode(Keccak256.hash([UInt8](repeating: 0x61, count: 200))),
            Hex.encode(Keccak256.hash(Array(String(repeating: "a", count: 200).utf8))))
        let eip55 = try TestPaths.json(TestPaths.vector("eip55.json")) as! [String: Any]
        let check = eip55["keccak256_check"] as! [String: Any]
        XCTAssertEqual(Hex.encode(Keccak256.hash([UInt8]())), (check.values.compactMap { $0 as? String }.first { $0.count == 64 }))
    }

    /// Monero's own hash_to_scalar cases from the crypto test subset.
    func testMoneroHashToScalarAndKeys() throws {
        let lines = try String(contentsOf: TestPaths.vector("monero/crypto-tests-subset.txt"), encoding: .utf8).split(separator: "\n")
        var checked = 0
        for line in lines {
            let f = line.split(separator: " ").map(String.init)
            switch f[0] {
            case "hash_to_scalar":
                XCTAssertEqual(Ed25519.hashToScalar(try Hex.decode(f[1])).hex, f[2]); checked += 1
            case "secret_key_to_public_key" where f[2] == "true":
                XCTAssertEqual(Hex.encode(try Ed25519.basePointMultiple(try Hex.decodeSecret(f[1]))), f[3]); checked += 1
            case "check_scalar":
                XCTAssertEqual(Ed25519Scalar.isCanonical(try Hex.decodeSecret(f[1])), f[2] == "true"); checked += 1
            default: continue
            }
        }
        XCTAssertEqual(checked, 6)  // every case of those three kinds in the subset
    }

    /// BLAKE3's official test vectors (BLAKE3-team/BLAKE3 test_vectors/test_vectors.json at
    /// 2f6f56f3477321c9e4742f1c863e45f2cfcbfb5e): input bytes i mod 251, the three modes, the
    /// first 32 bytes of each case, and the whole 131-byte extended output of two. The lengths
    /// cover one block, a chunk's edge, and trees of two to 100 chunks.
    func testBlake3OfficialVectors() {
        let key = Array("whats the Elvish word for friend".utf8)
        let context = "BLAKE3 2019-12-27 16:29:52 test vectors context"
        let cases: [(Int, String, String, String)] = [
            (
                0, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
                "92b2b75604ed3c761f9d6f62392c8a9227ad0ea3f09573e783f1498a4ed60d26",
                "2cc39783c223154fea8dfb7c1b1660f2ac2dcbd1c1de8277b0b0dd39b7e50d7d"
            ),
            (
                1, "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213",
                "6d7878dfff2f485635d39013278ae14f1454b8c0a3a2d34bc1ab38228a80c95b",
                "b3e2e340a117a499c6cf2398a19ee0d29cca2bb7404c73063382693bf66cb06c"
            ),
            (
                1023, "10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11",
                "c951ecdf03288d0fcc96ee3413563d8a6d3589547f2c2fb36d9786470f1b9d6e",
                "74a16c1c3d44368a86e1ca6df64be6a2f64cce8f09220787450722d85725dea5"
            ),
            (
                1024, "42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7",
                "75c46f6f3d9eb4f55ecaaee480db732e6c2105546f1e675003687c31719c7ba4",
                "7356cd7720d5b66b6d0697eb3177d9f8d73a4a5c5e968896eb6a689684302706"
            ),
            (
                1025, "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444",
                "357dc55de0c7e382c900fd6e320acc04146be01db6a8ce7210b7189bd664ea69",
                "effaa245f065fbf82ac186839a249707c3bddf6d3fdda22d1b95a3c970379bcb"
            ),
            (
                2049, "5f4d72f40d7a5f82b15ca2b2e44b1de3c2ef86c426c95c1af0b6879522563030",
                "9f29700902f7c86e514ddc4df1e3049f258b2472b6dd5267f61bf13983b78dd5",
                "2ea477c5515cc3dd606512ee72bb3e0e758cfae7232826f35fb98ca1bcbdf273"
            ),
            (
                3073, "7124b49501012f81cc7f11ca069ec9226cecb8a2c850cfe644e327d22d3e1cd3",
                "68dede9bef00ba89e43f31a6825f4cf433389fedae75c04ee9f0cf16a427c95a",
                "72613c9ec9ff7e40f8f5c173784c532ad852e827dba2bf85b2ab4b76f7079081"
            ),
            (
                8193, "bab6c09cb8ce8cf459261398d2e7aef35700bf488116ceb94a36d0f5f1b7bc3b",
                "954a2a75420c8d6547e3ba5b98d963e6fa6491addc8c023189cc519821b4a1f5",
                "af1e0346e389b17c23200270a64aa4e1ead98c61695d917de7d5b00491c9b0f1"
            ),
            (
                31744, "62b6960e1a44bcc1eb1a611a8d6235b6b4b78f32e7abc4fb4c6cdcce94895c47",
                "efa53b389ab67c593dba624d898d0f7353ab99e4ac9d42302ee64cbf9939a419",
                "39772aef80e0ebe60596361e45b061e8f417429d529171b6764468c22928e28e"
            ),
            (
                102400, "bc3e3d41a1146b069abffad3c0d44860cf664390afce4d9661f7902e7943e085",
                "1c35d1a5811083fd7119f5d5d1ba027b4d01c0c6c49fb6ff2cf75393ea5db4a7",
                "4652cff7a3f385a6103b5c260fc1593e13c778dbe608efb092fe7ee69df6e9c6"
            ),
        ]
        for (n, hash, keyed, derived) in cases {
            let input = (0..<n).map { UInt8($0 % 251) }
            XCTAssertEqual(Hex.encode(Blake3.hash(input)), hash, "hash, \(n) bytes")
            XCTAssertEqual(Hex.encode(Blake3.keyedHash(key: key, input)), keyed, "keyed_hash, \(n) bytes")
            XCTAssertEqual(Hex.encode(Blake3.deriveKey(context: context, material: input)), derived, "derive_key, \(n) bytes")
        }
        XCTAssertEqual(
            Hex.encode(Blake3.hash([], length: 131)),
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262e00f03e7b69af26b7faaf09fcd333050338ddfe085b8cc869ca98b206c08243a26f5487789e8f660afe6c99ef9e0c52b92e7393024a80459cf91f476f9ffdbda7001c22e159b402631f277ca96f2defdf1078282314e763699a31c5363165421cce14d"
        )
        XCTAssertEqual(
            Hex.encode(Blake3.deriveKey(context: context, material: (0..<1025).map { UInt8($0 % 251) }, length: 131)),
            "effaa245f065fbf82ac186839a249707c3bddf6d3fdda22d1b95a3c970379bcb5d31013a167509e9066273ab6e2123bc835b408b067d88f96addb550d96b6852dad38e320b9d940f86db74d398c770f462118b35d2724efa13da97194491d96dd37c3c09cbef665953f2ee85ec83d88b88d11547a6f911c8217cca46defa2751e7f3ad"
        )
    }

    /// BLAKE3 against Debian's b3sum (the reference Rust crate) on 200 random inputs: lengths
    /// 0 to 9,000 (block and chunk edges often), random keys, contexts and output lengths, each
    /// mode. b3sum is installed by `make test` (scripts/install-deps.sh --test).
    func testBlake3AgainstB3sum() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-b3-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SystemRandomNumberGenerator()
        let edges = [0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 2049, 3072, 4096, 4097, 5120, 8192, 8193]
        var script = "set -e\n"
        var expected = [String]()
        for i in 0..<200 {
            let n =
                i < edges.count
                ? edges[i]
                : (i % 3 == 0
                    ? edges.randomElement(using: &rng)! + Int.random(in: -1...1, using: &rng) : Int.random(in: 0...9_000, using: &rng))
            let input = (0..<max(n, 0)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let length = [32, 32, 1, 64, 65, 200].randomElement(using: &rng)!
            let context =
                "Satchel test \(i) "
                + Hex.encode((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
            try Data(input).write(to: dir.appendingPathComponent("in\(i)"))
            try Data(key).write(to: dir.appendingPathComponent("key\(i)"))
            script += "b3sum --no-names -l \(length) in\(i)\n"
            script += "b3sum --no-names -l \(length) --keyed in\(i) < key\(i)\n"
            script += "b3sum --no-names -l \(length) --derive-key '\(context)' in\(i)\n"
            expected += [
                Hex.encode(Blake3.hash(input, length: length)), Hex.encode(Blake3.keyedHash(key: key, input, length: length)),
                Hex.encode(Blake3.deriveKey(context: context, material: input, length: length)),
            ]
        }
        let result = try Shell.run(script, cwd: dir)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines.count, expected.count)
        for (i, (got, want)) in zip(result.lines, expected).enumerated() where got != want {
            XCTFail("case \(i / 3), mode \(i % 3): b3sum \(got), Satchel \(want)")
        }
    }
}

final class EncodingVectorTests: XCTestCase {
    func testBase58CheckRoundTrip() throws {
        // BIP32 vector 1 master xpub decodes to 78 bytes and re-encodes to itself.
        let xpub = "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8"
        let raw = try Base58.decodeCheck(xpub)
        XCTAssertEqual(raw.count, 78)
        XCTAssertEqual(Base58.encodeCheck(raw), xpub)
        XCTAssertEqual(Base58.encode([0, 0, 1]), "112")
        XCTAssertEqual(try Base58.decode("112"), [0, 0, 1])
        XCTAssertThrowsError(try Base58.decodeCheck(String(xpub.dropLast()) + "9"))
        XCTAssertThrowsError(try Base58.decode("0OIl"))
    }

    func testBech32Vectors() throws {
        let doc = try TestPaths.json(TestPaths.vector("bech32.json")) as! [String: Any]
        for (name, variant) in [("bech32", Bech32.Variant.bech32), ("bech32m", .bech32m)] {
            for s in doc["\(name)_valid"] as! [String] {
                let d = try Bech32.decode(s)
                XCTAssertEqual(d.variant, variant, s)
                XCTAssertEqual(Bech32.encode(hrp: d.hrp, data: d.data, variant: variant), s.lowercased())
            }
            for case let entry as [String: String] in doc["\(name)_invalid"] as! [Any] {
                XCTAssertThrowsError(try Bech32.decode(entry["string"]!), entry["reason"]!)
            }
        }
        // BIP350's invalid segwit addresses: rejected for both main and test hrp.
        for case let entry as [String: String] in doc["invalid_segwit_addresses"] as! [Any] {
            XCTAssertThrowsError(try SegwitAddress.decode(entry["address"]!, hrp: "bc"), entry["reason"]!)
            XCTAssertThrowsError(try SegwitAddress.decode(entry["address"]!, hrp: "tb"), entry["reason"]!)
        }
        for case let entry as [String: String] in doc["bip173_invalid_segwit_addresses"] as! [Any] {
            XCTAssertThrowsError(try SegwitAddress.decode(entry["address"]!, hrp: "bc"), entry["reason"]!)
            XCTAssertThrowsError(try SegwitAddress.decode(entry["address"]!, hrp: "tb"), entry["reason"]!)
        }
        // BIP173 called these valid; under BIP350 a v1+ program in bech32 is invalid.
        for case let entry as [String: String] in doc["bip173_valid_addresses_superseded_by_bip350"] as! [Any] {
            let address = entry["address"]!
            XCTAssertThrowsError(try SegwitAddress.decode(address, hrp: address.lowercased().hasPrefix("bc") ? "bc" : "tb"), address)
        }
        for case let entry as [String: Any] in doc["valid_segwit_addresses"] as! [Any] {
            let address = entry["address"] as! String
            let hrp = entry["hrp"] as! String
            let (version, program) = try SegwitAddress.decode(address, hrp: hrp)
            XCTAssertEqual(version, entry["witness_version"] as? Int)
            XCTAssertEqual(Hex.encode(program), entry["witness_program"] as? String)
            // scriptPubKey: OP_n (0, or 0x50 + n), the push of the program, the program.
            let op = version == 0 ? 0 : 0x50 + version
            XCTAssertEqual(Hex.encode([UInt8(op), UInt8(program.count)] + program), entry["script_pubkey"] as? String, address)
            XCTAssertEqual(SegwitAddress.encode(hrp: hrp, version: version, program: program), address.lowercased())
        }
        // Round trip of the BIP84 and BIP86 vector addresses (bech32 and bech32m).
        let p2wpkh = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"
        let decoded = try SegwitAddress.decode(p2wpkh, hrp: "bc")
        XCTAssertEqual(SegwitAddress.encode(hrp: "bc", version: decoded.version, program: decoded.program), p2wpkh)
        let p2tr = "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr"
        let tr = try SegwitAddress.decode(p2tr, hrp: "bc")
        XCTAssertEqual(tr.version, 1)
        XCTAssertEqual(SegwitAddress.encode(hrp: "bc", version: 1, program: tr.program), p2tr)
    }

    func testEIP55Vectors() throws {
        let doc = try TestPaths.json(TestPaths.vector("eip55.json")) as! [String: Any]
        for address in doc["valid"] as! [String] {
            XCTAssertTrue(EIP55.isValid(address), address)
            let body = address.dropFirst(2)
            if body != body.lowercased() && body != body.uppercased() {
                XCTAssertEqual(EIP55.encode(try Hex.decode(String(body))), address)
            }
        }
        for case let address as String in doc["invalid_derived"] as! [Any] { XCTAssertFalse(EIP55.isValid(address), address) }
    }

    func testCashAddrVectors() throws {
        let doc = try TestPaths.json(TestPaths.vector("cashaddr.json")) as! [String: Any]
        for case let v as [String: Any] in doc["legacy_translation"] as! [Any] {
            let type: UInt8 = (v["type"] as! String) == "P2PKH" ? 0 : 1
            XCTAssertEqual(
                CashAddr.encode(prefix: "bitcoincash", type: type, hash: try Hex.decode(v["hash160"] as! String)), v["cashaddr"] as? String)
            let legacy = try Base58.decodeCheck(v["legacy"] as! String)
            XCTAssertEqual(Hex.encode(legacy.dropFirst()), v["hash160"] as? String)
        }
        for case let v as [String: Any] in doc["larger_vectors"] as! [Any] {
            let address = v["cashaddr"] as! String
            let prefix = String(address.split(separator: ":")[0])
            XCTAssertEqual(
                CashAddr.encode(prefix: prefix, type: UInt8(v["type"] as! Int), hash: try Hex.decode(v["payload"] as! String)), address)
            // Decoded back: prefix, type and payload, in either case; a changed character fails.
            for text in [address, address.uppercased()] {
                let decoded = try CashAddr.decode(text, defaultPrefix: "bitcoincash")
                XCTAssertEqual(decoded.prefix, prefix)
                XCTAssertEqual(decoded.type, UInt8(v["type"] as! Int))
                XCTAssertEqual(Hex.encode(decoded.hash), v["payload"] as? String)
            }
            var broken = Array(address)
            broken[broken.count - 3] = broken[broken.count - 3] == "q" ? "p" : "q"
            XCTAssertThrowsError(try CashAddr.decode(String(broken), defaultPrefix: "bitcoincash"), address)
        }
        for case let v as [String: Any] in doc["legacy_translation"] as! [Any] {
            let address = v["cashaddr"] as! String
            let bare = String(address.split(separator: ":")[1])
            XCTAssertEqual(Hex.encode(try CashAddr.decode(bare, defaultPrefix: "bitcoincash").hash), v["hash160"] as? String)
            XCTAssertThrowsError(
                try CashAddr.decode("bitcoincash:" + bare.prefix(5).uppercased() + bare.dropFirst(5), defaultPrefix: "bitcoincash"),
                "mixed case")
        }
    }
}
