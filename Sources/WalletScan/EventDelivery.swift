extension ScanStateStore {
    /// Writes the outbox to `sink`, then forgets it.
    ///
    /// Before writing, the place the bytes will land is recorded (committed). A run killed
    /// after writing but before forgetting finds that place here next time: if the file holds
    /// the bytes there, they are not written again; if it holds the start of them and ends
    /// there, only the rest is written. Anything else (a pipe, another file, a file changed
    /// since) gets the outbox again — at least once, never lost.
    func deliver(to sink: EventLog) throws {
        let rows = try outbox()
        guard let last = rows.last else { return }
        let bytes = rows.flatMap(\.record)
        var start = 0
        if let mark = try deliveryMark(), let now = try sink.contents(at: mark, count: bytes.count) {
            let same = zip(now.bytes, bytes).prefix { $0 == $1 }.count
            if same == bytes.count || now.end == mark.offset + Int64(same) { start = same }
        }
        if start == 0 {
            let mark = try sink.position()
            try db.transaction { try setDeliveryMark(mark) }
        }
        if start < bytes.count { try sink.write(Array(bytes[start...])) }
        try db.transaction { try delivered(through: last.id) }
    }
}
