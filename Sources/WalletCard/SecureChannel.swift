import WalletCore

/// Keycard's secure channel v1, the client's half: each command's data is AES-256-CBC
/// encrypted, the whole command is AES-CBC-MACed, and the MAC becomes the next IV.
public struct SecureChannelSession {
    private let encKey: SecureBytes
    private let macKey: SecureBytes
    /// The IV the next command is encrypted with.
    public private(set) var iv: [UInt8]
    /// The IV the last command was encrypted with: 3.x answers an INS it does not know with it.
    private var commandIV: [UInt8] = []

    public init(encKey: SecureBytes, macKey: SecureBytes, iv: [UInt8]) {
        self.encKey = encKey
        self.macKey = macKey
        self.iv = iv
    }

    /// CLA INS P1 P2 Lc ‖ MAC ‖ AES-CBC(encKey, IV, pad(data)), MAC over the header, 11 zero
    /// bytes and the ciphertext.
    public mutating func wrap(_ command: CommandAPDU) -> [UInt8] {
        let ct = KeycardCrypto.aesCBC(encrypt: true, key: encKey.bytes, iv: iv, KeycardCrypto.pad(command.data))
        let header = [command.cla, command.ins, command.p1, command.p2, UInt8(16 + ct.count)]
        let mac = KeycardCrypto.cbcMAC(key: macKey.bytes, header + [UInt8](repeating: 0, count: 11) + ct)
        commandIV = iv
        iv = mac
        return header + mac + ct
    }

    /// The plaintext answer (data ‖ inner status word) of a wrapped response, after its MAC is
    /// checked. Outer 6982 means the card closed the channel.
    public mutating func unwrap(_ response: ResponseAPDU, command: String) throws(CardError) -> ResponseAPDU {
        if response.sw == 0x6982 { throw .channelClosed }
        if response.sw == 0x6985 { throw .channelNotOpen }
        if response.sw == 0x6986 { throw .cardReset }
        guard response.sw == 0x9000 else { throw .unexpectedStatus(command: command, sw: response.sw) }
        let data = response.data
        guard data.count >= 32, data.count % 16 == 0 else {
            throw .malformedResponse("\(command): a wrapped answer of \(data.count) bytes")
        }
        let rmac = Array(data[0..<16]), rct = Array(data[16...])
        let expected = KeycardCrypto.cbcMAC(key: macKey.bytes, [UInt8(data.count & 0xFF)] + [UInt8](repeating: 0, count: 15) + rct)
        guard expected == rmac else { throw .macMismatch }
        // An INS the applet does not know (6D00) comes back under the command's own IV.
        let quirk = rct.count == 16 ? KeycardCrypto.unpad(KeycardCrypto.aesCBC(encrypt: false, key: encKey.bytes, iv: commandIV, rct)) : nil
        let plain =
            quirk == [0x6D, 0x00] ? quirk : KeycardCrypto.unpad(KeycardCrypto.aesCBC(encrypt: false, key: encKey.bytes, iv: iv, rct))
        iv = rmac
        guard let plain, plain.count >= 2 else { throw .malformedResponse("\(command): the wrapped answer does not decrypt") }
        return try ResponseAPDU(bytes: plain)
    }
}
