import WalletCard
import WalletCore
import WalletKeyStore

/// Card operations of more than one command, where the order of the commands is what keeps
/// the card safe: a pairing slot is never left taken by a pairing nobody kept, and two PINs
/// never become one.
public enum CardFlows {
    /// PAIR, then keep the pairing with `keep`. The slot is taken on the card before the
    /// pairing can be kept, so when keeping it fails for any reason (the disk, the key store)
    /// the slot is freed again (secure channel, VERIFY PIN, UNPAIR) before the error goes on:
    /// a card has 10 slots and no way to free one that no pairing names.
    public static func pair(
        _ keycard: Keycard, pairingSecret: SecureBytes, pin: SecureBytes,
        keep: (Pairing) throws -> Void
    ) throws -> Pairing {
        let pairing = try keycard.pair(pairingSecret: pairingSecret)
        do {
            try keep(pairing)
        } catch {
            if let freeing = free(keycard, pairing, pin: pin) {
                let keeping = (error as? any WalletError)?.message ?? String(describing: type(of: error))
                throw CardFlowError.slotNotFreed(index: pairing.index, keeping: keeping, freeing: freeing.message)
            }
            throw error
        }
        return pairing
    }

    /// UNPAIR of the pairing's own slot; the error, if it could not be done.
    private static func free(_ keycard: Keycard, _ pairing: Pairing, pin: SecureBytes) -> CardError? {
        do {
            try keycard.openSecureChannel(pairing)
            try keycard.verifyPIN(pin)
            try keycard.unpair(index: pairing.index)
            return nil
        } catch {
            return error
        }
    }

    /// Which PIN a CHANGE PIN changed: the applet changes the PIN that opened the session,
    /// the duress PIN after a duress unlock.
    public enum ChangedPIN: String, Sendable {
        case main, duress
        /// No duress_pin in the credentials: which of the two opened the session is unknown.
        case unknown = "the_verified_one"
    }

    /// CHANGE PIN after VERIFY PIN with `pin`. A new PIN that already opens the card is the
    /// card's other PIN (the duress PIN, or the main PIN after a duress unlock): making the
    /// two equal would let the main PIN open the duress wallet (the duress PIN takes
    /// precedence), so it is refused. The card is asked with VERIFY PIN of the new PIN; a wrong
    /// one costs a try, which VERIFY PIN of `pin` right after gives back.
    public static func changePIN(_ keycard: Keycard, pin: SecureBytes, newPIN: SecureBytes, duressPIN: SecureBytes?) throws -> ChangedPIN {
        let changed: ChangedPIN = duressPIN.map { $0.bytes == pin.bytes ? .duress : .main } ?? .unknown
        // A new PIN equal to a duress_pin of the credentials is the probe's first case too;
        // card-info refuses it before anything is sent.
        if newPIN.bytes != pin.bytes {
            do {
                try keycard.verifyPIN(newPIN)
                throw CardError.badCredential(
                    "the new PIN already opens this card: it is the card's other PIN (the duress PIN, or the main PIN when the session was opened with the duress PIN); two equal PINs would let the main PIN open the duress wallet: choose another"
                )
            } catch CardError.wrongPIN {
                try keycard.verifyPIN(pin)
            }
        }
        try keycard.changePIN(newPIN)
        return changed
    }
}

public enum CardFlowError: WalletError {
    case slotNotFreed(index: UInt8, keeping: String, freeing: String)

    public var code: String { "card.slot_not_freed" }
    public var exitStatus: ExitStatus { .ioError }
    public var message: String {
        switch self {
        case .slotNotFreed(let index, let keeping, let freeing):
            "the pairing could not be kept (\(keeping)), and its slot \(index) could not be freed (\(freeing)): free it with card-info unpair --index \(index) from another pairing"
        }
    }
    public var details: [(key: String, value: ErrorDetail)] {
        switch self {
        case .slotNotFreed(let index, _, _): [("index", .int(Int(index)))]
        }
    }
}
