import CSHA256
import WalletCore

/// Bitcoin's byte conventions, shared by the signer and the scanner (BitcoinScan extends it with
/// merkle trees and block parsing).
public enum Bitcoin {
    /// txid ‖ vout (little-endian).
    public static func outpoint(_ txid: [UInt8], _ index: UInt32) -> [UInt8] {
        txid + withUnsafeBytes(of: index.littleEndian) { Array($0) }
    }

    /// A hash as Bitcoin shows it: byte-reversed hex.
    public static func display(_ hash: [UInt8]) -> String { Hex.encode(hash.reversed()) }

    /// The internal bytes of a displayed (reversed) hash.
    public static func internalBytes(ofDisplayed hex: String) throws -> [UInt8] { Array(try Hex.decode(hex).reversed()) }

    /// SHA256(SHA256(bytes)).
    public static func sha256d(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var message = satchel_sha_message(
            data: (bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, nil, nil), size: (bytes.count, 0, 0, 0), count: 1)
        return [UInt8](unsafeUninitializedCapacity: 32) { out, n in
            satchel_sha256d_one(&message, out.baseAddress!)
            n = 32
        }
    }

    public static func sha256d(_ bytes: [UInt8]) -> [UInt8] { bytes.withUnsafeBytes { sha256d($0) } }
}
