import ArgumentParser

/// Where scan-blocks' blocks come from: files (--blocks, --txs), a node's RPC (--node) or a
/// lightwalletd (--lightwalletd, with its TLS options), and how long a server may keep it
/// waiting. The checks that hold for every chain are here; which source a chain takes is the
/// command's.
public struct ScanSourceOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Block records, JSON Lines, plain or zstd: height, hash, blob, tx_hashes; transaction records may be mixed in. - is stdin (the key then comes from --wallet, --key-file or --key-fd).",
            valueName: "file"))
    public var blocks: String?

    @Option(
        help: ArgumentHelp(
            "Transaction records, JSON Lines, plain or zstd: tx_hash, hex, in_pool (zcash: height, txid, raw_tx, for memos).",
            valueName: "file"))
    public var txs: String?

    @Option(
        help: ArgumentHelp(
            "A node's RPC address instead of --blocks: monerod's (127.0.0.1:18081), or bitcoind's or litecoind's (the network's RPC port by default).",
            valueName: "host:port"))
    public var node: String?

    @Option(
        help: ArgumentHelp(
            "--chain zcash: a lightwalletd's gRPC address, e.g. lwd.example.org:9067, instead of --blocks; TLS unless --plaintext.",
            valueName: "host:port"))
    public var lightwalletd: String?

    @Flag(help: "With --lightwalletd on this machine (127.0.0.1, ::1, localhost): no TLS.")
    public var plaintext = false

    @Option(help: ArgumentHelp("With --lightwalletd: PEM certificates to trust instead of the system's.", valueName: "file"))
    public var caFile: String?

    @Option(
        help: ArgumentHelp(
            "With --node or --lightwalletd: seconds without an answer before a call is tried again (3 times, then exit 69); with --node the whole call must end within it.",
            valueName: "seconds"))
    public var timeout: Double = 30

    public init() {}

    public func validate() throws {
        if node != nil && blocks != nil { throw ValidationError("give --blocks or --node, not both") }
        if (plaintext || caFile != nil) && lightwalletd == nil { throw ValidationError("--plaintext and --ca-file go with --lightwalletd") }
        if plaintext && caFile != nil { throw ValidationError("give --plaintext or --ca-file, not both") }
        guard timeout.isFinite, (0.1...3_600).contains(timeout) else { throw ValidationError("--timeout must be 0.1 to 3600 seconds") }
        if txs == "-" { throw ValidationError("--txs cannot be stdin: give --blocks - with the transaction records mixed in") }
    }

    /// Whether the chain comes from a server (--node or --lightwalletd): what --follow needs.
    public var isServer: Bool { node != nil || lightwalletd != nil }
}
