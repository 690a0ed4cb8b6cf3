// satchel-bench: in-process timings of the core operations, one JSON line per measurement.
// bench/run.py runs it beside a reference (Python's hashlib, i.e. OpenSSL's C PBKDF2, and the
// `mnemonic` package) in the same run and prints ratios. Not part of `make test`.
#if canImport(Glibc)
    import Glibc
#endif
import BenchSupport
import WalletCore
import WalletKeys
import WalletUR
import WalletCrypto

// `satchel-bench ur-hostile`: bench/ur_decode.py's measure of the fountain decoder under a
// hostile screen (mixed parts of a 10,000-fragment message that never complete).
if CommandLine.arguments.dropFirst().first == "ur-hostile" {
    urHostileBench()
    exit(0)
}

// Phrases are read one per line from stdin, so Swift and the reference work on the same input.
var phrases = [String]()
while let line = readLine() { if !line.isEmpty { phrases.append(line) } }
guard !phrases.isEmpty else {
    let message = "satchel-bench: give phrases on stdin, one per line\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(64)
}

let bip39 = BIP39()
let seedCount = min(phrases.count, 200)
let parsed = try phrases.map { try bip39.parse($0, language: "english") }

report(
    "phrase_to_seed",
    try measure(repeats: 5, count: seedCount) { i in
        let m = try bip39.parse(phrases[i], language: nil)
        _ = try bip39.seed(of: m, passphrase: nil)
    })
report(
    "pbkdf2_only",
    try measure(repeats: 5, count: seedCount) { i in
        _ = try bip39.seed(of: parsed[i], passphrase: nil)
    })
report(
    "validate_detect",
    try measure(repeats: 5, count: phrases.count) { i in
        _ = try bip39.parse(phrases[i], language: nil)
    })
report(
    "validate_english",
    try measure(repeats: 5, count: phrases.count) { i in
        _ = try bip39.parse(phrases[i], language: "english")
    })

// BIP84 receive addresses from an account xpub: CKDpub + HASH160 + bech32, as a watch-only
// server does. The account key is the BIP84 vector's (public test data).
let accountXpub = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs"
let receive = try ExtendedKey(parsing: accountXpub).child(0)
let btc = CoinNetwork.find(coin: "btc", network: "main")!
let addressCount = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 100_000
var sink = 0
report(
    "xpub_p2wpkh_address",
    try measure(repeats: 3, count: addressCount) { i in
        let child = try receive.child(UInt32(i))
        sink &+= try btc.address(for: child.publicKey, script: .p2wpkh).address.utf8.count
    })
report(
    "xpub_ckdpub_only",
    try measure(repeats: 3, count: addressCount) { i in
        sink &+= Int(try receive.child(UInt32(i)).depth)
    })
if sink == 42 { print("") }  // keeps the work from being optimised away

// ECDSA signatures (RFC 6979, recoverable), one key, distinct hashes: what sign-hash does per
// record. The reference is bench/sign.c over secp256k1_ecdsa_sign_recoverable.
let signingKey = SecureBytes([UInt8](repeating: 0, count: 31) + [1])
var hashes = (0..<addressCount).map { i in Hash.sha256(Array(String(i).utf8)) }
report(
    "ecdsa_sign_recoverable",
    try measure(repeats: 3, count: addressCount) { i in
        sink &+= try Secp256k1.signECDSA(hash: hashes[i], privateKey: signingKey).recoveryID
    })
hashes.removeAll()
if sink == 43 { print("") }
