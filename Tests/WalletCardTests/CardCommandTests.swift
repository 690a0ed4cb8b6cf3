@testable import WalletCard
import WalletCardCLI
import WalletCore
import XCTest
import SatchelTestSupport

/// card-info's checks and records at their library home (the card flows themselves run against
/// the simulator in SimulatorTests and against pcscd in KeycardPCSCTests).
final class CardCommandTests: XCTestCase {
    func testNewPINMayNotBeTheDuressPIN() throws {
        let pin = SecureBytes(Array("123456".utf8)), duress = SecureBytes(Array("654321".utf8))
        XCTAssertThrowsError(try CardFlows.checkNewPIN(["pin": pin, "new_pin": duress, "duress_pin": duress])) {
            XCTAssertEqual(
                $0 as? CardError, .badCredential("the new PIN equals the duress PIN, so it would open the duress wallet: choose another"))
        }
        // Opened with the duress PIN, the "new PIN" is the duress one's own change: allowed here.
        XCTAssertNoThrow(try CardFlows.checkNewPIN(["pin": duress, "new_pin": duress, "duress_pin": duress]))
        XCTAssertNoThrow(try CardFlows.checkNewPIN(["pin": pin, "new_pin": SecureBytes(Array("111111".utf8))]))
    }

    func testLoadKeySeedFromARecord() throws {
        let phrase = JSONObject([
            "mnemonic": .string(TestPhrase.legalWinner),
            "passphrase": .string("TREZOR"),
        ])
        XCTAssertEqual(
            try CardFlows.seed(of: phrase).hex,
            "2e8905819b8723fe2c1d161860e5ee1830318dbf49a83bd451cfb8440c28bd6fa457fe1296106559a3c80937a1c1069be3a3a5bd381ee6260e8d9739fce1f607"
        )
        XCTAssertEqual(
            try CardFlows.seed(of: JSONObject(["seed": .string("000102030405060708090a0b0c0d0e0f")])).hex,
            "000102030405060708090a0b0c0d0e0f")
        XCTAssertThrowsError(try CardFlows.seed(of: nil))
        XCTAssertThrowsError(try CardFlows.seed(of: JSONObject(["xpub": .string("x")])))
    }

    func testExportPathAndRecord() throws {
        XCTAssertEqual(try CardRecords.exportPath("m/44h/60h/0h/0/0", extended: true), [0x8000_002C, 0x8000_003C, 0x8000_0000, 0, 0])
        XCTAssertThrowsError(try CardRecords.exportPath("m", extended: true))
        XCTAssertEqual(try CardRecords.exportPath("m", extended: false), [])
        XCTAssertThrowsError(try CardRecords.exportPath("m/x", extended: false))
        var r = JSONObject()
        CardRecords.retries(CardStatus(pinRetries: 3, pukRetries: 5, keyLoaded: true), into: &r)
        XCTAssertEqual(r, JSONObject(["pin_retries": .number("3"), "puk_retries": .number("5")]))
    }
}
