import WalletCore
#if canImport(Glibc)
    import Glibc
    import WalletRecords
    import KeySources
#endif

/// sign-tx's refusals that are no fault of the record's bytes.
public enum SigningRefusal: WalletError, Equatable {
    /// The person at the terminal answered no to a summary.
    case declined

    public var code: String { "sign.declined" }
    public var message: String { "not signed: the summary was declined at the terminal" }
}

/// `--confirm`: each summary shown on the terminal (/dev/tty, not stdout, which a pipeline
/// reads), and a yes asked for before anything is signed.
public final class Confirmation {
    let fd: Int32

    init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    public static func terminal() throws(CLIError) -> Confirmation {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            throw .usage("--confirm needs a terminal (/dev/tty) to ask on; without one, read the summary records and refuse in a script")
        }
        return Confirmation(fd: fd)
    }

    /// Shows the summary one field a line and reads the answer; anything but y or yes declines.
    public func ask(_ summary: JSONObject) throws {
        var text = "\n"
        for (key, value) in summary.pairs {
            var rendered = [UInt8]()
            if case .string(let s) = value { rendered = Array(s.utf8) } else { JSONWriter.serialize(value, into: &rendered) }
            text += "  \(key): \(String(decoding: rendered, as: UTF8.self))\n"
        }
        text += "Sign this? [y/N] "
        _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        var answer = [UInt8]()
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 && byte != 0x0A { if answer.count < 16 { answer.append(byte) } }
        let word = String(decoding: answer.filter { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }, as: UTF8.self).lowercased()
        guard word == "y" || word == "yes" else { throw SigningRefusal.declined }
    }
}
