import SatchelTestSupport
import WalletCore
import XCTest
import Zcash

/// What a signer recomputes before it believes a PCZT: every value commitment of the real
/// PCZTs (the crate made them), and keystone_fw's spend against the published test seed's keys.
final class PCZTCheckTests: XCTestCase {
    func testEveryValueCommitmentTheVectorsOpen() throws {
        var opened = 0
        for name in PCZTTests.files {
            let pczt = try PCZT(parsing: try PCZTTests.bytes(name))
            for (index, action) in (pczt.orchard?.actions ?? []).enumerated() {
                guard let holds = action.valueCommitmentHolds else { continue }
                XCTAssertTrue(holds, "\(name) action \(index)")
                var changed = action
                changed.output.value = (action.output.value ?? 0) + 1
                XCTAssertEqual(changed.valueCommitmentHolds, false, "\(name) action \(index)")
                opened += 1
            }
        }
        XCTAssertEqual(opened, 16)  // both actions of each of Keystone's 8 PCZTs carry rcv
    }

    func testKeystoneSpendIsTheSeeds() throws {
        let pczt = try PCZT(parsing: try PCZTTests.bytes("keystone_fw_orchard_to_transparent"))
        let spend = try XCTUnwrap(pczt.orchard?.actions[0].spend)
        let ours = try OrchardExtendedSpendingKey.account(seed: RedPallasTests.keystoneSeed, coinType: 133, account: 0).fullViewingKey()
        let other = try OrchardExtendedSpendingKey.account(seed: RedPallasTests.keystoneSeed, coinType: 133, account: 1).fullViewingKey()
        XCTAssertTrue(spend.randomizedKeyHolds(ours))
        XCTAssertTrue(spend.nullifierHolds(ours))
        XCTAssertFalse(spend.randomizedKeyHolds(other))
        XCTAssertFalse(spend.nullifierHolds(other))
        var moved = spend
        moved.rho![0] ^= 1
        XCTAssertFalse(moved.nullifierHolds(ours))
        var otherAlpha = spend
        otherAlpha.alpha![0] ^= 1
        XCTAssertFalse(otherAlpha.randomizedKeyHolds(ours))
    }
}
