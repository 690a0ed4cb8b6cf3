import WalletCore

/// Errors of the card layers: the reader, the secure channel and the Keycard commands. They
/// name status words, readers and counts, never a PIN, PUK, pairing secret or key.
public enum CardError: WalletError, Equatable {
    // The reader (PC/SC)
    case noReader
    case noCard(reader: String?)
    case noKeycard
    case pcsc(function: String, code: UInt32)
    // What came back
    case malformedResponse(String)
    case unexpectedStatus(command: String, sw: UInt16)
    // The secure channel
    case badCardCryptogram
    case macMismatch
    case channelClosed
    case channelNotOpen
    /// The card was reset or powered off under a session (PC/SC's reset warning, or the
    /// runtime's 6986 for a command to an applet no longer selected).
    case cardReset
    // Keycard's own answers
    case wrongPIN(retriesLeft: Int)
    case wrongPUK(retriesLeft: Int)
    case pinBlocked
    /// The PUK's tries are used up: the card answers 63C0 to any PUK, the right one too.
    case pukBlocked
    /// A pairing made with another instance of the applet (another card, or this one before a
    /// factory reset, which makes a new instance): its slot means nothing here.
    case otherCardInstance(pairedWith: String, card: String)
    /// The card holds no key (none loaded or generated): nothing to derive or sign with.
    case noKeyLoaded
    case noFreePairingSlot
    case conditionsNotSatisfied(String)
    case wrongData(String)
    case notInitialized
    case alreadyInitialized
    case invalidDerivedKey
    case unsupportedApplet(version: String)
    case badCredential(String)
    case noSuchReader(name: String, present: [String])
    case noPinlessPath
    case pinNotBlocked
    /// EXPORT KEY of an extended key at m: applet 3.x returns a stale chain code there.
    case masterChainCodeUnavailable

    public var code: String {
        switch self {
        case .noReader: "card.no_reader"
        case .noCard: "card.no_card"
        case .noKeycard: "card.no_keycard"
        case .pcsc: "card.pcsc"
        case .malformedResponse: "card.malformed_response"
        case .unexpectedStatus: "card.status"
        case .badCardCryptogram: "card.bad_cryptogram"
        case .macMismatch: "card.mac_mismatch"
        case .channelClosed: "card.channel_closed"
        case .channelNotOpen: "card.channel_not_open"
        case .cardReset: "card.reset"
        case .wrongPIN: "card.wrong_pin"
        case .wrongPUK: "card.wrong_puk"
        case .pinBlocked: "card.pin_blocked"
        case .pukBlocked: "card.puk_blocked"
        case .otherCardInstance: "card.other_instance"
        case .noKeyLoaded: "card.no_key"
        case .noFreePairingSlot: "card.no_free_pairing_slot"
        case .conditionsNotSatisfied: "card.conditions_not_satisfied"
        case .wrongData: "card.wrong_data"
        case .notInitialized: "card.not_initialized"
        case .alreadyInitialized: "card.already_initialized"
        case .invalidDerivedKey: "card.invalid_derived_key"
        case .unsupportedApplet: "card.unsupported_applet"
        case .badCredential: "card.bad_credential"
        case .noSuchReader: "card.no_such_reader"
        case .noPinlessPath: "card.no_pinless_path"
        case .pinNotBlocked: "card.pin_not_blocked"
        case .masterChainCodeUnavailable: "card.no_master_chain_code"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .noReader, .noCard, .noKeycard, .pcsc, .noSuchReader, .cardReset, .channelNotOpen: .unavailable
        case .wrongPIN, .wrongPUK, .pinBlocked, .pukBlocked, .badCardCryptogram, .otherCardInstance: .noPermission
        case .noKeyLoaded: .unavailable
        case .badCredential, .masterChainCodeUnavailable: .usage
        case .unsupportedApplet: .unavailable
        default: .protocolError
        }
    }

    public var message: String {
        switch self {
        case .noReader: "no smart-card reader (is pcscd running?)"
        case .noCard(let reader): reader.map { "no card in reader '\($0)'" } ?? "no card in any reader"
        case .noKeycard: "no reader holds a card that answers the Keycard SELECT"
        case .pcsc(let function, let code): "PC/SC \(function) failed (0x\(String(code, radix: 16)))"
        case .malformedResponse(let what): "the card's answer is malformed: \(what)"
        case .unexpectedStatus(let command, let sw): "\(command): the card answered \(String(format: "%04X", sw))"
        case .badCardCryptogram: "the card's pairing cryptogram is wrong: the pairing password does not match this card"
        case .macMismatch: "a secure-channel MAC did not verify; the channel is closed"
        case .channelClosed: "the card closed the secure channel (6982): a MAC or authentication failed"
        case .channelNotOpen:
            "the secure channel is not open: another program selected the applet or the card was reset; run the command again"
        case .cardReset:
            "the card was reset or powered off (another program reset it, or it lost contact): nothing more was sent; run the command again"
        case .wrongPIN(let n): "wrong PIN: \(n) \(n == 1 ? "try" : "tries") left"
        case .wrongPUK(let n): "wrong PUK: \(n) \(n == 1 ? "try" : "tries") left"
        case .pinBlocked: "the PIN is blocked: unblock it with the PUK"
        case .pukBlocked:
            "the PUK is blocked (no tries left; the card refuses every PUK now, the right one too): only a factory reset helps (card-info factory-reset --confirm), which erases the card's key and pairings"
        case .otherCardInstance(let pairedWith, let card):
            "the pairing was made with card instance \(pairedWith), and this card is instance \(card) (another card, or this one after a factory reset): pair again (card-info pair --store NAME)"
        case .noKeyLoaded:
            "the card holds no key: load one (card-info load-key, from a seed or phrase record) or make one on the card (card-info generate-key)"
        case .noFreePairingSlot: "the card has no free pairing slot: unpair a client first"
        case .conditionsNotSatisfied(let what): "the card refused: \(what)"
        case .wrongData(let what): "the card rejected the data: \(what)"
        case .notInitialized: "the card is not initialized"
        case .alreadyInitialized: "the card is already initialized"
        case .invalidDerivedKey: "the card derived an invalid key on this path (6984)"
        case .unsupportedApplet(let version):
            "Keycard applet \(version) is not supported yet (Satchel speaks applet 3.x, secure channel v1)"
        case .badCredential(let what): what
        case .noSuchReader(let name, let present):
            "no reader matches '\(name)'; readers present: "
                + (present.isEmpty ? "none" : present.map { "'\($0)'" }.joined(separator: ", "))
        case .noPinlessPath: "no PIN-less path is set on the card (6A88): set one with card-info set-pinless-path --path PATH"
        case .pinNotBlocked:
            "the PIN is not blocked, so there is nothing to unblock (check it with card-info verify-pin; change it with card-info change-pin)"
        case .masterChainCodeUnavailable:
            "the Keycard does not export the master key's chain code (applet 3.x answers a stale one at m): export the extended key at a deeper path, or the public key alone at m"
        }
    }

    /// A card that is gone, reset, or whose channel is closed fails every command after it.
    public var endsRun: Bool {
        switch self {
        case .noReader, .noCard, .noKeycard, .pcsc, .noSuchReader, .cardReset, .channelClosed, .channelNotOpen, .macMismatch: true
        default: false
        }
    }

    public var details: [(key: String, value: ErrorDetail)] {
        switch self {
        case .wrongPIN(let n), .wrongPUK(let n): [("retries_left", .int(n))]
        case .unexpectedStatus(_, let sw): [("sw", .string(String(format: "%04X", sw)))]
        case .noSuchReader(_, let present): [("readers", .strings(present))]
        default: []
        }
    }
}
