import Foundation
import SatchelTestSupport
import XCTest
@testable import WalletCore
@testable import WalletCrypto

final class SigningVectorTests: XCTestCase {
    func testRFC6979Vectors() throws {
        let doc = try TestPaths.json(TestPaths.vector("rfc6979-secp256k1.json")) as! [String: Any]
        let vectors = doc["vectors"] as! [[String: Any]]
        XCTAssertEqual(vectors.count, 6)
        for v in vectors {
            let key = try Hex.decodeSecret(v["private_key"] as! String)
            let hash = try Hex.decode(v["sha256"] as! String)
            XCTAssertEqual(Hex.encode(Hash.sha256(Array((v["message"] as! String).utf8))), v["sha256"] as? String)
            let sig = try Secp256k1.signECDSA(hash: hash, privateKey: key)
            XCTAssertEqual(Hex.encode(sig.compact), (v["r"] as! String) + (v["s"] as! String))
            XCTAssertEqual(sig.recoveryID, v["recovery_id"] as? Int)
            XCTAssertEqual(Hex.encode(sig.der), v["der"] as? String)
            let pub = try Secp256k1.publicKey(of: key)
            XCTAssertEqual(Hex.encode(pub.compressed), v["public_key"] as? String)
            XCTAssertTrue(try Secp256k1.verifyECDSA(hash: hash, compact: sig.compact, publicKey: pub))
            XCTAssertEqual(try Secp256k1.recoverECDSA(hash: hash, compact: sig.compact, recoveryID: sig.recoveryID), pub)
            var changed = hash
            changed[0] ^= 1
            XCTAssertFalse(try Secp256k1.verifyECDSA(hash: changed, compact: sig.compact, publicKey: pub))
            // The high-S twin of a valid signature is refused.
            let highS = try Hex.decode((v["r"] as! String) + (v["s_before_low_s"] as! String))
            if v["low_s_flipped"] as? Bool == true {
                XCTAssertFalse(try Secp256k1.verifyECDSA(hash: hash, compact: highS, publicKey: pub))
            }
        }
    }

    func testBIP340Vectors() throws {
        let doc = try TestPaths.json(TestPaths.vector("bip340.json")) as! [String: Any]
        let vectors = doc["vectors"] as! [[String: Any]]
        XCTAssertEqual(vectors.count, 19)
        for v in vectors {
            let message = try Hex.decode(v["message"] as! String)
            let signature = try Hex.decode(v["signature"] as! String)
            let publicKey = try Hex.decode(v["public_key"] as! String)
            let expected = v["verification_result"] as! Bool
            XCTAssertEqual(
                Secp256k1.verifySchnorr(message: message, signature: signature, xOnlyPublicKey: publicKey), expected,
                "vector \(v["index"]!)")
            let secret = v["secret_key"] as! String
            guard !secret.isEmpty else { continue }
            let pair = try Secp256k1.SchnorrKeyPair(privateKey: try Hex.decodeSecret(secret))
            XCTAssertEqual(Hex.encode(pair.xOnlyPublicKey), v["public_key"] as? String)
            XCTAssertEqual(
                Hex.encode(try pair.sign(message, auxRand: try Hex.decode(v["aux_rand"] as! String))), v["signature"] as? String,
                "vector \(v["index"]!)")
        }
    }

    /// A BIP86 key-path signature verifies against the tweaked output key of the address.
    func testTaprootTweakedSignatureVerifiesAgainstOutputKey() throws {
        let key = try Hex.decodeSecret("41f41d69260df4cf277826a9b65a3717e4eeddbeedf637f212ca096576479361")
        let pair = try Secp256k1.SchnorrKeyPair(privateKey: key, taprootTweak: true)
        let output = try Secp256k1.publicKey(of: key).taprootOutputKey()
        XCTAssertEqual(pair.xOnlyPublicKey, output)
        let hash = Hash.sha256(Array("spend".utf8))
        XCTAssertTrue(Secp256k1.verifySchnorr(message: hash, signature: try pair.sign(hash), xOnlyPublicKey: output))
    }
}
