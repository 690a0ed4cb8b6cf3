/// Where the synchronizer's events go, in three jobs a sink may do apart (`EventSink` is all
/// three). The events that change what a wallet owns (received, spent, pending, reorg) are
/// encoded when their batch commits and kept in the wallet's state until the log has them: a
/// killed run never loses one, and repeats none when the log is a regular file whose contents
/// can be read back. Balance and progress are shown, not kept.
public typealias EventSink = EventEncoding & EventLog & EventDisplay

/// How a kept event is written: the bytes of its record.
public protocol EventEncoding: AnyObject {
    /// One kept event of the wallet named `wallet` (nil: the only, unnamed one) as the bytes of
    /// its record (one line); `id` grows with every event of the wallet's state, so a reader
    /// of a pipe can drop a repeat.
    func encode(_ event: ScanEvent, wallet: String?, id: Int64) -> [UInt8]
}

/// Where kept events' bytes land, and where they can be read back to deliver exactly once.
public protocol EventLog: AnyObject {
    /// Writes the bytes whole, and durably where the log is a file.
    func write(_ bytes: [UInt8]) throws
    /// Where the next write will land, if the log can be read back later (a regular file).
    func position() throws -> SinkPosition?
    /// Up to `count` bytes now at `position`, and the offset the next write would land at;
    /// nil when the log is no longer the file `position` names.
    func contents(at position: SinkPosition, count: Int) throws -> (bytes: [UInt8], end: Int64)?
}

/// Events that are shown, not kept: progress (wallet nil), balance, a pool's catch-up.
public protocol EventDisplay: AnyObject {
    func show(_ event: ScanEvent, wallet: String?) throws
}

/// A place in a regular file: which file (device, inode) and the byte offset.
public struct SinkPosition: Equatable, Sendable {
    public let device: UInt64
    public let inode: UInt64
    public let offset: Int64

    public init(device: UInt64, inode: UInt64, offset: Int64) {
        self.device = device
        self.inode = inode
        self.offset = offset
    }
}
