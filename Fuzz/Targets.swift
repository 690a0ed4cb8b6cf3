/// One parser under the fuzzer: bytes in; a broken invariant stops the process (libFuzzer
/// keeps the input as a crash). A parser's thrown error is a fine answer, never a finding.
struct FuzzTarget: Sendable {
    let name: String
    /// What it reads, for --list's readers and docs/RELIABILITY.md.
    let covers: String
    let run: @Sendable ([UInt8]) -> Void
}

enum FuzzTargets {
    static let all: [FuzzTarget] =
        RecordTargets.all + EncodingTargets.all + KeyTargets.all + ZcashTargets.all
        + MoneroTargets.all + BitcoinTargets.all + EthereumTargets.all + CardTargets.all + KeyStoreTargets.all + QRTargets.all
}

/// Stops with the invariant's statement: the fuzzer reports it as a crash and keeps the input.
func holds(_ condition: Bool, _ statement: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    if !condition { fatalError("invariant broken: \(statement())", file: file, line: line) }
}

/// Input bytes as text: libFuzzer's mutations are bytes, the parsers of typed things read Strings.
func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// The first byte as a selector (which network, which version…) and the rest as the payload.
func split(_ bytes: [UInt8]) -> (UInt8, [UInt8]) {
    guard let first = bytes.first else { return (0, []) }
    return (first, Array(bytes.dropFirst()))
}
