import WalletCore

extension JSONParser {
    /// As `parseObject`, with the error as a record error (for one-record inputs: key files).
    public static func parseRecord(_ bytes: [UInt8]) throws(RecordError) -> JSONObject {
        do { return try parseObject(bytes) } catch { throw .invalidJSON(offset: error.offset, reason: error.reason) }
    }
}
