import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request on a connection of its own, over SwiftNIO: no libcurl (Foundation's
/// URLSession needs it, and with it no tool could be linked statically), and the whole call —
/// connect, request, every byte of the answer — bounded by one deadline, so a node that
/// accepts and never answers, or trickles, cannot hang a cron job. The answer's size is
/// capped as it arrives.
public enum NodeHTTP {
    public enum Failure: Error, CustomStringConvertible {
        case timedOut(seconds: Double)
        case tooLarge(Int)
        case closedEarly
        case connect(String)

        public var description: String {
            switch self {
            case .timedOut(let s): "no complete answer within \(s) s"
            case .tooLarge(let n): "an answer over \(n) bytes"
            case .closedEarly: "the connection closed before the answer was complete"
            case .connect(let why): why
            }
        }
    }

    public struct Reply: Sendable {
        public let status: Int
        public let body: [UInt8]
    }

    /// One thread for every call of the process: calls are made one at a time per source.
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// A POST of `body`; `headers` go beside Host, Content-Type and Content-Length.
    public static func post(
        host: String, port: Int, path: String, contentType: String, body: [UInt8],
        headers: [(String, String)] = [], timeout: Double, maxReply: Int
    ) throws -> Reply {
        try send(
            .POST, host: host, port: port, path: path, headers: headers + [("Content-Type", contentType)], body: body,
            timeout: timeout, maxReply: maxReply)
    }

    /// A GET (a REST resource): no body.
    public static func get(
        host: String, port: Int, path: String, headers: [(String, String)] = [], timeout: Double, maxReply: Int
    ) throws -> Reply {
        try send(.GET, host: host, port: port, path: path, headers: headers, body: nil, timeout: timeout, maxReply: maxReply)
    }

    static func send(
        _ method: HTTPMethod, host: String, port: Int, path: String, headers: [(String, String)], body: [UInt8]?,
        timeout: Double, maxReply: Int
    ) throws -> Reply {
        let loop = group.next()
        let promise = loop.makePromise(of: Reply.self)
        let limit = TimeAmount.nanoseconds(Int64(timeout * 1e9))
        let deadline = loop.scheduleTask(in: limit) { promise.fail(Failure.timedOut(seconds: timeout)) }
        defer { deadline.cancel() }
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(limit)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(Collector(promise: promise, maxBytes: maxReply))
                }
            }
        bootstrap.connect(host: host, port: port).whenComplete { result in
            switch result {
            case .failure(let error):
                promise.fail(Failure.connect("\(error)"))
            case .success(let channel):
                // Whatever ends the call (an answer, the deadline, an error) closes the connection.
                promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
                var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
                head.headers.add(name: "Host", value: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
                for (name, value) in headers { head.headers.add(name: name, value: value) }
                if let body { head.headers.add(name: "Content-Length", value: String(body.count)) }
                // No "Connection: close": monerod's epee server, asked to close, stops after the
                // first 128 KiB of a larger answer. The call closes the connection itself once
                // the answer is complete (Content-Length says when).
                channel.write(HTTPClientRequestPart.head(head), promise: nil)
                if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(channel.allocator.buffer(bytes: body))), promise: nil) }
                channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { promise.fail($0) }
            }
        }
        return try promise.futureResult.wait()
    }

    /// Gathers the answer; fails the call past `maxBytes` or on a connection that ends early.
    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        let promise: EventLoopPromise<Reply>
        let maxBytes: Int
        var status = 0
        var body = [UInt8]()

        init(promise: EventLoopPromise<Reply>, maxBytes: Int) {
            self.promise = promise
            self.maxBytes = maxBytes
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                status = Int(head.status.code)
                if let length = head.headers.first(name: "Content-Length").flatMap(Int.init) {
                    if length > maxBytes { return promise.fail(Failure.tooLarge(maxBytes)) }
                    // One allocation for a long answer (get_blocks.bin's run to 17 MB), not a
                    // copy at each doubling: the event loop's time is the scan's wait.
                    if length > 0 { body.reserveCapacity(length) }
                }
            case .body(let buffer):
                guard body.count + buffer.readableBytes <= maxBytes else { return promise.fail(Failure.tooLarge(maxBytes)) }
                buffer.withUnsafeReadableBytes { body.append(contentsOf: $0) }
            case .end:
                promise.succeed(Reply(status: status, body: body))
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            promise.fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(Failure.closedEarly)  // no effect once the answer is complete
            context.fireChannelInactive()
        }
    }
}
