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

/// The outputs of Keystone's pczt_ext PCZTs, recovered with the keys of the seed that made
/// them (SEP-0005's test seed, which Keystone's tests use): change by the internal incoming
/// key, the payment by the external outgoing key.
final class PCZTOutputRecoveryTests: XCTestCase {
    static let sep5Seed = try! Hex.decode(
        "96063c45132c840f7e1665a3b97814d8eb2586f34bd945f06fa15b9327eebe355f654e81c6233a52149d7a95ea7486eb8d699166f5677e507529482599624cdc")

    func testOrchardToOrchard() throws {
        let pczt = try PCZT(parsing: try PCZTTests.bytes("keystone_pczt_ext_orchard_to_orchard"))
        let actions = try XCTUnwrap(pczt.orchard?.actions)
        XCTAssertEqual(zip32SeedFingerprint(Self.sep5Seed), actions[0].spend.derivation?.seedFingerprint)
        let fvk = try OrchardExtendedSpendingKey.account(seed: Self.sep5Seed, coinType: 133, account: 0).fullViewingKey()
        XCTAssertTrue(actions[0].spend.nullifierHolds(fvk))
        // Action 0 pays 0.01 ZEC to the user address; action 1 (a dummy spend) takes the change.
        let payment = try XCTUnwrap(actions[0].recoverOutput(fvk))
        XCTAssertEqual(payment.key, .outgoing(change: false))
        XCTAssertEqual(payment.note.value, 1_000_000)
        XCTAssertEqual(payment.note.value, actions[0].output.value)
        XCTAssertEqual(payment.note.address.bytes, actions[0].output.recipient)
        let change = try XCTUnwrap(actions[1].recoverOutput(fvk))
        XCTAssertEqual(change.key, .incoming(change: true))
        XCTAssertEqual(change.note.value, 8_990_000)
        XCTAssertEqual(change.note.address.bytes, actions[1].output.recipient)
        XCTAssertNil(actions[1].output.userAddress)
        // The recipient is the Orchard receiver of the user address the PCZT shows.
        let address = try XCTUnwrap(actions[0].output.userAddress)
        let items = try UnifiedEncoding.decode(address, kind: .address, network: .main)
        XCTAssertEqual(items.first { $0.typecode == UnifiedEncoding.Typecode.orchard }?.value, payment.note.address.bytes)
        XCTAssertEqual(payment.memo.flatMap(SaplingMemo.text), "hello")
        XCTAssertEqual(change.memo.map(SaplingMemo.isEmpty), true)
        // The keys of another account open nothing.
        let other = try OrchardExtendedSpendingKey.account(seed: Self.sep5Seed, coinType: 133, account: 1).fullViewingKey()
        XCTAssertNil(actions[0].recoverOutput(other))
        XCTAssertNil(actions[1].recoverOutput(other))
        // A changed ciphertext byte opens under no key.
        var tampered = actions[0]
        if case .encrypted(var bytes) = tampered.output.encCiphertext {
            bytes[3] ^= 1
            tampered.output.encCiphertext = .encrypted(bytes)
        }
        XCTAssertNil(tampered.recoverOutput(fvk))
    }
}
