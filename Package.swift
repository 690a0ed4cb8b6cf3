// swift-tools-version: 6.1
// Satchel: small Unix tools for people who keep their own keys.
// Layering (arrows point down only; docs/ARCHITECTURE.md draws it; scripts/check-imports.py holds
// each target to its imports):
//   executables (mnemonic derive sign-hash sign-tx keystore scan-blocks card-info; keycard-sim)
//   → per-job libraries DeriveRecords, SigningRecords (+ SigningQR), ScanRecords, MnemonicRecords, QRRecords → WalletCardCLI
//   → KeySources → WalletRecords (the record runtime)
//   → chain modules: Monero's and Zcash's keys and curves, Bitcoin's transactions and PSBTs,
//     Ethereum; their scanners MoneroScan, ZcashScan and BitcoinScan (socket code apart:
//     MoneroNode, ZcashLightwalletd, BitcoinNode, over NodeHTTP) → WalletScan (the engine) → WalletKeys,
//     WalletKeyStore, WalletCard (+ KeycardSimulator), WalletQR, WalletUR → WalletCrypto (curves and
//     hashes), WalletFiles (whole files, private directories) → WalletCore (values, errors, JSON, encodings)
//   → C targets: CSodium CSecp256k1 CZstd CPCSCLite CQREncode CSQLite COpenSSL CBlake2 CZlib CLevelDB (Debian),
//     CProcess CCurveBatch CSHA256 (ours).
//   Benchmarks (BenchSupport, *-bench), satchel-ctime, satchel-fuzz and SatchelTestSupport sit beside.
import PackageDescription

/// One system-library target per C library, found with pkg-config; the hint names the Debian package.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

// The modules that compute (curve and field arithmetic, hashes, parsers, the card simulator)
// are optimized in debug builds too: unoptimized, Swift's generic integer arithmetic makes a
// test's scan or derivation 10-50 times slower, and the end-to-end tests run the tools
// thousands of times. Tools' argument handling and the tests stay debuggable.
let optimizedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "Satchel",
    platforms: [.macOS(.v15)],  // grpc-swift-2 (the --lightwalletd source) needs macOS 15
    products: [
        .executable(name: "mnemonic", targets: ["mnemonic"]),
        .executable(name: "derive", targets: ["derive"]),
        .executable(name: "sign-hash", targets: ["sign-hash"]),
        .executable(name: "sign-tx", targets: ["sign-tx"]),
        .executable(name: "keystore", targets: ["keystore"]),
        .executable(name: "scan-blocks", targets: ["scan-blocks"]),
        .executable(name: "card-info", targets: ["card-info"]),
        .library(name: "WalletKeys", targets: ["WalletKeys"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
        .package(url: "https://github.com/grpc/grpc-swift-2", exact: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", exact: "2.9.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),  // in the graph already; named to tell TLS failures apart
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),  // in the graph already: monerod's HTTP
    ],
    targets: [
        systemLibrary("CSodium", pkgConfig: "libsodium", apt: "libsodium-dev"),
        systemLibrary("CSecp256k1", pkgConfig: "libsecp256k1", apt: "libsecp256k1-dev"),
        systemLibrary("CZstd", pkgConfig: "libzstd", apt: "libzstd-dev"),
        systemLibrary("CPCSCLite", pkgConfig: "libpcsclite", apt: "libpcsclite-dev"),
        systemLibrary("CQREncode", pkgConfig: "libqrencode", apt: "libqrencode-dev"),
        systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: "libsqlite3-dev"),
        systemLibrary("COpenSSL", pkgConfig: "libcrypto", apt: "libssl-dev"),
        systemLibrary("CBlake2", pkgConfig: "libb2", apt: "libb2-dev"),
        systemLibrary("CZlib", pkgConfig: "zlib", apt: "zlib1g-dev"),
        // LevelDB ships no pkg-config file: its header and library are on the default paths.
        .systemLibrary(name: "CLevelDB", providers: [.apt(["libleveldb-dev"])]),

        .target(name: "CProcess"),
        // Batched curve arithmetic: AVX-512 IFMA / AVX2 / portable kernels chosen at run
        // time from cpuid, each with its own target attribute (never -march for the package, so
        // one binary runs on any x86-64); -O2 in debug too, as the tests run 10^5 products a path.
        // libsodium's X25519 is the portable ladder.
        .target(name: "CCurveBatch", dependencies: ["CSodium"], cSettings: [.unsafeFlags(["-O2"])]),
        // Values, errors, JSON and encodings: no C library, so that a module that needs only
        // these (WalletUR, WalletQR) links no crypto.
        .target(name: "WalletCore", swiftSettings: optimizedInDebug),
        // Curves and hashes, over Debian's crypto libraries and our batched kernels.
        .target(name: "WalletCrypto", dependencies: ["CSodium", "CSecp256k1", "COpenSSL", "CCurveBatch", "WalletCore"], swiftSettings: optimizedInDebug),
        // Files that must never be seen half-written, and private directories.
        .target(name: "WalletFiles"),
        // SHA256d two messages at a time on SHA-NI (cpuid at run time, its own target attribute),
        // OpenSSL's SHA-256 otherwise: Bitcoin's txids, wtxids and merkle trees.
        .target(name: "CSHA256", dependencies: ["COpenSSL"], cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "WalletKeys", dependencies: ["WalletCrypto", "WalletCore"], swiftSettings: optimizedInDebug),
        .target(name: "WalletScan", dependencies: ["WalletFiles", "CSQLite", "CZstd", "WalletCore"], swiftSettings: optimizedInDebug),
        // Monero's keys, addresses and curve arithmetic (what a key record needs); its blocks,
        // transactions and scanner in MoneroScan, over the engine.
        .target(name: "Monero", dependencies: ["WalletCrypto", "CSodium", "WalletKeys", "WalletCore"], swiftSettings: optimizedInDebug),
        .target(name: "MoneroScan", dependencies: ["WalletCrypto", "Monero", "WalletScan", "WalletKeys", "WalletCore"], swiftSettings: optimizedInDebug),
        // HTTP/1.1 to a node over SwiftNIO (not URLSession, whose libcurl keeps the tools from
        // linking statically): one deadline per call, capped answers. scan-blocks' alone.
        .target(name: "NodeHTTP", dependencies: [
            "WalletCore",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        // The only Monero code that opens sockets: monerod's RPC.
        .target(name: "MoneroNode", dependencies: ["MoneroScan", "Monero", "NodeHTTP", "WalletScan", "WalletCore"]),
        // Field arithmetic unoptimized is 30× slower: the tests' trial decryptions need -O in debug too.
        // Zcash's keys, curves, notes, trial decryption and transaction ids; its compact blocks
        // (SwiftProtobuf) and scanner in ZcashScan, over the engine.
        .target(name: "Zcash", dependencies: ["WalletCrypto", "CBlake2", "CCurveBatch", "COpenSSL", "CSodium", "WalletKeys", "WalletCore"], swiftSettings: optimizedInDebug),
        .target(name: "ZcashScan", dependencies: ["Zcash", "WalletScan", "WalletCore",
                                                  .product(name: "SwiftProtobuf", package: "swift-protobuf")],
                swiftSettings: optimizedInDebug),
        // The only Zcash code that opens sockets: lightwalletd's gRPC service, apart so that the
        // chain's arithmetic builds and tests without SwiftNIO.
        .target(name: "ZcashLightwalletd", dependencies: [
            "ZcashScan", "Zcash", "WalletScan", "WalletCore",
            .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            .product(name: "GRPCCore", package: "grpc-swift-2"),
            .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        // Bitcoin-family chains (Bitcoin, Litecoin with MWEB): transactions, scripts, sighashes and PSBTs — what
        // sign-tx needs, with no engine, SQLite or zstd.
        .target(name: "Bitcoin", dependencies: ["WalletCrypto", "CSHA256", "WalletKeys", "WalletCore"], swiftSettings: optimizedInDebug),
        // Their raw blocks (MWEB too), watch sets of scripts, block sources and scanner, over the engine.
        .target(name: "BitcoinScan", dependencies: ["WalletCrypto", "Bitcoin", "CLevelDB", "CSHA256", "WalletScan", "WalletKeys", "WalletCore"], swiftSettings: optimizedInDebug),
        // The only Bitcoin code that opens sockets: bitcoind's (litecoind's) JSON-RPC and REST.
        .target(name: "BitcoinNode", dependencies: ["BitcoinScan", "Bitcoin", "NodeHTTP", "WalletScan", "WalletCore"]),
        // Ethereum's transactions (legacy EIP-155, EIP-2930, EIP-1559), RLP, EIP-191 and EIP-712:
        // what is signed, built here; the key is the caller's.
        .target(name: "Ethereum", dependencies: ["WalletCrypto", "WalletKeys", "WalletCore"], swiftSettings: optimizedInDebug),
        .target(name: "WalletKeyStore", dependencies: ["WalletCrypto", "WalletFiles", "CSodium", "WalletCore"]),
        .target(name: "WalletCard", dependencies: ["WalletCrypto", "COpenSSL", "CSodium", "CPCSCLite", "WalletCore"], swiftSettings: optimizedInDebug),
        .target(name: "WalletCardCLI", dependencies: [
            "WalletCrypto", "WalletCard", "WalletRecords", "WalletKeyStore", "WalletKeys", "WalletCore", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .target(name: "KeycardSimulator", dependencies: ["WalletCrypto", "WalletCard", "WalletKeys", "WalletCore"], swiftSettings: optimizedInDebug),
        .target(name: "WalletQR", dependencies: ["CQREncode", "WalletCore"]),
        // Animated QR transports: Blockchain Commons URs (Bytewords, fountain codes, CBOR, the
        // registry types) and Coinkite's BBQr (zlib's raw DEFLATE and CRC-32).
        .target(name: "WalletUR", dependencies: ["WalletCrypto", "CZlib", "WalletCore"], swiftSettings: optimizedInDebug),
        // The record runtime every tool shares: the JSON Lines pipeline, streams, secret input,
        // record errors and exit statuses, and the key-file and key-store options. No chain.
        .target(name: "WalletRecords", dependencies: [
            "CProcess", "WalletCore", "WalletKeys", "WalletKeyStore", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Each tool's logic, a library per job, over the runtime: keys from records and the key
        // store (KeySources), phrases (MnemonicRecords), keys and addresses (DeriveRecords),
        // signing (SigningRecords), scanning (ScanRecords); cards in WalletCardCLI.
        .target(name: "KeySources", dependencies: [
            "WalletCrypto", "WalletRecords", "WalletCore", "WalletKeys", "WalletKeyStore", "Monero", "Zcash", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .target(name: "MnemonicRecords", dependencies: [
            "WalletCrypto", "WalletRecords", "WalletCore", "WalletKeys", "Monero", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // QR codes as records: an address's image, UR and BBQr parts read among records and
        // written as records, lines, terminal frames or images.
        .target(name: "QRRecords", dependencies: [
            "WalletCrypto", "WalletUR", "WalletQR", "WalletRecords", "WalletCore", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .target(name: "DeriveRecords", dependencies: [
            "WalletCrypto", "KeySources", "WalletCardCLI", "WalletRecords", "WalletCore", "WalletKeys", "WalletKeyStore", "WalletUR", "Monero", "Zcash",
            "Bitcoin", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .target(name: "SigningRecords", dependencies: [
            "WalletCrypto", "WalletFiles", "KeySources", "WalletCardCLI", "WalletCard", "WalletRecords", "WalletCore", "WalletKeys", "Bitcoin", "Ethereum", "Zcash",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // sign-tx's QR transports: PSBTs and Ethereum requests over UR and BBQr (sign-hash links none of it).
        .target(name: "SigningQR", dependencies: [
            "WalletCrypto", "SigningRecords", "QRRecords", "WalletUR", "Bitcoin", "Ethereum", "WalletKeys", "WalletRecords", "WalletCore", "Zcash",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .target(name: "ScanRecords", dependencies: [
            "ZcashScan", "MoneroScan", "KeySources", "WalletRecords", "WalletCore", "WalletKeys", "WalletKeyStore", "WalletScan", "Monero", "Zcash", "BitcoinScan", "Bitcoin",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .executableTarget(name: "mnemonic", dependencies: [
            "MnemonicRecords", "KeySources", "WalletRecords", "WalletCardCLI", "WalletKeys", "WalletCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "derive", dependencies: [
            "DeriveRecords", "QRRecords", "KeySources", "WalletRecords", "WalletCardCLI", "WalletKeys", "WalletCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "sign-hash", dependencies: [
            "SigningRecords", "KeySources", "WalletRecords", "WalletCardCLI", "WalletKeys", "WalletCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "sign-tx", dependencies: [
            "SigningQR", "SigningRecords", "QRRecords", "WalletUR", "KeySources", "WalletRecords", "WalletCardCLI", "Bitcoin", "WalletKeys", "WalletCore", "Zcash",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "keystore", dependencies: [
            "KeySources", "WalletRecords", "WalletKeyStore", "WalletCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "scan-blocks", dependencies: [
            "WalletCrypto", "ScanRecords", "KeySources", "WalletRecords", "WalletScan", "Bitcoin", "BitcoinNode", "MoneroNode", "ZcashLightwalletd", "WalletCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "card-info", dependencies: [
            "KeySources", "WalletRecords", "WalletCard", "WalletCardCLI", "WalletKeys", "WalletCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "keycard-sim", dependencies: ["KeycardSimulator"]),
        .target(name: "BenchSupport", path: "Benchmarks/BenchSupport"),
        .executableTarget(name: "monero-bench", dependencies: ["WalletCrypto", "MoneroScan", "BenchSupport", "Monero", "WalletScan", "WalletCore", "CSodium"], path: "Benchmarks/monero-bench"),
        // make ctime's check of the Swift code that multiplies by a secret on the portable path.
        .executableTarget(
            name: "satchel-ctime", dependencies: ["WalletCrypto", "Zcash", "Monero", "Bitcoin", "CCurveBatch", "WalletCore"], path: "Tests/ctime/Swift"),
        .executableTarget(name: "zcash-bench", dependencies: ["WalletCrypto", "ZcashScan", "BenchSupport", "Zcash", "CCurveBatch", "WalletCore", "CSodium"], path: "Benchmarks/zcash-bench"),
        .executableTarget(name: "bitcoin-bench", dependencies: ["WalletCrypto", "BenchSupport", "BitcoinScan", "Bitcoin", "CCurveBatch", "COpenSSL", "CSHA256", "CSecp256k1", "WalletScan", "WalletKeys", "WalletCore"], path: "Benchmarks/bitcoin-bench"),
        .executableTarget(name: "satchel-bench", dependencies: ["WalletCrypto", "BenchSupport", "WalletKeys", "WalletUR", "WalletCore"], path: "Benchmarks/satchel-bench"),

        // Every parser's libFuzzer target (docs/RELIABILITY.md). A plain build replays inputs;
        // `make fuzz` builds it apart (.build-fuzz) with -sanitize=fuzzer,address -DFUZZING.
        .executableTarget(name: "satchel-fuzz", dependencies: [
            "WalletCrypto", "WalletFiles", "WalletScan", "ZcashScan", "MoneroScan", "KeySources", "DeriveRecords", "ScanRecords", "WalletRecords", "WalletKeys", "WalletCore", "Monero", "Zcash", "BitcoinScan", "Bitcoin", "Ethereum", "WalletCard", "WalletKeyStore", "WalletUR",
        ], path: "Fuzz", exclude: ["corpus", "make-seeds.py"]),

        .target(name: "SatchelTestSupport", path: "Tests/SatchelTestSupport"),
        .testTarget(name: "WalletCoreTests", dependencies: ["WalletCrypto", "WalletKeys", "WalletCore", "CCurveBatch", "CSecp256k1", "CZstd", "CPCSCLite", "SatchelTestSupport"]),
        .testTarget(name: "WalletKeysTests", dependencies: ["WalletCrypto", "WalletKeys", "WalletCore", "SatchelTestSupport"]),
        .testTarget(name: "WalletURTests", dependencies: ["WalletCrypto", "WalletUR", "WalletCore", "SatchelTestSupport"]),
        .testTarget(name: "WalletKeyStoreTests", dependencies: ["WalletKeyStore", "WalletCore"]),
        .testTarget(name: "WalletScanTests", dependencies: ["WalletCrypto", "MoneroScan", "WalletScan", "Monero", "WalletKeys", "WalletCore", "SatchelTestSupport"]),
        .testTarget(name: "MoneroTests", dependencies: ["WalletCrypto", "MoneroScan", "Monero", "CSodium", "WalletScan", "WalletKeys", "WalletCore", "SatchelTestSupport"]),
        .testTarget(name: "ZcashTests", dependencies: ["WalletCrypto", "ZcashScan", "Zcash", "CCurveBatch", "WalletScan", "WalletKeys", "WalletCore", "SatchelTestSupport"]),
        .testTarget(name: "EthereumTests", dependencies: ["WalletCrypto", "Ethereum", "WalletKeys", "WalletCore", "SatchelTestSupport"]),
        .testTarget(name: "BitcoinTests", dependencies: ["WalletCrypto", "BitcoinScan", "Bitcoin", "CSHA256", "WalletScan", "WalletKeys", "WalletCore", "SatchelTestSupport"]),
        .testTarget(name: "ZcashLightwalletdTests", dependencies: ["ZcashLightwalletd"]),
        .testTarget(name: "MoneroNodeTests", dependencies: ["MoneroNode", "NodeHTTP", "WalletScan", "WalletCore", "SatchelTestSupport"]),
        .testTarget(name: "WalletCardTests", dependencies: ["WalletCrypto", "WalletCard", "WalletCardCLI", "SigningRecords", "DeriveRecords", "KeySources", "WalletRecords", "KeycardSimulator", "Bitcoin", "Ethereum", "WalletKeys", "WalletCore", "SatchelTestSupport"]),
        .testTarget(name: "ToolRecordsTests", dependencies: ["WalletCrypto", "MoneroScan", "KeySources", "MnemonicRecords", "DeriveRecords", "SigningRecords", "ScanRecords", "WalletRecords", "WalletKeys", "WalletQR", "WalletUR", "QRRecords", "WalletScan", "Monero", "Zcash", "WalletCore", "Bitcoin", "SatchelTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["WalletCrypto", "SatchelTestSupport", "Bitcoin", "WalletKeys", "WalletCore", "Zcash"]),
    ]
)
