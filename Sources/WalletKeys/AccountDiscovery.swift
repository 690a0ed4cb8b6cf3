import WalletCore
import WalletCrypto

/// BIP44 account discovery with a gap limit, over any notion of "used": derive asks a list of
/// addresses, a scanner asks whether a script has been paid. Accounts 0, 1, … are walked,
/// each receive and change chain until `gap` consecutive keys are unused, and the walk ends
/// after the first account whose receive chain has no used key, as BIP44 says.
public struct AccountDiscovery: Sendable {
    /// Consecutive unused keys that end a chain (BIP44: 20).
    public let gap: UInt32
    /// Accounts looked at, at most.
    public let maxAccounts: UInt32

    /// A chain is walked to its last used index plus the gap: a larger gap is a typo, and
    /// would have derivation run for days.
    public static let maxGap: UInt32 = 1_000_000

    public init(gap: UInt32 = 20, maxAccounts: UInt32 = 100) { (self.gap, self.maxAccounts) = (gap, maxAccounts) }

    /// What one chain (receive 0 or change 1) of an account has used.
    public struct ChainUsage: Sendable, Equatable {
        /// Keys found used.
        public let used: Int
        /// The index after the last used key: the next address to hand out.
        public let nextUnused: UInt32

        public init(used: Int, nextUnused: UInt32) { (self.used, self.nextUnused) = (used, nextUnused) }
    }

    /// An account with at least one used key.
    public struct Account {
        public let number: UInt32
        public let path: DerivationPath
        /// The account's node (public is enough).
        public let node: ExtendedKey
        public let receive: ChainUsage
        public let change: ChainUsage
    }

    /// The end (exclusive) of a chain's window once its next unused index is `nextUnused`:
    /// every used key and the `gap` after the last. A scanner watches this window, and widens
    /// it as payments arrive.
    public func windowEnd(nextUnused: UInt32) -> UInt32 {
        UInt32(min(UInt64(nextUnused) + UInt64(gap), UInt64(DerivationPath.hardened)))
    }

    /// BIP44: discovery goes on to the next account only when this one's external (receive)
    /// chain has been used.
    public static func goesOn(receiveUsed: Bool) -> Bool { receiveUsed }

    /// Walks one chain below `parent`; `isUsed(index, key)` asks of each child key. An index
    /// with no valid child key (BIP32's rare case) counts as unused.
    public func walk(_ parent: ExtendedKey, isUsed: (UInt32, Secp256k1.PublicKey) throws -> Bool) rethrows -> ChainUsage {
        var next: UInt32 = 0, used = 0, index: UInt32 = 0
        while index < windowEnd(nextUnused: next) {
            if let child = try? parent.child(index), try isUsed(index, child.publicKey) {
                used += 1
                next = index + 1
            }
            index += 1
        }
        return ChainUsage(used: used, nextUnused: next)
    }

    /// Walks the accounts of `plan` (m/purpose'/coin'/account'), calling `found` for each used
    /// one in order; returns how many were used (the next account's number).
    /// `node(path)` gives an account's node: derived from a master key, or from a card.
    /// `isUsed(chain, index, key)`: whether the key at chain/index has history.
    public func run(
        _ plan: AddressPlan, node: (DerivationPath) throws -> ExtendedKey,
        isUsed: (UInt32, UInt32, Secp256k1.PublicKey) throws -> Bool,
        found: (Account) throws -> Void
    ) throws -> UInt32 {
        var number: UInt32 = 0
        while number < maxAccounts {
            let path = plan.accountPath(number)
            let account = try node(path)
            let usage = try [UInt32(0), 1].map { chain in
                try walk(try account.derive([chain])) { index, key in try isUsed(chain, index, key) }
            }
            if usage[0].used == 0 && usage[1].used == 0 { break }
            try found(Account(number: number, path: path, node: account, receive: usage[0], change: usage[1]))
            number += 1
            guard Self.goesOn(receiveUsed: usage[0].used > 0) else { break }
        }
        return number
    }
}
