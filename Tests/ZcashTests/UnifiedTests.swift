import SatchelTestSupport
import WalletCore
import WalletKeys
import XCTest
@testable import Zcash
import WalletCrypto

final class UnifiedTests: XCTestCase {
    func testF4Jumble() throws {
        let rows = try ZcashVectors.rows("f4jumble.json")
        XCTAssertEqual(rows.count, 8)
        for v in rows {
            let normal = try XCTUnwrap(v.bytes("normal")), jumbled = try XCTUnwrap(v.bytes("jumbled"))
            XCTAssertEqual(F4Jumble.jumble(normal), jumbled, "length \(normal.count)")
            XCTAssertEqual(F4Jumble.unjumble(jumbled), normal, "length \(normal.count)")
        }
        for v in try ZcashVectors.rows("f4jumble_long.json") {
            let length = try XCTUnwrap(v["length"] as? Int)
            let m = (0..<length).map { UInt8($0 & 0xFF) }
            XCTAssertEqual(
                Hex.encode(Blake2.b(64, personal: [UInt8](repeating: 0, count: 16), F4Jumble.jumble(m))), v.hex("jumbled_hash"),
                "length \(length)")
        }
    }

    private func items(_ v: [String: Any], _ fields: [(String, UInt64)], unknown: (String, String)) -> [(typecode: UInt64, value: [UInt8])]
    {
        var out = [(typecode: UInt64, value: [UInt8])]()
        for (name, code) in fields { if let b = v.bytes(name) { out.append((code, b)) } }
        if let code = v[unknown.0] as? Int, let b = v.bytes(unknown.1) { out.append((UInt64(code), b)) }
        return out.sorted { $0.typecode < $1.typecode }
    }

    private func assertSame(_ a: [(typecode: UInt64, value: [UInt8])], _ b: [(typecode: UInt64, value: [UInt8])], _ label: String) {
        XCTAssertEqual(a.map(\.typecode), b.map(\.typecode), label)
        XCTAssertEqual(a.map { Hex.encode($0.value) }, b.map { Hex.encode($0.value) }, label)
    }

    private func transparentAccount(seed: [UInt8], account: Int) throws -> ExtendedKey {
        try ExtendedKey.master(seed: SecureBytes(seed)).derive([0x8000_002C, 0x8000_0085, 0x8000_0000 | UInt32(account)])
    }

    /// Every row: the encoding of its items, their decoding, and the Sapling and P2PKH receivers
    /// derived from the row's seed, account and diversifier index.
    func testUnifiedAddresses() throws {
        let rows = try ZcashVectors.rows("unified_address.json")
        XCTAssertEqual(rows.count, 60)
        var derivedSapling = 0, derivedP2PKH = 0
        for (n, v) in rows.enumerated() {
            let want = try XCTUnwrap(v.hex("unified_addr"))
            let parts = items(
                v, [("p2pkh_bytes", 0), ("p2sh_bytes", 1), ("sapling_raw_addr", 2), ("orchard_raw_addr", 3)],
                unknown: ("unknown_typecode", "unknown_bytes"))
            XCTAssertEqual(UnifiedEncoding.encode(parts, kind: .address, network: .main), want, "row \(n)")
            assertSame(try UnifiedEncoding.decode(want, kind: .address, network: .main), parts, "row \(n)")
            let seed = try XCTUnwrap(v.bytes("root_seed")), account = try XCTUnwrap(v["account"] as? Int)
            let j = try XCTUnwrap(v["diversifier_index"] as? Int)
            if let sapling = v.bytes("sapling_raw_addr") {
                let ivk = SaplingExtendedSpendingKey.account(seed: seed, network: .main, account: UInt32(account)).fullViewingKey
                    .incomingViewingKey
                XCTAssertEqual(ivk.address(exactly: DiversifierIndex(UInt64(j)))?.bytes, sapling, "row \(n)")
                derivedSapling += 1
            }
            if let p2pkh = v.bytes("p2pkh_bytes") {
                let key = try transparentAccount(seed: seed, account: account).derive([0, UInt32(j)])
                XCTAssertEqual(Hash.hash160(key.publicKey.compressed), p2pkh, "row \(n)")
                derivedP2PKH += 1
            }
        }
        XCTAssertGreaterThan(derivedSapling, 20)
        XCTAssertGreaterThan(derivedP2PKH, 20)
    }

    func testUnifiedViewingKeys() throws {
        for (file, kind, field, t) in [
            ("unified_full_viewing_keys.json", UnifiedEncoding.Kind.fullViewingKey, "fvk", "unified_fvk"),
            ("unified_incoming_viewing_keys.json", .incomingViewingKey, "ivk", "unified_ivk"),
        ] {
            let rows = try ZcashVectors.rows(file)
            XCTAssertEqual(rows.count, 20)
            var derived = 0
            for (n, v) in rows.enumerated() {
                let want = try XCTUnwrap(v.hex(t))
                let parts = items(
                    v, [("t_key_bytes", 0), ("sapling_\(field)_bytes", 2), ("orchard_\(field)_bytes", 3)],
                    unknown: ("unknown_\(field)_typecode", "unknown_\(field)_bytes"))
                XCTAssertEqual(UnifiedEncoding.encode(parts, kind: kind, network: .main), want, "\(file) row \(n)")
                assertSame(try UnifiedEncoding.decode(want, kind: kind, network: .main), parts, "\(file) row \(n)")
                let seed = try XCTUnwrap(v.bytes("root_seed")), account = try XCTUnwrap(v["account"] as? Int)
                let sapling = SaplingExtendedSpendingKey.account(seed: seed, network: .main, account: UInt32(account)).fullViewingKey
                if let item = v.bytes("sapling_\(field)_bytes") {
                    XCTAssertEqual(kind == .fullViewingKey ? sapling.bytes : sapling.incomingViewingKey.bytes, item, "\(file) row \(n)")
                    derived += 1
                }
                if let item = v.bytes("t_key_bytes") {
                    var key = try transparentAccount(seed: seed, account: account)
                    if kind == .incomingViewingKey { key = try key.derive([0]) }
                    XCTAssertEqual(key.chainCode + key.publicKey.compressed, item, "\(file) row \(n)")
                }
            }
            XCTAssertGreaterThan(derived, 5, file)
        }
    }

    func testDecodingRefusesDamage() throws {
        let v = try ZcashVectors.rows("unified_address.json")[0]
        let ua = try XCTUnwrap(v.hex("unified_addr"))
        XCTAssertThrowsError(try UnifiedEncoding.decode(ua, kind: .fullViewingKey, network: .main))
        XCTAssertThrowsError(try UnifiedEncoding.decode(ua, kind: .address, network: .test))
        var chars = Array(ua)
        chars[20] = chars[20] == "q" ? "p" : "q"
        XCTAssertThrowsError(try UnifiedEncoding.decode(String(chars), kind: .address, network: .main))
        // Items out of order are refused even under a valid checksum.
        let sapling = (typecode: UInt64(2), value: [UInt8](repeating: 1, count: 43))
        let swapped = rawEncoding([sapling, (typecode: 0, value: [UInt8](repeating: 2, count: 20))])
        XCTAssertThrowsError(try UnifiedEncoding.decode(swapped, kind: .address, network: .main))
    }

    /// An encoding with items in the order given (the encoder sorts; this does not).
    private func rawEncoding(_ items: [(typecode: UInt64, value: [UInt8])]) -> String {
        var raw = [UInt8]()
        for item in items { raw += [UInt8(item.typecode), UInt8(item.value.count)] + item.value }
        raw += Array("u".utf8) + [UInt8](repeating: 0, count: 15)
        return Bech32.encode(hrp: "u", data: try! Bech32.convertBits(F4Jumble.jumble(raw), from: 8, to: 5, pad: true), variant: .bech32m)
    }
}

/// The "abandon … art" wallet of generated/wallet_abandon_art_account0.json, whose zs1, u1, t1
/// and uview1 other wallets (Zingo, librustzcash) agree on.
final class AbandonArtWalletTests: XCTestCase {
    func testEveryKeyAndAddress() throws {
        let w = try ZcashVectors.abandonArt()
        let s = try XCTUnwrap(w["sapling"] as? [String: Any]), u = try XCTUnwrap(w["unified"] as? [String: Any])
        let seed = try XCTUnwrap(w.bytes("bip39_seed"))
        let xsk = SaplingExtendedSpendingKey.account(seed: seed, network: .main, account: 0)
        let xfvk = xsk.extendedFullViewingKey, ivk = xfvk.key.incomingViewingKey
        XCTAssertEqual(xsk.bytes.hex, s.hex("extsk_bytes"))
        XCTAssertEqual(String(decoding: xsk.encoded(.main).bytes, as: UTF8.self), s.hex("extsk_bech32"))
        XCTAssertEqual(xfvk.encoded(.main), s.hex("extfvk_bech32"))
        XCTAssertEqual(Hex.encode(xfvk.key.fingerprint), s.hex("fvk_fingerprint"))
        XCTAssertEqual(ivk.encodedIVK(.main), s.hex("ivk_bech32_zcashd"))
        let (j, address) = ivk.defaultAddress()
        XCTAssertEqual(j, DiversifierIndex(0))
        XCTAssertEqual(address.encoded(.main), s.hex("default_address"))
        XCTAssertEqual(try ivk.address(from: DiversifierIndex(1)).address.encoded(.main), s.hex("diversified_address"))
        let internalKey = try XCTUnwrap(s["internal"] as? [String: Any])
        let (ji, change) = xfvk.internal.key.incomingViewingKey.defaultAddress()
        XCTAssertEqual(ji, DiversifierIndex(1))
        XCTAssertEqual(change.encoded(.main), internalKey.hex("default_address"))
        XCTAssertEqual(try SaplingExtendedFullViewingKey(encoded: xfvk.encoded(.main), network: .main).bytes, xfvk.bytes)

        // Transparent: m/44'/133'/0'/0/0.
        let account = try ExtendedKey.master(seed: SecureBytes(seed)).derive([0x8000_002C, 0x8000_0085, 0x8000_0000])
        let t = try account.derive([0, 0])
        XCTAssertEqual(Hex.encode(t.publicKey.compressed), u.hex("transparent_pubkey"))
        XCTAssertEqual(Base58.encodeCheck([0x1C, 0xB8] + Hash.hash160(t.publicKey.compressed)), u.hex("transparent_address"))
        // The Sapling-only UA is ours alone; the one with Orchard is rebuilt from our items plus
        // the file's Orchard receiver (Satchel derives no Orchard keys).
        XCTAssertEqual(UnifiedEncoding.encode([(2, address.bytes)], kind: .address, network: .main), u.hex("ua_sapling_only"))
        let orchard = try XCTUnwrap(u.bytes("orchard_d")) + (try XCTUnwrap(u.bytes("orchard_pk_d")))
        XCTAssertEqual(
            UnifiedEncoding.encode(
                [(0, Hash.hash160(t.publicKey.compressed)), (2, address.bytes), (3, orchard)], kind: .address, network: .main),
            u.hex("ua_orchard_sapling_p2pkh"))
        XCTAssertEqual(Hex.encode(xfvk.key.bytes), u.hex("ufvk_item_sapling"))
        XCTAssertEqual(Hex.encode(account.chainCode + account.publicKey.compressed), u.hex("ufvk_item_p2pkh"))
        XCTAssertEqual(
            UnifiedEncoding.encode(
                [
                    (0, account.chainCode + account.publicKey.compressed), (2, xfvk.key.bytes),
                    (3, try XCTUnwrap(u.bytes("ufvk_item_orchard"))),
                ], kind: .fullViewingKey, network: .main), u.hex("ufvk"))
        let external = try account.derive([0])
        XCTAssertEqual(Hex.encode(ivk.bytes), u.hex("uivk_item_sapling"))
        XCTAssertEqual(Hex.encode(external.chainCode + external.publicKey.compressed), u.hex("uivk_item_p2pkh"))
        // What `derive` writes (Sapling and P2PKH, no Orchard), from the file's own items; the
        // end-to-end tests compare the tool's output with these strings.
        XCTAssertEqual(
            UnifiedEncoding.encode(
                [
                    (0, try XCTUnwrap(u.bytes("transparent_pubkey_hash"))),
                    (2, try XCTUnwrap(s.bytes("default_d")) + (try XCTUnwrap(s.bytes("default_pk_d")))),
                ],
                kind: .address, network: .main), Self.unifiedAddress)
        XCTAssertEqual(
            UnifiedEncoding.encode(
                [(0, try XCTUnwrap(u.bytes("ufvk_item_p2pkh"))), (2, try XCTUnwrap(u.bytes("ufvk_item_sapling")))],
                kind: .fullViewingKey, network: .main), Self.ufvk)
        XCTAssertEqual(
            UnifiedEncoding.encode(
                [(0, try XCTUnwrap(u.bytes("uivk_item_p2pkh"))), (2, try XCTUnwrap(u.bytes("uivk_item_sapling")))],
                kind: .incomingViewingKey, network: .main), Self.uivk)
    }

    /// A checksum-valid UIVK whose Sapling ivk is zero (the fixture's dk and P2PKH item): every
    /// pk_d would be the identity. The end-to-end tests give it to the tools, which refuse it.
    func testZeroIncomingViewingKeyIsRefused() throws {
        let u = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-sapling/wallet.json")) as? [String: Any])
        let unified = try XCTUnwrap(u["unified"] as? [String: Any])
        let item = try Hex.decode(try XCTUnwrap(unified["uivk_item_sapling"] as? String))
        let zeroed = Array(item[0..<32]) + [UInt8](repeating: 0, count: 32)
        XCTAssertNil(SaplingIncomingViewingKey(bytes: zeroed))
        XCTAssertNotNil(SaplingIncomingViewingKey(bytes: item))
        let p2pkh = try Hex.decode(try XCTUnwrap(unified["uivk_item_p2pkh"] as? String))
        XCTAssertEqual(UnifiedEncoding.encode([(0, p2pkh), (2, zeroed)], kind: .incomingViewingKey, network: .main), Self.zeroIVK)
        // An ivk of r (not canonical) is refused as before; r - 1 is a key.
        let r = try Hex.decode("b72cf7d65e0e97d08210c8cc932068a6003b3401013b6706a9af3365eab47d0e")  // r_J, little-endian
        XCTAssertNil(SaplingIncomingViewingKey(bytes: Array(item[0..<32]) + r))
        XCTAssertNotNil(SaplingIncomingViewingKey(bytes: Array(item[0..<32]) + [r[0] - 1] + r[1...]))
    }

    static let zeroIVK =
        "uivk1tlwuz4q3qrkpt8hethk83d6fqawdcrsy02zeqs355kdp8chatrnn6p2kq304ah2dtt0ejswpyjhaz74pcwgywmcqnr8nvsd20hrcjy2n5jh8nye0atzjhrnlkfc8azvxkscwecl2r9c6ztu7u2dpgpvgl23chz3xn4p2qy0rlf9rmc00fcanhmt7ssmm5e46f09etkjs65zyfjktannw0l8uq747ml482jqpktzp8qdfjjsltnpwl"
    static let unifiedAddress =
        "u1hn79mq050nfzhqmc9u4ra7vxvyfhaxfgr0wmeg8qvt5mknzxahyxrutectkr0sm5utxhldc53gg6qk5kpdtewuynq888xrp5vqd4y6lhk7lqtxfg6aprm7xpzlfxxgl0fhn5j0h3jlt"
    static let ufvk =
        "uview10aqqunlxg4sz6l6x6uc3a66lv7gn53hz6wxd6ygd9mfax8d85k5xstg7s0cp0w2udhus2qgq6pep8fmh33mt0yf5q53tlvc9natrj6mkrxepp626azuzjzzfvc7ta8w7v2r5p5yc36sfphjkypkg3hk237laxqa7efkeegnsljahuecvfms2qvzvh9gtuvrq7u3v7qpvcmqrxw562w2d3zlcwme2kwfujvxvnqwnnkhgxs5xdmfde0fa4y7vc9sa9dhn45y2wddfx6wd660ugajuzqs92cp48h4ashvj44kdfqkdwts6ce7gtw39g7cx0s54y9ej9a49awkfzada25ljtrh"
    static let uivk =
        "uivk1qqg856d8u84nhv6yy6k64g4y3s855g43syvwmh6e6vjqml2n9l6egwgntprs6la637lk0r5zgn7hx265ym58qthk80gvyqaqaj7vh75xmgrg02qyeju20jmq57hf0jh7l584hy32f8cdaeqxj7nvn8pc0nr8vpv9z9x6msnuxlwyxtnww0wp58ug0v5fv70s394dssvgstlusqz7kmg5u8wgza0ztpddx47nwvq8r9ssyygsnq9ph"
}
