import Foundation
import WalletCore
import XCTest
@testable import WalletKeyStore

final class FileKeyStoreTests: XCTestCase {
    /// Argon2id's minimum cost: these tests are about the format, not the KDF's strength.
    let cheap = KDFParameters(opsLimit: 1, memLimit: 8192)
    let passphrase = SecureBytes(Array("correct horse battery".utf8))

    private func store() throws -> FileKeyStore {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-ks-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return FileKeyStore(directory: dir + "/keystore", kdf: cheap)
    }

    private func entry(_ name: String, _ secret: [UInt8], kind: EntryKind = .bip39Mnemonic) -> KeyStoreEntry {
        KeyStoreEntry(
            metadata: EntryMetadata(
                name: name, kind: kind, created: 1_790_000_000, birthdays: ["btc": 840_000],
                passphraseProtected: true, language: "english"),
            secret: SecureBytes(secret))
    }

    func testRoundTripListAndPermissions() throws {
        let ks = try store()
        let secret = Array(0..<32).map(UInt8.init)
        try ks.store(entry("main", secret), passphrase: passphrase)
        try ks.store(entry("view", Array("xpub661MyMwAqRbc".utf8), kind: .xpub), passphrase: passphrase)
        let back = try ks.load("main", passphrase: passphrase)
        XCTAssertEqual(back.secret.bytes, secret)
        XCTAssertEqual(back.metadata.birthdays, ["btc": 840_000])
        XCTAssertTrue(back.metadata.passphraseProtected)
        XCTAssertEqual(try ks.list().map { try $0.metadata.get().name }, ["main", "view"])
        var info = stat()
        XCTAssertEqual(stat(ks.directory, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o700)
        XCTAssertEqual(stat(ks.directory + "/main.key", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        // The secret's bytes, in any form, are not in the file.
        let file = try Data(contentsOf: URL(fileURLWithPath: ks.directory + "/main.key"))
        XCTAssertNil(file.range(of: Data(secret)))
        XCTAssertNil(file.range(of: Data(Hex.encode(secret).utf8)))
    }

    func testErrors() throws {
        let ks = try store()
        try ks.store(entry("main", [1, 2, 3]), passphrase: passphrase)
        XCTAssertThrowsError(try ks.load("main", passphrase: SecureBytes(Array("wrong passphrase".utf8)))) {
            XCTAssertEqual($0 as? KeyStoreError, .wrongPassphrase(name: "main"))
            XCTAssertEqual(($0 as? KeyStoreError)?.exitStatus, .noPermission)
        }
        XCTAssertThrowsError(try ks.store(entry("main", [9]), passphrase: passphrase)) {
            XCTAssertEqual($0 as? KeyStoreError, .entryExists("main"))
        }
        XCTAssertEqual(try ks.load("main", passphrase: passphrase).secret.bytes, [1, 2, 3], "a refused store changed nothing")
        XCTAssertThrowsError(try ks.load("nope", passphrase: passphrase)) { XCTAssertEqual($0 as? KeyStoreError, .unknownEntry("nope")) }
        for bad in ["", ".hidden", "a/b", String(repeating: "x", count: 65), "sp ace"] {
            XCTAssertThrowsError(try ks.store(entry(bad, [1]), passphrase: passphrase), bad)
        }
        XCTAssertThrowsError(try ks.store(entry("short", [1]), passphrase: SecureBytes(Array("1234567".utf8))))
    }

    /// Every single flipped bit, in every byte, is caught; nothing is ever decrypted from it.
    func testEveryFlippedByteAndEveryTruncationIsRefused() throws {
        let ks = try store()
        try ks.store(entry("main", Array(repeating: 7, count: 16)), passphrase: passphrase)
        let path = ks.directory + "/main.key"
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        for i in 0..<original.count {
            var changed = original
            changed[i] ^= 0x01
            try changed.write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try ks.load("main", passphrase: passphrase), "byte \(i)")
        }
        for length in [0, 10, 91, original.count / 2, original.count - 1] {
            try original.prefix(length).write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try ks.load("main", passphrase: passphrase), "length \(length)") { error in
                let code = (error as? KeyStoreError)?.code
                XCTAssertTrue(code == "keystore.damaged" || code == "keystore.tampered", "\(error)")
            }
        }
        try (original + Data([0])).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try ks.load("main", passphrase: passphrase))
        try original.write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try ks.load("main", passphrase: passphrase).secret.bytes, Array(repeating: 7, count: 16))
    }

    func testHostileKDFParametersAreRefusedBeforeUse() throws {
        let ks = try store()
        try ks.store(entry("main", [1]), passphrase: passphrase)
        let path = ks.directory + "/main.key"
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        for i in 20..<28 { data[i] = 0xFF }  // memlimit: 2^64 − 1
        try data.write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try ks.load("main", passphrase: passphrase)) {
            XCTAssertEqual(($0 as? KeyStoreError)?.code, "keystore.damaged")
        }
    }

    func testDestroyAndChangePassphrase() throws {
        let ks = try store()
        try ks.store(entry("a", [1, 2]), passphrase: passphrase)
        let newPass = SecureBytes(Array("another long passphrase".utf8))
        try ks.changePassphrase("a", from: passphrase, to: newPass)
        XCTAssertThrowsError(try ks.load("a", passphrase: passphrase))
        XCTAssertEqual(try ks.load("a", passphrase: newPass).secret.bytes, [1, 2])
        XCTAssertThrowsError(try ks.changePassphrase("a", from: passphrase, to: newPass)) {
            XCTAssertEqual($0 as? KeyStoreError, .wrongPassphrase(name: "a"))
        }
        try ks.destroy("a")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ks.directory + "/a.key"))
        XCTAssertThrowsError(try ks.destroy("a")) { XCTAssertEqual($0 as? KeyStoreError, .unknownEntry("a")) }
        XCTAssertEqual(try ks.list().count, 0)
        XCTAssertTrue(try FileManager.default.contentsOfDirectory(atPath: ks.directory).allSatisfy { $0 == ".lock" })
    }

    func testOpenDirectoryIsRefused() throws {
        let ks = try store()
        try ks.store(entry("a", [1]), passphrase: passphrase)
        chmod(ks.directory, 0o755)
        XCTAssertThrowsError(try ks.list()) { XCTAssertEqual(($0 as? KeyStoreError)?.code, "keystore.insecure_directory") }
    }
}
