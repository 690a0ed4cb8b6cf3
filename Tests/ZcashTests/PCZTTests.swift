import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
import Zcash

/// PCZTs as the `pczt` crate writes them: the real ones of Keystone's and Trust Wallet's tests,
/// read and written back byte for byte; version 2 with Ironwood built here; hostile ones
/// refused by name.
final class PCZTTests: XCTestCase {
    static let files = [
        "keystone_check_orchard_to_p2pkh", "keystone_fw_orchard_to_transparent", "keystone_hist_transparent_to_orchard",
        "keystone_parse_orchard_to_sapling", "keystone_pczt_ext_orchard_to_orchard", "keystone_pczt_ext_orchard_to_transparent",
        "keystone_pczt_ext_transparent_to_orchard", "keystone_v302_transparent_orchard_unfinalized", "trustwallet_serde_v5_transparent",
        "trustwallet_v4_signed_finalized", "trustwallet_v4_unsigned", "trustwallet_v5_transparent_refused_by_tw",
    ]

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: TestPaths.vector("zcash/pczt/\(name).pczt")))
    }

    private func refused(_ bytes: [UInt8], _ expected: PCZTError, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try PCZT(parsing: bytes), file: file, line: line) {
            XCTAssertEqual($0 as? PCZTError, expected, file: file, line: line)
        }
    }

    func testEveryVectorReadsAndWritesBackByteForByte() throws {
        for name in Self.files {
            let bytes = try Self.bytes(name)
            let pczt = try PCZT(parsing: bytes)
            XCTAssertEqual(pczt.version, 1, name)
            XCTAssertNil(pczt.ironwood, name)
            XCTAssertEqual(try pczt.serialized(), bytes, name)
        }
    }

    /// Keystone's firmware test: 0.12 ZEC of Orchard spent, 0.1 to a t-address, 0.01985 back
    /// as change, 0.00015 fee.
    func testKeystoneOrchardToTransparentFigures() throws {
        let pczt = try PCZT(parsing: try Self.bytes("keystone_fw_orchard_to_transparent"))
        let global = pczt.global
        XCTAssertEqual(
            [global.txVersion, global.versionGroupID, global.consensusBranchID, global.expiryHeight, global.coinType],
            [5, 0x26A7_270A, 0xC8E7_1055, 2_851_312, 133])
        XCTAssertEqual(global.txModifiable, 0)
        let transparent = try XCTUnwrap(pczt.transparent), orchard = try XCTUnwrap(pczt.orchard)
        XCTAssertEqual(transparent.inputs.count, 0)
        XCTAssertEqual(transparent.outputs.map(\.value), [10_000_000])
        XCTAssertEqual(transparent.outputs.map(\.userAddress), ["t1TMLJ7k2N4Narqk5Fd5uUo82NXSMbKRgCc"])
        XCTAssertEqual(pczt.sapling?.spends.count, 0)
        XCTAssertEqual(pczt.sapling?.outputs.count, 0)
        XCTAssertEqual(orchard.actions.map(\.spend.value), [12_000_000, 0])
        XCTAssertEqual(orchard.actions.map(\.output.value), [1_985_000, 0])
        XCTAssertEqual([orchard.valueSumMagnitude], [10_015_000])
        XCTAssertFalse(orchard.valueSumNegative)
        XCTAssertEqual(orchard.flags, 3)
        let ours = try XCTUnwrap(orchard.actions[0].spend.derivation)
        XCTAssertEqual(ours.path, [32 | 1 << 31, 133 | 1 << 31, 1 << 31])
        XCTAssertEqual(Hex.encode(ours.seedFingerprint).prefix(8), "afb47510")
        XCTAssertNil(orchard.actions[0].spend.spendAuthSig)
        XCTAssertNotNil(orchard.actions[1].spend.spendAuthSig)  // the dummy spend, signed by the IO Finalizer
        XCTAssertEqual(orchard.actions.map { $0.spend.dummySk == nil }, [true, true])
        XCTAssertEqual(orchard.actions.map { $0.spend.alpha?.count }, [32, 32])
        XCTAssertNil(orchard.zkproof)
    }

    func testWhatASignerRefusesIsReadAsItIs() throws {
        let unfinalized = try PCZT(parsing: try Self.bytes("keystone_v302_transparent_orchard_unfinalized"))
        XCTAssertEqual(unfinalized.orchard?.actions.map { $0.spend.dummySk != nil }, [false, true])
        XCTAssertEqual(unfinalized.global.consensusBranchID, 0xC2D6_D0B4)
        let v4 = try PCZT(parsing: try Self.bytes("trustwallet_v4_unsigned"))
        XCTAssertEqual([v4.global.txVersion, v4.global.versionGroupID], [4, 0x892F_2085])
        XCTAssertEqual(v4.transparent?.inputs.map(\.value), [2_000_000, 396_085])
        XCTAssertEqual(v4.transparent?.inputs.map(\.sighashType), [1, 1])
    }

    func testTransparentDerivationsAndSaplingValueSum() throws {
        let shielding = try PCZT(parsing: try Self.bytes("keystone_pczt_ext_transparent_to_orchard"))
        let input = try XCTUnwrap(shielding.transparent?.inputs.first)
        XCTAssertEqual(input.bip32Derivation.entries.map(\.key.count), [33])
        XCTAssertEqual(input.bip32Derivation.entries.map(\.value.path), [[44 | 1 << 31, 133 | 1 << 31, 1 << 31, 0, 0]])
        XCTAssertEqual(shielding.orchard?.valueSumNegative, true)
        XCTAssertEqual(shielding.orchard?.valueSumMagnitude, 11_980_000)
        let toSapling = try PCZT(parsing: try Self.bytes("keystone_parse_orchard_to_sapling"))
        XCTAssertEqual(toSapling.sapling?.valueSum, -100_000)
        XCTAssertEqual(toSapling.sapling?.outputs.map(\.value), [100_000, 0])
    }

    func testEveryTruncationIsRefused() throws {
        let bytes = try Self.bytes("keystone_fw_orchard_to_transparent")
        for length in 0..<bytes.count {
            XCTAssertThrowsError(try PCZT(parsing: Array(bytes[..<length]))) {
                guard case .malformed = $0 as? PCZTError else { return XCTFail("\(length): \($0)") }
            }
        }
        refused(Array(bytes[..<8]), .malformed(field: "global.tx_version", offset: 8, reason: "the data ends inside a number"))
        // Action 1's note ciphertext (580 bytes, Orchard's) starts 118 bytes before the cut.
        refused(
            Array(bytes[..<2000]),
            .malformed(field: "orchard.actions[1].output.enc_ciphertext", offset: 1_882, reason: "a count of 580 with 118 bytes left"))
    }

    /// trustwallet_serde_v5_transparent's global fields end at byte 29, where the transparent
    /// inputs' count (2) is.
    func testHostileNumbersAndCounts() throws {
        let bytes = try Self.bytes("trustwallet_serde_v5_transparent")
        XCTAssertEqual(bytes[29], 2)
        var bomb = bytes
        bomb.replaceSubrange(29...29, with: [0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
        refused(
            bomb, .malformed(field: "transparent.inputs", offset: 34, reason: "a count of 4294967295 with \(bytes.count - 30) bytes left"))
        var overlong = bytes
        overlong.replaceSubrange(8...8, with: [0x85, 0x00])
        refused(overlong, .malformed(field: "global.tx_version", offset: 8, reason: "a number not in its shortest form"))
        var wide = bytes
        wide.replaceSubrange(9...13, with: [0x8A, 0xCE, 0x9C, 0xB5, 0x82, 0x00])
        refused(wide, .malformed(field: "global.version_group_id", offset: 9, reason: "a number wider than 32 bits"))
        var badBool = bytes
        XCTAssertEqual(badBool[19], 1)  // fallback_lock_time: Some
        badBool[19] = 2
        refused(badBool, .malformed(field: "global.fallback_lock_time", offset: 19, reason: "a boolean byte other than 0 or 1"))
        refused(bytes + [0], .malformed(field: "", offset: bytes.count, reason: "1 byte after the PCZT's end"))
        var version3 = bytes
        version3[4] = 3
        refused(version3, .unsupported("PCZT version 3; versions 1 and 2 are read"))
        var notPCZT = bytes
        notPCZT[0] = UInt8(ascii: "X")
        refused(notPCZT, .malformed(field: "", offset: 0, reason: "not a PCZT (no \"PCZT\" magic)"))
    }

    func testTextAndMapOrder() throws {
        var pczt = try PCZT(parsing: try Self.bytes("trustwallet_serde_v5_transparent"))
        pczt.global.proprietary.entries = [.init(key: "b", value: [1]), .init(key: "a", value: [2])]
        // The map's count is the global fields' last byte (28); entry 0 ("b": [1]) takes 4 bytes.
        refused(try pczt.serialized(), .malformed(field: "global.proprietary[1]", offset: 33, reason: "keys out of order or repeated"))
        pczt.global.proprietary.entries = [.init(key: "a", value: [1]), .init(key: "b", value: [2])]
        XCTAssertEqual(try PCZT(parsing: try pczt.serialized()), pczt)
        let bytes = try pczt.serialized()
        let address = Array("t1YXn8S6n4KAzAxGPruNMpwfCe2pTZJYd3K".utf8)
        let at = try XCTUnwrap(bytes.firstRange(of: address)).lowerBound
        var badText = bytes
        badText[at] = 0xFF
        // The field starts at its length byte.
        refused(badText, .malformed(field: "transparent.outputs[0].user_address", offset: at - 1, reason: "text that is not UTF-8"))
    }

    /// A version 2 PCZT with an Ironwood bundle, optional fields left out and a memo in place of
    /// a ciphertext, absent bundles absent: read back equal, written back byte for byte.
    func testVersion2WithIronwood() throws {
        var pczt = try PCZT(parsing: try Self.bytes("keystone_fw_orchard_to_transparent"))
        pczt.version = 2
        pczt.sapling = nil
        pczt.orchard?.noteVersion = 0
        var ironwood = try XCTUnwrap(pczt.orchard)
        ironwood.noteVersion = 1
        ironwood.flags = 7
        ironwood.anchor = nil
        ironwood.actions[0].cvNet = nil
        ironwood.actions[0].output.cmx = nil
        ironwood.actions[0].output.encCiphertext = .memo(Array("thanks".utf8))
        ironwood.actions[1].spend.nullifier = nil
        pczt.ironwood = ironwood
        let bytes = try pczt.serialized()
        XCTAssertEqual(Array(bytes[0..<8]), Array("PCZT".utf8) + [2, 0, 0, 0])
        let back = try PCZT(parsing: bytes)
        XCTAssertEqual(back, pczt)
        XCTAssertNil(back.sapling)
        XCTAssertEqual(try back.serialized(), bytes)
        // Version 1 cannot carry what only version 2 can.
        var v1 = pczt
        v1.version = 1
        v1.ironwood = nil
        v1.orchard?.noteVersion = nil
        v1.sapling = PCZTSaplingBundle()
        XCTAssertEqual(
            try PCZT(parsing: try v1.serialized()).orchard, try PCZT(parsing: try Self.bytes("keystone_fw_orchard_to_transparent")).orchard)
        v1.ironwood = ironwood
        XCTAssertThrowsError(try v1.serialized()) {
            XCTAssertEqual($0 as? PCZTError, .unsupported("a version 1 PCZT has no Ironwood bundle"))
        }
    }

    /// The smallest version 2 PCZT, written out field by field from the crate's serde types:
    /// the global fields, then four absent bundles.
    func testVersion2EmptyBundlesAreOneByteEach() throws {
        var global = PCZTGlobal()
        (global.txVersion, global.versionGroupID, global.consensusBranchID, global.coinType, global.txModifiable) = (
            5, 0x26A7_270A, 0xC8E7_1055, 133, 0x83
        )
        let pczt = PCZT(version: 2, global: global, transparent: nil, sapling: nil, orchard: nil, ironwood: nil)
        let expected = "50435a5402000000" + "05" + "8ace9cb502" + "d5a09cc70c" + "00" + "00" + "8501" + "83" + "00" + "00000000"
        XCTAssertEqual(Hex.encode(try pczt.serialized()), expected)
        XCTAssertEqual(try PCZT(parsing: try Hex.decode(expected)), pczt)
        var memo = pczt
        var bundle = PCZTOrchardBundle(version: 2)
        var action = PCZTAction()
        action.output.ephemeralKey = Array(repeating: 0, count: 32)
        action.output.encCiphertext = .memo([1, 0])
        bundle.actions = [action]
        memo.orchard = bundle
        XCTAssertThrowsError(try PCZT(parsing: try memo.serialized())) {
            XCTAssertEqual($0 as? PCZTError, .unsupported("a memo longer than 512 bytes or with trailing zeros (the crate refuses it)"))
        }
    }
}
