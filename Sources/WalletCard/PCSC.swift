import CPCSCLite
import Foundation

/// Smart-card readers through pcsc-lite (pcscd). Only this type talks to PC/SC.
public final class PCSCContext {
    private var context: SCARDCONTEXT = 0

    /// Connects to pcscd; no pcscd means no reader.
    public init() throws(CardError) {
        let rc = SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context)
        if rc == SCARD_E_NO_SERVICE || rc == SCARD_E_NO_READERS_AVAILABLE { throw .noReader }
        guard rc == SCARD_S_SUCCESS else { throw .pcsc(function: "SCardEstablishContext", code: UInt32(truncatingIfNeeded: rc)) }
    }

    deinit { SCardReleaseContext(context) }

    /// The readers pcscd knows, in its order.
    public func readers() throws(CardError) -> [String] {
        var length: DWORD = 0
        var rc = SCardListReaders(context, nil, nil, &length)
        if rc == SCARD_E_NO_READERS_AVAILABLE { return [] }
        guard rc == SCARD_S_SUCCESS else { throw .pcsc(function: "SCardListReaders", code: UInt32(truncatingIfNeeded: rc)) }
        var buffer = [CChar](repeating: 0, count: Int(length))
        rc = SCardListReaders(context, nil, &buffer, &length)
        if rc == SCARD_E_NO_READERS_AVAILABLE { return [] }
        guard rc == SCARD_S_SUCCESS else { throw .pcsc(function: "SCardListReaders", code: UInt32(truncatingIfNeeded: rc)) }
        // A multi-string: names separated by NUL, ended by two.
        return buffer.split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }

    /// A connection to the card in `reader` (T=0 or T=1, as the card offers).
    public func connect(_ reader: String) throws(CardError) -> PCSCChannel {
        var handle: SCARDHANDLE = 0
        var protocolInUse: DWORD = 0
        let rc = SCardConnect(
            context, reader, DWORD(SCARD_SHARE_SHARED), DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &handle, &protocolInUse)
        if rc == SCARD_E_NO_SMARTCARD || rc == SCARD_W_REMOVED_CARD || rc == SCARD_W_UNRESPONSIVE_CARD { throw .noCard(reader: reader) }
        if rc == SCARD_E_UNKNOWN_READER { throw .noReader }
        guard rc == SCARD_S_SUCCESS else { throw .pcsc(function: "SCardConnect", code: UInt32(truncatingIfNeeded: rc)) }
        return PCSCChannel(context: self, handle: handle, t0: protocolInUse == DWORD(SCARD_PROTOCOL_T0), reader: reader)
    }
}

/// One card through PC/SC. T=0's two-step answers (61xx: GET RESPONSE, 6Cxx: send again with
/// that Le) are resolved here, so the layers above see whole responses.
public final class PCSCChannel: CardChannel {
    public let reader: String
    /// Releasing the context would invalidate the handle: the channel keeps it.
    private let context: PCSCContext
    private let handle: SCARDHANDLE
    private let t0: Bool

    init(context: PCSCContext, handle: SCARDHANDLE, t0: Bool, reader: String) {
        self.context = context
        self.handle = handle
        self.t0 = t0
        self.reader = reader
    }

    deinit { SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD)) }

    public func transmit(_ apdu: [UInt8]) throws(CardError) -> [UInt8] {
        var response = try exchange(apdu)
        var data = [UInt8]()
        for _ in 0..<32 where response.count == 2 {
            if response[0] == 0x61 {  // more data: GET RESPONSE
                let more = try exchange([0x00, 0xC0, 0x00, 0x00, response[1]])
                data += more.dropLast(2)
                response = Array(more.suffix(2))
            } else if response[0] == 0x6C && apdu.count == 4 {  // wrong Le: send again with the right one
                response = try exchange(apdu + [response[1]])
            } else {
                break
            }
        }
        return data + response
    }

    private func exchange(_ apdu: [UInt8]) throws(CardError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 258 + 2)
        var length = DWORD(out.count)
        var pci = t0 ? g_rgSCardT0Pci : g_rgSCardT1Pci
        let rc = SCardTransmit(handle, &pci, apdu, DWORD(apdu.count), nil, &out, &length)
        // A card taken out, a reader unplugged or its link gone: the card is not there any more.
        // (pcscd says F_COMM_ERROR when the link broke in the middle of the exchange: seen
        // when vpcd's card program went away while a batch was signing.)
        if [
            SCARD_W_REMOVED_CARD, SCARD_E_NO_SMARTCARD, SCARD_E_READER_UNAVAILABLE, SCARD_E_NOT_TRANSACTED,
            SCARD_W_UNRESPONSIVE_CARD, SCARD_W_UNPOWERED_CARD, SCARD_F_COMM_ERROR,
        ].contains(rc) {
            throw .noCard(reader: reader)
        }
        if rc == SCARD_E_NO_SERVICE || rc == SCARD_E_SERVICE_STOPPED { throw .noReader }
        if rc == SCARD_W_RESET_CARD { throw .cardReset }
        guard rc == SCARD_S_SUCCESS else { throw .pcsc(function: "SCardTransmit", code: UInt32(truncatingIfNeeded: rc)) }
        // No status word at all is no card's answer: the link to the card broke (vpcd answers
        // so when its card program is gone).
        guard length >= 2 else { throw .noCard(reader: reader) }
        return Array(out.prefix(Int(length)))
    }
}
