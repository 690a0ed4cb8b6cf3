import ArgumentParser
import WalletCardCLI

struct ChangePIN: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "change-pin", abstract: "Set a new PIN (credentials: pin, new_pin).")
    @OptionGroup var session: SessionOptions

    func run() throws {
        try session.run("pin_changed", extra: [("new_pin", "New PIN: ", true)], check: CardFlows.checkNewPIN) { keycard, s, r in
            let changed = try CardFlows.changePIN(keycard, pin: s["pin"]!, newPIN: s["new_pin"]!, duressPIN: s["duress_pin"])
            r["changed"] = .string(changed.rawValue)
        }
    }
}
