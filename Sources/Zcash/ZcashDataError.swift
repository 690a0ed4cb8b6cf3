import WalletCore

/// Errors of Zcash block data. None carries key material.
public enum ZcashDataError: WalletError, Equatable {
    case badBlock(height: Int?, reason: String)

    public var code: String { "scan.bad_block" }
    public var message: String {
        switch self {
        case .badBlock(let height, let reason): "compact block\(height.map { " at height \($0)" } ?? ""): \(reason)"
        }
    }
}
