import WalletCard

/// A card's answers: response APDUs, BER-TLV, the applet's SELECT answer, key paths.
enum CardTargets {
    static let all = [
        FuzzTarget(name: "apdu", covers: "response APDUs and Keycard's SELECT answer (application info)", run: apdu),
        FuzzTarget(name: "tlv", covers: "BER-TLV as Keycard writes it", run: tlv),
    ]

    static func apdu(_ bytes: [UInt8]) {
        if let response = try? ResponseAPDU(bytes: bytes) {
            holds(response.bytes == bytes, "a response APDU did not write back as read")
            _ = try? ApplicationInfo(selectResponse: response.data)
        }
        _ = try? ApplicationInfo(selectResponse: bytes)
        let path = Keycard.decodePath(bytes)
        holds(path.count == bytes.count / 4, "a path of \(bytes.count) bytes gave \(path.count) steps")
        holds(Keycard.decodePath(Keycard.encodePath(path)) == path, "a key path did not write back")
    }

    /// What reads writes back: each element's tag and shortest length, so the bytes are the
    /// input's exactly when the input wrote each length in its shortest form.
    static func tlv(_ bytes: [UInt8]) {
        guard let elements = try? TLV.parse(bytes) else { return }
        let written = elements.flatMap(\.bytes)
        holds((try? TLV.parse(written)) == elements, "TLV elements changed on a write and read")
        holds(
            written == bytes,
            "BER-TLV read a length or tag that is not in its shortest form (\(written.count) bytes written for \(bytes.count))")
        for element in elements where element.tag == 0xA0 || element.tag == 0xA4 || element.tag == 0xA1 {
            _ = try? TLV.parse(element.value)
        }
    }
}
