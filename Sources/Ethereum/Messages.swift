import WalletCore
import WalletCrypto

/// EIP-191 version 0x45 (`personal_sign`, eth_sign): the prefix keeps a signed message from
/// ever being a valid transaction.
public enum PersonalMessage {
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        Keccak256.hash(Array("\u{19}Ethereum Signed Message:\n\(message.count)".utf8) + message)
    }

    /// r ‖ s ‖ v with v = 27 + recovery id: the 65-byte form wallets and eth-account return.
    public static func signature(_ sig: ECDSASignature) throws(EthereumError) -> [UInt8] {
        guard sig.recoveryID < 2 else { throw .unexpressibleRecoveryID(sig.recoveryID) }
        return sig.compact + [UInt8(27 + sig.recoveryID)]
    }
}
