import WalletKeyStore

/// Key-store files as they lie on disk: a damaged or hostile file is read up to the
/// passphrase check (Argon2 itself is no parser, and a fuzzer cannot wait for it).
enum KeyStoreTargets {
    static let all = [
        FuzzTarget(name: "keystore-file", covers: "key-store entry files: header, KDF bounds, metadata JSON", run: entryFile)
    ]

    static func entryFile(_ bytes: [UInt8]) {
        if let metadata = try? EntryFile.metadata(of: bytes, name: "fuzz") {
            holds(EntryFile.decode(EntryFile.encode(metadata)) == metadata, "an entry's metadata changed on a write and read")
        }
        if let metadata = EntryFile.decode(bytes) {
            holds(EntryFile.decode(EntryFile.encode(metadata)) == metadata, "metadata changed on a write and read")
        }
    }
}
