import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import NIOSSL
import SwiftProtobuf
import Synchronization
import WalletCore
import WalletScan
import Zcash
import ZcashScan

/// Compact blocks live from a lightwalletd over gRPC: `GetLatestBlock` for the tip and
/// `GetBlockRange` for the blocks (all shielded pools: an empty `poolTypes`), from
/// lightwalletd's CompactTxStreamer (proto/service.proto).
/// Each block is handed on as the bytes the server sent, after its height is checked; the
/// synchronizer checks the chain by prevHash, as for a file.
///
/// TLS is on unless `plaintext` is set, which only a loopback address may ask for: a compact
/// block stream altered on the way could hide a payment. A call that fails for a reason that may
/// pass (unreachable, dropped, no data for `timeout` seconds) is tried again `retries` times,
/// resuming after the last block received; then the run ends with exit 69.
///
/// Memos are not fetched: asking for a transaction by its id (GetTransaction) would tell the
/// server which ones are the wallet's.
public final class LightwalletdSource: BlockSource, Sendable {
    public struct Options: Sendable {
        /// No TLS: for a lightwalletd on this machine only.
        public var plaintext = false
        /// PEM certificates to trust instead of the system's (a self-hosted lightwalletd).
        public var trustRoots: String?
        /// Seconds without a reply (a block of a stream, or an answer) before a call counts as stalled.
        public var timeout: Double = 30
        /// How many times a failed call is tried again, after 1, 2, 4, … seconds.
        public var retries = 3
        /// The first wait before trying again, in seconds (doubling after each try).
        public var retryDelay: Double = 1
        /// The height from which the scan needs the Ironwood pool (NU6.3's, with Orchard keys):
        /// the first range that reaches it asks GetLightdInfo and refuses (69) a server too old
        /// to send Ironwood data, which would otherwise hide every payment since NU6.3.
        public var ironwoodFrom: Int?
        public init() {}
    }

    /// The address as given, for messages.
    public let address: String
    private let options: Options
    private let client: GRPCClient<HTTP2ClientTransport.Posix>
    private let tip = Mutex<Int?>(nil)
    private let ironwoodChecked = Mutex(false)

    static let service = ServiceDescriptor(fullyQualifiedService: "cash.z.wallet.sdk.rpc.CompactTxStreamer")
    static let getLatestBlock = MethodDescriptor(service: service, method: "GetLatestBlock")
    static let getBlockRange = MethodDescriptor(service: service, method: "GetBlockRange")
    static let getLightdInfo = MethodDescriptor(service: service, method: "GetLightdInfo")

    /// Whether a server that says this of itself sends Ironwood's actions and tree size:
    /// lightwalletd 0.5.0 and later do (older ones send no Ironwood data at all); released
    /// 0.5.x servers leave `lightwalletProtocolVersion` empty, and a server that fills it in is
    /// newer still. A version that is not lightwalletd's numbering tells nothing: not served.
    public static func servesIronwood(version: String, protocolVersion: String) -> Bool {
        if !protocolVersion.isEmpty { return true }
        let numbers = version.drop { $0 == "v" || $0 == "V" }.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let parts = numbers.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count >= 2, let major = parts[0], let minor = parts[1] else { return false }
        return (major, minor) >= (0, 5)
    }

    /// GetLightdInfo, once: the server must serve Ironwood.
    private func checkIronwood() throws {
        guard !ironwoodChecked.withLock({ $0 }) else { return }
        let info = try call("GetLightdInfo") { client, options in
            var options = options
            options.timeout = self.timeLimit
            return try await client.unary(
                request: ClientRequest(message: WireEmpty()), descriptor: Self.getLightdInfo,
                serializer: ProtobufOut<WireEmpty>(), deserializer: ProtobufIn<WireLightdInfo>(),
                options: options
            ) { try $0.message }
        }
        guard Self.servesIronwood(version: info.version, protocolVersion: info.lightwalletProtocolVersion) else {
            let who = [info.vendor, info.version.isEmpty ? "no version" : "version \(info.version)"].filter { !$0.isEmpty }.joined(
                separator: " ")
            throw LightwalletdError.tooOld(address, LightwalletdSource.clean(who))
        }
        ironwoodChecked.withLock { $0 = true }
    }

    /// Connects lazily: nothing is sent before the first call.
    public init(address: String, options: Options = Options()) throws(LightwalletdError) {
        guard let (host, port) = Self.split(address) else { throw .badAddress(address) }
        if options.plaintext && !Self.isLoopback(host) { throw .plaintextOffLoopback(address) }
        self.address = address
        self.options = options
        let target: any ResolvableTarget
        if IPv4Address(host) != nil {
            target = .ipv4(address: host, port: port)
        } else if host.contains(":") {
            target = .ipv6(address: host, port: port)
        } else {
            target = .dns(host: host, port: port)
        }
        var security = HTTP2ClientTransport.Posix.TransportSecurity.plaintext
        if !options.plaintext {
            if let roots = options.trustRoots {
                guard FileManager.default.isReadableFile(atPath: roots) else { throw .trustRoots(roots) }
                // Read here, so that a file that is no PEM certificate is named as such (the
                // transport's own failure would read as a bad address).
                guard let certificates = try? NIOSSLCertificate.fromPEMFile(roots), !certificates.isEmpty else {
                    throw .notCertificates(roots)
                }
            }
            security = .tls { tls in
                if let roots = options.trustRoots { tls.trustRoots = .certificates([.file(path: roots, format: .pem)]) }
            }
        }
        do {
            var config = HTTP2ClientTransport.Posix.Config.defaults
            // Reconnect soon: `call` waits 1, 2, 4 s between its own tries, and each should find
            // a fresh connection attempt rather than the transport's longer backoff.
            config.backoff.initial = .milliseconds(100)
            config.backoff.max = .seconds(1)
            client = GRPCClient(transport: try HTTP2ClientTransport.Posix(target: target, transportSecurity: security, config: config))
        } catch {
            throw .badAddress(address)
        }
        let client = self.client
        Task.detached { try? await client.runConnections() }
    }

    deinit { client.beginGracefulShutdown() }

    /// host:port, [v6]:port; the port is required (lightwalletd has no single default).
    static func split(_ address: String) -> (host: String, port: Int)? {
        let host: Substring, rest: Substring
        if address.hasPrefix("[") {
            guard let close = address.firstIndex(of: "]") else { return nil }
            host = address[address.index(after: address.startIndex)..<close]
            rest = address[address.index(after: close)...]
        } else {
            guard let colon = address.lastIndex(of: ":") else { return nil }
            host = address[..<colon]
            rest = address[colon...]
            if host.contains(":") { return nil }  // a bare IPv6 address needs brackets
        }
        guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65_535).contains(port), !host.isEmpty,
            host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:".contains($0) })
        else { return nil }
        return (String(host), port)
    }

    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        guard let v4 = IPv4Address(host) else { return false }
        return v4.first == 127
    }

    public func chainHeight() throws -> Int? {
        let height = try call("GetLatestBlock") { client, options in try await self.latest(client, options) }
        tip.withLock { $0 = height }
        return height + 1
    }

    /// The server's tip height (GetLatestBlock).
    private func latest(_ client: GRPCClient<HTTP2ClientTransport.Posix>, _ options: CallOptions) async throws -> Int {
        var options = options
        options.timeout = timeLimit
        let latest = try await client.unary(
            request: ClientRequest(message: WireChainSpec()), descriptor: Self.getLatestBlock,
            serializer: ProtobufOut<WireChainSpec>(), deserializer: ProtobufIn<WireBlockID>(),
            options: options
        ) { try $0.message }
        guard latest.height < UInt64(Int32.max) else {
            throw LightwalletdError.badReply(address, "GetLatestBlock: height \(latest.height)")
        }
        // An empty BlockID (height 0, no hash: what an empty answer decodes to) is no tip; taken
        // as one it ended a run having scanned nothing. (Older lightwalletd sends no hash, so
        // only the pair is refused.)
        guard latest.height > 0 || !latest.hash.isEmpty else {
            throw LightwalletdError.badReply(address, "GetLatestBlock: an empty BlockID (no height, no hash)")
        }
        return Int(latest.height)
    }

    public func mempool() throws -> [[UInt8]] { [] }

    public var serverName: String? { "the lightwalletd at \(address)" }

    public func blocks(from height: Int, count: Int) throws -> [BlockData] {
        var known = tip.withLock { $0 }
        if known.map({ height + count - 1 > $0 }) ?? true { known = try chainHeight().map { $0 - 1 } }
        guard let asked = known.map({ min($0, height + count - 1) }), asked >= height else { return [] }
        if let from = options.ironwoodFrom, asked >= from { try checkIronwood() }
        let received = Locked([BlockData]())
        let end = Locked(asked)
        try call("GetBlockRange") { client, options in
            // After a failed try, from the first block not yet received.
            let start = height + received.get().count
            let last = end.get()
            guard start <= last else { return }
            var range = WireBlockRange()
            range.start.height = UInt64(start)
            range.end.height = UInt64(last)
            // No pool types: every shielded pool (lightwalletd's filterBlockPool), which is what
            // the scanner reads — Sapling and Orchard notes, and Ironwood's actions for its tree
            // size. A list would cut the rest away ([SAPLING] drops every Orchard action), and
            // servers older than the field would need asking for their version first; the empty
            // list means the same to every version, and carries no transparent data.
            let request = ClientRequest(message: range)
            let progress = Locked(ContinuousClock.now)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await client.serverStreaming(
                        request: request, descriptor: Self.getBlockRange,
                        serializer: ProtobufOut<WireBlockRange>(), deserializer: RawBytes(),
                        options: options
                    ) { response in
                        for try await bytes in response.messages {
                            progress.set(.now)
                            let block = try self.check(bytes, expected: height + received.get().count, last: last)
                            received.withLock { $0.append(block) }
                        }
                    }
                }
                group.addTask { try await self.watch(progress) }
                do {
                    try await group.next()
                } catch let error as RPCError where error.code == .outOfRange {
                    // lightwalletd ends a stream past its tip with OUT_OF_RANGE ("block N is
                    // newer than the latest block"): its chain became shorter since the tip
                    // was asked for, which the check below tells from a server that lied.
                }
                group.cancelAll()
            }
            let got = received.get().count
            if height + got <= last {
                // The chain may have become shorter: lightwalletd rolls its cache back on a reorg
                // and reports a lower tip until it has the new branch. Then this batch ends there.
                let now = try await self.latest(client, options)
                self.tip.withLock { $0 = now }
                guard now < last, height + got > now else {
                    throw LightwalletdError.unavailable(
                        self.address, "GetBlockRange ended at block \(height + got - 1) of \(height)–\(last)")
                }
                end.set(now)
            }
        }
        return received.get()
    }

    /// A block of the stream: decodable, and the height that comes next.
    private func check(_ bytes: [UInt8], expected: Int, last: Int) throws -> BlockData {
        let block: WireCompactBlock
        do { block = try WireCompactBlock(serializedBytes: bytes) } catch {
            throw LightwalletdError.badReply(address, "GetBlockRange: block \(expected) is not a CompactBlock")
        }
        guard block.height == UInt64(expected), expected <= last else {
            throw LightwalletdError.badReply(address, "GetBlockRange: block \(block.height) where \(expected) was due")
        }
        return BlockData(height: expected, blob: bytes, transactions: [], claimedID: nil)
    }

    /// Ends (throwing `stalled`) when no reply has come for `timeout` seconds.
    private func watch(_ progress: Locked<ContinuousClock.Instant>) async throws {
        while true {
            let since = progress.get()
            let left = timeLimit - (ContinuousClock.now - since)
            if left <= .zero { throw Stalled() }
            try await Task.sleep(for: left)
        }
    }

    private struct Stalled: Error {}

    /// `options.timeout` as a Duration: how long a call may go without a reply.
    private var timeLimit: Duration { .milliseconds(Int64(options.timeout * 1000)) }

    /// Runs `body` on the client, blocking this thread (the engine's sources are synchronous and
    /// called off the scanning threads); tries again on failures that may pass, with backoff.
    private func call<T: Sendable>(
        _ method: String, _ body: @escaping @Sendable (GRPCClient<HTTP2ClientTransport.Posix>, CallOptions) async throws -> T
    ) throws -> T {
        var options = CallOptions.defaults
        options.waitForReady = false
        var delay = self.options.retryDelay
        var attempt = 0
        while true {
            let outcome = Locked<Result<T, any Error>?>(nil)
            let done = DispatchSemaphore(value: 0)
            let client = self.client
            let callOptions = options
            Task.detached {
                let result: Result<T, any Error>
                do { result = .success(try await body(client, callOptions)) } catch { result = .failure(error) }
                outcome.set(result)
                done.signal()
            }
            done.wait()
            switch outcome.get()! {
            case .success(let value): return value
            case .failure(let error):
                let failure = describe(error, method: method)
                guard failure.mayPass, attempt < self.options.retries else { throw failure.error }
                attempt += 1
                Thread.sleep(forTimeInterval: delay)
                delay *= 2
            }
        }
    }

    /// What a failed call means: a failure that may pass (try again, then exit 69) or an answer
    /// that is not lightwalletd's (exit 76).
    private func describe(_ error: any Error, method: String) -> (error: LightwalletdError, mayPass: Bool) {
        switch error {
        case let e as LightwalletdError:
            if case .unavailable = e { return (e, true) }
            return (e, false)
        case is Stalled:
            return (.unavailable(address, "\(method): no reply for \(Self.seconds(options.timeout)) s"), true)
        case let e as RPCError:
            if let undecodable = Self.undecodable(e) {
                return (.badReply(address, "\(method): the answer is not a \(undecodable.type)"), false)
            }
            if let reason = Self.tlsFailure(e) {
                // A certificate that is not trusted or not this server's, or a peer that speaks
                // no TLS: waiting will not change it.
                return (.tls(address, reason), false)
            }
            var why = "\(method): \(e.code)" + (e.message.isEmpty ? "" : " (\(Self.clean(e.message)))")
            if let cause = e.cause { why += "; cause: \(Self.clean(String(describing: cause)))" }
            switch e.code {
            case .unavailable, .deadlineExceeded, .resourceExhausted, .aborted, .cancelled, .unknown, .internalError:
                return (.unavailable(address, why), true)
            default:
                return (.refused(address, why), false)
            }
        default:
            return (.unavailable(address, "\(method): \(Self.clean(String(describing: error)))"), true)
        }
    }

    /// A reply that did not decode, behind a failed call.
    static func undecodable(_ error: RPCError) -> UndecodableReply? {
        var cause: (any Error)? = error
        for _ in 0..<5 {
            switch cause {
            case let reply as UndecodableReply: return reply
            case let rpc as RPCError: cause = rpc.cause
            case let runtime as RuntimeError: cause = runtime.cause
            default: return nil
            }
        }
        return nil
    }

    /// Why the TLS handshake failed, behind a failed call, if that is what it was.
    static func tlsFailure(_ error: RPCError) -> String? {
        var cause = error.cause
        for _ in 0..<4 {
            switch cause {
            case let ssl as NIOSSLError:
                guard case .handshakeFailed = ssl else { return nil }
                // BoringSSL's reason (CERTIFICATE_VERIFY_FAILED, WRONG_VERSION_NUMBER, …) says it; the rest is its source path.
                let text = String(describing: ssl)
                let reason = text.range(of: "OPENSSL_internal:").map { text[$0.upperBound...].prefix { $0.isUppercase || $0 == "_" } }
                return reason.map(String.init) ?? clean(text)
            case let extra as NIOSSLExtraError:
                guard extra == .failedToValidateHostname || extra == .serverHostnameImpossibleToMatch else { return nil }
                return "its certificate, though trusted, is not for this name or address"
            case let rpc as RPCError: cause = rpc.cause
            case let runtime as RuntimeError: cause = runtime.cause
            default: return nil
            }
        }
        return nil
    }

    static func seconds(_ s: Double) -> String { s == s.rounded() ? String(Int(s)) : String(s) }

    /// A server's text in our one-line messages: printable, short.
    static func clean(_ text: String) -> String {
        String(
            text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0.isPunctuation || $0.isSymbol || $0 == " ") ? $0 : " " }.prefix(300))
    }
}

/// Why the lightwalletd source could not serve.
public enum LightwalletdError: WalletError, Equatable {
    case badAddress(String)
    case plaintextOffLoopback(String)
    case trustRoots(String)
    /// A --ca-file that holds no PEM certificate.
    case notCertificates(String)
    /// The TLS handshake failed: an untrusted certificate, or no TLS at the other end.
    case tls(String, String)
    /// Unreachable, dropped, stalled: after the retries.
    case unavailable(String, String)
    /// The server answered with an error that trying again will not change.
    case refused(String, String)
    /// An answer that is not lightwalletd's.
    case badReply(String, String)
    /// A server that does not serve a pool the scan needs (Ironwood): its address and what it says it is.
    case tooOld(String, String)

    public var code: String {
        switch self {
        case .badAddress: "source.bad_address"
        case .plaintextOffLoopback: "source.plaintext_off_loopback"
        case .trustRoots, .notCertificates: "source.trust_roots"
        case .tls: "source.tls"
        case .unavailable: "source.unavailable"
        case .refused: "source.refused"
        case .badReply: "source.bad_reply"
        case .tooOld: "source.too_old"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .badAddress, .plaintextOffLoopback: .usage
        case .trustRoots: .noInput
        case .notCertificates: .dataError
        case .unavailable, .tls, .tooOld: .unavailable
        case .refused, .badReply: .protocolError
        }
    }

    public var message: String {
        switch self {
        case .badAddress(let a): "'\(a)' is not a lightwalletd address (host:port, or [IPv6]:port)"
        case .plaintextOffLoopback(let a):
            "--plaintext is for a lightwalletd on this machine (127.0.0.1, ::1, localhost), not \(a): compact blocks altered on the way could hide payments"
        case .trustRoots(let path): "cannot read the certificates in \(path)"
        case .notCertificates(let path):
            "\(path) holds no PEM certificate (--ca-file takes the server's certificate, or its CA's, as PEM: -----BEGIN CERTIFICATE-----)"
        case .tls(let a, let why):
            "no TLS connection to the lightwalletd at \(a) (\(why)); a certificate of its own goes to --ca-file, and one on this machine without TLS needs --plaintext"
        case .unavailable(let a, let why): "the lightwalletd at \(a) does not answer (\(why))"
        case .refused(let a, let why): "the lightwalletd at \(a) refused a call (\(why))"
        case .badReply(let a, let why): "the lightwalletd at \(a) sent what lightwalletd does not (\(why))"
        case .tooOld(let a, let what):
            "the lightwalletd at \(a) (\(what), by GetLightdInfo) does not serve the Ironwood pool, where every shielded payment to an Orchard receiver lands since NU6.3 (height 3,428,143), which this scan reaches: a balance from it would miss them; use a lightwalletd of 0.5.0 or later"
        }
    }
}

/// A dotted-quad IPv4 literal, as bytes.
struct IPv4Address {
    let bytes: [UInt8]
    var first: UInt8 { bytes[0] }
    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes = [UInt8]()
        for p in parts {
            guard !p.isEmpty, p.count <= 3, p.allSatisfy(\.isASCII), let b = UInt8(p) else { return nil }
            bytes.append(b)
        }
        self.bytes = bytes
    }
}

/// Requests out as SwiftProtobuf serializes them.
struct ProtobufOut<Message: SwiftProtobuf.Message>: MessageSerializer {
    func serialize<Bytes: GRPCContiguousBytes>(_ message: Message) throws -> Bytes {
        Bytes(try message.serializedBytes() as [UInt8])
    }
}

/// Answers in as SwiftProtobuf parses them.
struct ProtobufIn<Message: SwiftProtobuf.Message>: MessageDeserializer {
    func deserialize<Bytes: GRPCContiguousBytes>(_ bytes: Bytes) throws -> Message {
        do { return try bytes.withUnsafeBytes { try Message(serializedBytes: Array($0)) } } catch {
            throw UndecodableReply(type: String(describing: Message.self).replacingOccurrences(of: "Wire", with: ""))
        }
    }
}

/// An answer that does not decode as the message the method returns: not lightwalletd's, and
/// asking again will not change it. Convertible, so that gRPC keeps it as the call's cause
/// (otherwise it becomes an UNKNOWN status, which is retried).
struct UndecodableReply: Error, RPCErrorConvertible {
    let type: String
    var rpcErrorCode: RPCError.Code { .dataLoss }
    var rpcErrorMessage: String { "the answer is not a \(type)" }
}

/// A streamed block's own bytes: the scanner parses them (parsed here they would be serialized
/// again, and differ from what the server sent if it added fields).
struct RawBytes: MessageDeserializer {
    func deserialize<Bytes: GRPCContiguousBytes>(_ bytes: Bytes) throws -> [UInt8] {
        bytes.withUnsafeBytes { Array($0) }
    }
}
