import Foundation
import WalletCore

/// A node's HTTP address and the rules every call to it follows: one deadline per call, a few
/// tries when the node does not answer (or answers a status the caller does not take), an
/// answer's size capped. Monero's and Bitcoin's RPC sources are built on it.
public struct NodeClient: Sendable {
    /// The address as given, normalized to a URL: for messages.
    public let url: String
    public let host: String
    public let port: Int
    /// The URL's path, ending in "/", before the RPC's own (a node behind a proxy's prefix).
    public let basePath: String
    public let timeout: Double
    public let retries: Int
    public let maxReply: Int

    /// `address`: host:port or http://host:port[/prefix]; `defaultPort` when it names none.
    public init(address: String, defaultPort: Int, timeout: Double, retries: Int, maxReply: Int) throws(SourceError) {
        let text = address.contains("://") ? address : "http://" + address
        guard let parsed = URL(string: text), parsed.scheme == "http", let host = parsed.host, !host.isEmpty else {
            throw .badAddress(address)
        }
        self.url = parsed.absoluteString
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = parsed.port ?? defaultPort
        guard (1...65535).contains(port) else { throw .badAddress(address) }
        let path = parsed.path
        self.basePath = path.hasSuffix("/") ? path : path + "/"
        (self.timeout, self.retries, self.maxReply) = (timeout, retries, maxReply)
    }

    /// One call (`body` nil: a GET), tried again after a pause while the node does not answer
    /// or answers a status `takes` refuses; then the node is unavailable (69). An answer over
    /// `maxReply` bytes is the node's fault (76), and is not tried again.
    /// `name` says the call in messages (a JSON-RPC method, where the path is the same for all).
    public func send(
        path: String, body: [UInt8]?, contentType: String = "application/json", headers: [(String, String)] = [],
        name: String? = nil, takes: (Int) -> Bool = { $0 == 200 }
    ) throws(SourceError) -> NodeHTTP.Reply {
        var lastError = "no answer"
        for attempt in 0..<max(retries, 1) {
            if attempt > 0 { Thread.sleep(forTimeInterval: 0.5 * Double(attempt)) }
            do {
                let reply =
                    try body.map {
                        try NodeHTTP.post(
                            host: host, port: port, path: basePath + path, contentType: contentType, body: $0, headers: headers,
                            timeout: timeout, maxReply: maxReply)
                    } ?? NodeHTTP.get(host: host, port: port, path: basePath + path, headers: headers, timeout: timeout, maxReply: maxReply)
                if takes(reply.status) { return reply }
                lastError = "HTTP \(reply.status)"
            } catch NodeHTTP.Failure.tooLarge(let limit) {
                throw .badReply(node: url, "\(name ?? path) (an answer over \(limit) bytes)")
            } catch let failure as NodeHTTP.Failure {
                lastError = failure.description
            } catch {
                lastError = "\(error)"
            }
        }
        throw .unavailable(url, lastError)
    }
}

/// What can go wrong with a node, apart from the blocks it serves (those are the scan's).
public enum SourceError: WalletError, Equatable {
    case badAddress(String)
    case unavailable(String, String)
    /// The node's URL, and the call (and what was wrong with its answer).
    case badReply(node: String, String)
    /// The node's URL and what it said (its RPC password was refused, or is not readable).
    case refused(node: String, String)

    public var code: String {
        switch self {
        case .badAddress: "source.bad_address"
        case .unavailable: "source.unavailable"
        case .badReply: "source.bad_reply"
        case .refused: "source.refused"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .badAddress: .usage
        case .unavailable: .unavailable
        case .badReply: .protocolError
        case .refused: .noPermission
        }
    }

    public var message: String {
        switch self {
        case .badAddress(let a):
            "'\(a)' is not a node address (host:port or http://host:port: the node's RPC over HTTP, on loopback or a network you trust)"
        case .unavailable(let url, let why): "the node at \(url) does not answer (\(why))"
        case .badReply(let node, let what): "the reply of the node at \(node) to \(what) is not what its RPC returns"
        case .refused(let node, let why): "the node at \(node) refused the call: \(why)"
        }
    }
}
