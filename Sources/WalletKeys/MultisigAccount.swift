import WalletCore

/// A BIP48 multisig account, m/48'/coin'/account'/script': the key a cosigner gives the others,
/// as Sparrow, Specter and Coldcard exchange it, `[fingerprint/48'/coin'/account'/2']xpub…`.
/// Its addresses need every cosigner's key, so a seed alone makes none.
public enum MultisigScript: String, Sendable, CaseIterable {
    /// Native segwit, script type 2'.
    case p2wsh
    /// Nested segwit, script type 1'.
    case p2shP2wsh = "p2sh-p2wsh"

    /// BIP48's script type: the fourth step of the path (hardened).
    public var scriptType: UInt32 { self == .p2wsh ? 2 : 1 }

    /// The SLIP-132 prefix wallets show such an account's key with (Zpub/Vpub, Ypub/Upub).
    public func slip132(testnet: Bool) -> ExtendedKeyVersion {
        switch (self, testnet) {
        case (.p2wsh, false): ExtendedKeyVersion.named("Zpub")!
        case (.p2wsh, true): ExtendedKeyVersion.named("Vpub")!
        case (.p2shP2wsh, false): ExtendedKeyVersion.named("Ypub")!
        case (.p2shP2wsh, true): ExtendedKeyVersion.named("Upub")!
        }
    }

    /// m/48'/coinType'/account'/scriptType'.
    public func accountPath(coinType: UInt32, account: UInt32) -> DerivationPath {
        let h = DerivationPath.hardened
        return DerivationPath([48 + h, coinType + h, account + h, scriptType + h])
    }

    /// `[fingerprint/48'/…]xpub`: the key with its origin, as a descriptor's key expression.
    public static func keyOrigin(masterFingerprint: [UInt8], path: DerivationPath, xpub: String) -> String {
        "[" + Hex.encode(masterFingerprint) + path.description.dropFirst() + "]" + xpub
    }
}
