import CPCSCLite
import CSecp256k1
import CZstd
import XCTest
@testable import WalletCore
@testable import WalletCrypto

final class HashTests: XCTestCase {
    private func pbkdf2(_ password: String, _ salt: String, _ iterations: Int, _ length: Int) -> String {
        Array(password.utf8).withUnsafeBytes { p in
            Array(salt.utf8).withUnsafeBytes { s in
                Hash.pbkdf2SHA512(password: p, salt: s, iterations: iterations, keyLength: length).hex
            }
        }
    }

    // Values from RFC 8018-style PBKDF2-HMAC-SHA512 test sets (cross-checked with OpenSSL).
    func testPBKDF2SHA512KnownAnswers() {
        XCTAssertEqual(
            pbkdf2("password", "salt", 1, 64),
            "867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce"
        )
        XCTAssertEqual(
            pbkdf2("password", "salt", 2, 64),
            "e1d9c16aa681708a45f5c7c4e215ceb66e011a2e9f0040713f18aefdb866d53cf76cab2868a39b9f7840edce4fef5a82be67335c77a6068e04112754f27ccf4e"
        )
        // Two output blocks, a password longer than one SHA-512 block once salted.
        XCTAssertEqual(
            pbkdf2("passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, 100),
            "8c0511f4c6e597c6ac6315d8f0362e225f3c501495ba23b868c005174dc4ee71115b59f9e60cd9532fa33e0f75aefe30225c583a186cd82bd4daea9724a3d3b804f75bdd41494fa324cab24bcc680fb3b96a30cf5d21fac3c2875913919f3399b1d9ce7e"
        )
    }

    func testSHA256() {
        XCTAssertEqual(
            Hex.encode(Hash.sha256(Array("abc".utf8))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            Hex.encode(Hash.sha256([UInt8]())),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testCRC32CheckValue() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
    }
}

final class EncodingTests: XCTestCase {
    func testHexRoundTripAndErrors() throws {
        XCTAssertEqual(try Hex.decode("00ffA0"), [0x00, 0xff, 0xa0])
        XCTAssertEqual(Hex.encode([0x00, 0xff, 0xa0]), "00ffa0")
        XCTAssertThrowsError(try Hex.decode("abc")) { XCTAssertEqual($0 as? EncodingError, .oddHexLength(3)) }
        XCTAssertThrowsError(try Hex.decode("0g")) { XCTAssertEqual($0 as? EncodingError, .invalidHexCharacter(offset: 1)) }
    }

    func testSecureBytesComparesAndCopies() {
        let a = SecureBytes([1, 2, 3])
        XCTAssertEqual(a, SecureBytes([1, 2, 3]))
        XCTAssertNotEqual(a, SecureBytes([1, 2, 4]))
        XCTAssertNotEqual(a, SecureBytes([1, 2]))
        XCTAssertEqual(SecureBytes(count: 0).count, 0)
        XCTAssertEqual(SecureBytes(count: 0), SecureBytes([]))
        // Equal exactly when the bytes are, wherever one bit differs (the comparison reads
        // every byte).
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let bytes = (0..<Int.random(in: 1...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var other = bytes
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            other[position] ^= 1 << UInt8.random(in: 0...7, using: &generator)
            XCTAssertEqual(SecureBytes(bytes), SecureBytes(bytes))
            XCTAssertNotEqual(SecureBytes(bytes), SecureBytes(other), "a bit at byte \(position)")
        }
        XCTAssertEqual(a.hex, "010203")
        // A copy is its own buffer: changing one leaves the other.
        let copy = a.prefixed()
        copy.withUnsafeMutableBytes { $0[0] = 7 }
        XCTAssertEqual(a.hex, "010203")
        XCTAssertEqual(copy.hex, "070203")
        XCTAssertEqual(a.prefixed(by: [0xAA, 0xBB]).hex, "aabb010203")
        XCTAssertEqual(SecureBytes(count: 0).prefixed(by: [5]).hex, "05")
    }

    func testWipeZeroesArray() {
        var secret: [UInt8] = [9, 9, 9]
        SecureBytes.wipe(&secret)
        XCTAssertEqual(secret, [0, 0, 0])
    }
}

final class Ed25519ScalarTests: XCTestCase {
    // ℓ = 2^252 + 27742317777372353535851937790883648493, little-endian.
    let order = "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"

    func testReduce() throws {
        XCTAssertEqual(Ed25519Scalar.reduce32(try Hex.decodeSecret(order)).hex, String(repeating: "0", count: 64))
        XCTAssertFalse(Ed25519Scalar.isCanonical(try Hex.decodeSecret(order)))
        XCTAssertTrue(Ed25519Scalar.isCanonical(try Hex.decodeSecret("ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")))
        XCTAssertEqual(
            Ed25519Scalar.reduce32(try Hex.decodeSecret("eed3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")).hex,
            "01" + String(repeating: "0", count: 62))
    }
}

final class ExitStatusTests: XCTestCase {
    func testSysexitsNumbers() {
        XCTAssertEqual(ExitStatus.usage.rawValue, 64)
        XCTAssertEqual(ExitStatus.dataError.rawValue, 65)
        XCTAssertEqual(ExitStatus.unavailable.rawValue, 69)
        XCTAssertEqual(ExitStatus.ioError.rawValue, 74)
        XCTAssertEqual(ExitStatus.tryAgain.rawValue, 75)
        XCTAssertEqual(max(ExitStatus.ok, .dataError), .dataError)
        XCTAssertEqual(max(ExitStatus.dataError, .ioError), .ioError)
    }
}

/// The C targets the later tools need link and answer (no behaviour of ours yet).
final class SystemLibraryTests: XCTestCase {
    func testSecp256k1Links() throws {
        let context = try XCTUnwrap(secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)))
        var key = [UInt8](repeating: 0, count: 32)
        key[31] = 1
        var pubkey = secp256k1_pubkey()
        XCTAssertEqual(secp256k1_ec_pubkey_create(context, &pubkey, key), 1)
        var out = [UInt8](repeating: 0, count: 33)
        var length = 33
        secp256k1_ec_pubkey_serialize(context, &out, &length, &pubkey, UInt32(SECP256K1_EC_COMPRESSED))
        // 1·G
        XCTAssertEqual(Hex.encode(out), "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
        secp256k1_context_destroy(context)
    }

    func testZstdLinks() {
        XCTAssertGreaterThanOrEqual(ZSTD_versionNumber(), 10400)
    }

    func testPCSCLiteLinks() {
        XCTAssertNotNil(pcsc_stringify_error(LONG(SCARD_E_NO_SERVICE)))
    }
}

final class ConstantTimeTests: XCTestCase {
    func testMasks() {
        for x: UInt64 in [0, 1, 2, 0x7FFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0000, .max] {
            XCTAssertEqual(ConstantTime.zeroMask(x), x == 0 ? .max : 0, "\(x)")
            XCTAssertEqual(ConstantTime.equalMask(x, x), .max)
            XCTAssertEqual(ConstantTime.equalMask(x, x ^ 1), 0)
            XCTAssertEqual(ConstantTime.equalMask(x, x ^ 0x8000_0000_0000_0000), 0)
        }
        XCTAssertTrue(ConstantTime.declassified(true))
        XCTAssertFalse(ConstantTime.declassified(false))
        XCTAssertEqual(ConstantTime.declassified([1, 2, 3]), [1, 2, 3])
    }
}
