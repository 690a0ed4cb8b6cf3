import WalletCore
import WalletUR
import XCTest

/// Keystone's Zcash UR types, against the CBOR its registry's tests state
/// (keystone-sdk-rust `libs/ur-registry/src/zcash/zcash_accounts.rs`).
final class ZcashURTests: XCTestCase {
    func testPCZTPayload() throws {
        let pczt = Array("PCZT".utf8) + [1, 0, 0, 0, 5]
        let ur = try ZcashUR.pczt(pczt)
        XCTAssertEqual(ur.type, "zcash-pczt")
        XCTAssertEqual(Hex.encode(ur.cbor), "a101" + "49" + Hex.encode(pczt))
        XCTAssertEqual(try ZcashUR.pczt(from: ur), pczt)
        // Tagged 49204 (0xd9c034) too.
        XCTAssertEqual(try ZcashUR.pczt(from: try UR(type: "zcash-pczt", cbor: try Hex.decode("d9c034a10142abcd"))), [0xAB, 0xCD])
        XCTAssertThrowsError(try ZcashUR.pczt(from: try UR(type: "zcash-pczt", cbor: try Hex.decode("a10242abcd"))))
        XCTAssertThrowsError(try ZcashUR.pczt(from: try UR(type: "crypto-psbt", cbor: try Hex.decode("42abcd"))))
    }

    /// Keystone's encoder writes two keys; its tests' bytes for a 16-byte fingerprint and no
    /// accounts, and with a device version (key 3), which is read.
    func testAccountsAgainstKeystone() throws {
        let fingerprint = [UInt8](repeating: 0xD1, count: 16)
        let empty = try ZcashUR.accounts(
            from: try UR(type: "zcash-accounts", cbor: try Hex.decode("a20150" + Hex.encode(fingerprint) + "0280")))
        XCTAssertEqual(empty.seedFingerprint, fingerprint)
        XCTAssertEqual(empty.accounts, [])
        XCTAssertNil(empty.deviceVersion)
        let versioned = try ZcashUR.accounts(
            from: try UR(type: "zcash-accounts", cbor: try Hex.decode("a30150" + Hex.encode(fingerprint) + "02800365312e322e33")))
        XCTAssertEqual(versioned.deviceVersion, "1.2.3")
        // An account under another tag than 49203 is refused.
        XCTAssertThrowsError(
            try ZcashUR.accounts(
                from: try UR(type: "zcash-accounts", cbor: try Hex.decode("a20150" + Hex.encode(fingerprint) + "0281d9c034a20161750200"))))
        XCTAssertThrowsError(try ZcashUR.accounts(from: try UR(type: "zcash-accounts", cbor: try Hex.decode("a10280"))))
    }

    func testAccountsWrittenAndRead() throws {
        let fingerprint = [UInt8](repeating: 0x42, count: 32)
        let accounts = [ZcashUR.Account(ufvk: "uview1abc", index: 0, name: "Satchel"), ZcashUR.Account(ufvk: "uview1def", index: 5)]
        let ur = try ZcashUR.accounts(seedFingerprint: fingerprint, accounts)
        XCTAssertEqual(
            Hex.encode(ur.cbor),
            "a2" + "015820" + Hex.encode(fingerprint) + "0282"
                + "d9c033a3" + "0169" + Hex.encode(Array("uview1abc".utf8)) + "0200" + "0367" + Hex.encode(Array("Satchel".utf8))
                + "d9c033a2" + "0169" + Hex.encode(Array("uview1def".utf8)) + "0205")
        let back = try ZcashUR.accounts(from: ur)
        XCTAssertEqual(back.seedFingerprint, fingerprint)
        XCTAssertEqual(back.accounts, accounts)
        XCTAssertThrowsError(try ZcashUR.accounts(seedFingerprint: [1, 2], accounts))
    }
}
