// keycard-sim: Satchel's simulated Keycard behind vsmartcard's vpcd, for end-to-end tests
// through the real PC/SC stack. In vpcd's reversed mode pcscd connects to this program: the
// Keycard on 127.0.0.1:PORT and a blank card on PORT+1 (vpcd always opens both slots, and
// aborts pcscd when one is missing). Loopback only. Test support: never hold real keys in it.
//
// Usage: keycard-sim [--port 35963]
// SIGUSR1: the Keycard is pulled out in the middle of the next command — the connection drops
// before its answer, as a card yanked from a reader while it works. (Debian's vpcd 3.3 then
// aborts pcscd, "bit out of range 0 - FD_SETSIZE", a few tenths of a second later, whatever
// this program does next; tied to a command, the card's loss reaches the program that sent
// it before that abort can, where killing this program would leave a test to a race.)
// Message format (vpcd): 2-byte big-endian length, then an APDU, or one control byte:
// 0x00 power off, 0x01 power on, 0x02 reset, 0x04 get ATR.
#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import KeycardSimulator

let atr: [UInt8] = [0x3B, 0x80, 0x80, 0x01, 0x01]
let port: UInt16 = {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.isEmpty { return 35963 }
    guard arguments.count == 2, arguments[0] == "--port", let n = UInt16(arguments[1]) else {
        FileHandle.standardError.write("usage: keycard-sim [--port N]\n".data(using: .utf8)!)
        exit(64)
    }
    return n
}()

func listen(on port: UInt16) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard fd >= 0, bound == 0, Glibc.listen(fd, 1) == 0 else {
        FileHandle.standardError.write("keycard-sim: cannot listen on 127.0.0.1:\(port)\n".data(using: .utf8)!)
        exit(69)
    }
    return fd
}

func readFully(_ fd: Int32, _ count: Int) -> [UInt8]? {
    var out = [UInt8](repeating: 0, count: count)
    var got = 0
    while got < count {
        let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, count - got) }
        if n <= 0 { if n < 0 && errno == EINTR { continue }; return nil }
        got += n
    }
    return out
}

func send(_ fd: Int32, _ payload: [UInt8]) {
    let message = [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
    _ = message.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

/// Set by SIGUSR1, cleared by the command it drops (read and written whole: an Int32).
nonisolated(unsafe) var pullOnNextCommand: Int32 = 0

/// Serves one slot: accepts vpcd's connection (again after it drops) and answers its messages.
func serve(_ server: Int32, card: KeycardSimulator?) {
    while true {
        let connection = accept(server, nil, nil)
        guard connection >= 0 else { continue }
        while let header = readFully(connection, 2) {
            let length = Int(header[0]) << 8 | Int(header[1])
            guard let payload = readFully(connection, length) else { break }
            if length == 1 {
                switch payload[0] {
                case 0x04: send(connection, atr)
                case 0x00, 0x01, 0x02: card?.reset()
                default: break
                }
            } else if let card {
                if pullOnNextCommand != 0 {
                    pullOnNextCommand = 0
                    break  // no answer: the connection closes below
                }
                send(connection, card.process(payload))
            } else {
                send(connection, [0x6A, 0x82])  // the blank card: no applet here
            }
        }
        close(connection)
    }
}

signal(SIGPIPE, SIG_IGN)
signal(SIGUSR1) { _ in pullOnNextCommand = 1 }
let keycard = KeycardSimulator()
// Both sockets listen before the line that scripts wait for: vpcd connects as soon as pcscd
// starts, and a refused connection makes it abort pcscd (FD_SET on a socket of -1).
let keycardServer = listen(on: port)
let blankServer = listen(on: port + 1)
Thread.detachNewThread { serve(blankServer, card: nil) }
FileHandle.standardOutput.write("keycard-sim: listening on 127.0.0.1:\(port) (Keycard) and :\(port + 1) (blank)\n".data(using: .utf8)!)
serve(keycardServer, card: keycard)
