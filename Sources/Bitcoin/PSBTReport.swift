import WalletCore
import WalletKeys

/// What a signer saw in a PSBT, for a person (or a script) to check before anything is signed:
/// every input (ours or not, amount, our keys' paths), every output (amount, script, whether our
/// own keys alone can spend it), the fee and the transaction's size.
public struct PSBTReport: Sendable {
    public struct Input: Sendable {
        public let index: Int
        public let previousTxID: [UInt8]
        public let previousIndex: UInt32
        public let amount: UInt64
        public let script: [UInt8]
        /// p2pkh, p2sh, p2sh-p2wpkh, p2sh-p2wsh, p2wpkh, p2wsh, p2tr or unknown.
        public let kind: String
        /// Our keys' paths in this input.
        public let paths: [String]
        /// The sighash type our signatures will use (nil: not ours).
        public let sighash: UInt32?
        /// Signatures added by this signer.
        public internal(set) var signed = 0
        /// Whether the input has every signature it needs (or was finalized already).
        public internal(set) var complete = false
        public var ours: Bool { !paths.isEmpty }
    }

    public struct Output: Sendable {
        public let index: Int
        public let amount: UInt64
        public let script: [UInt8]
        /// Our keys alone can spend it: the script was built again from keys derived here, never
        /// taken on the PSBT's word.
        public let change: Bool
        public let paths: [String]
        /// The wallet (a `PSBTSigner.wallets` index) whose change it is, for a multisig output.
        public var wallet: Int?
        /// A silent payment output's address keys and label (BIP375); its `script` is empty
        /// while the shares are not all in.
        public var silentPayment: SilentPaymentPSBT.Output?
    }

    public let version: UInt32
    public internal(set) var inputs: [Input]
    public let outputs: [Output]
    public let fee: UInt64
    /// The virtual size: exact once every input is complete, otherwise estimated from each
    /// input's script (nil when one cannot be estimated).
    public internal(set) var vsize: Int?
    public internal(set) var vsizeEstimated = true
    /// A silent payment output still lacks its script (other signers' shares): nothing was signed.
    public internal(set) var silentPaymentsPending = false

    public var complete: Bool { inputs.allSatisfy(\.complete) }
}
