import Bitcoin
import Ethereum
import SatchelTestSupport
import WalletCardCLI
import DeriveRecords
import KeySources
import SigningRecords
import WalletCore
import WalletKeys
import XCTest
@testable import KeycardSimulator
@testable import WalletCard
import WalletRecords
import WalletCrypto

/// sign-tx's card key sources against the software key of the same phrase, in process: the
/// simulated applet signs with RFC 6979 nonces, so a PSBT and an Ethereum transaction signed
/// on the card are byte for byte those the software key signs without low-R grinding.
final class CardTransactionTests: XCTestCase {
    let fixture = CardFixture()

    func unlockedCard() throws -> CardKeys {
        let (keycard, _) = try fixture.ready(KeycardSimulator())
        try keycard.verifyPIN(fixture.pin)
        _ = try keycard.loadSeed(fixture.seed)
        return CardKeys(keycard)
    }

    static func txOut(_ value: UInt64, _ script: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) } + [UInt8(script.count)] + script
    }

    static func origin(_ fingerprint: [UInt8], _ path: String) throws -> [UInt8] {
        fingerprint + (try DerivationPath(parsing: path)).components.flatMap { c in withUnsafeBytes(of: c.littleEndian) { Array($0) } }
    }

    /// A P2WPKH and a P2PKH input of the phrase's, change back to it.
    func psbt(master: ExtendedKey) throws -> PSBT {
        let segwit = try master.derive(try DerivationPath(parsing: "m/84'/1'/0'/0/0").components).publicKey
        let legacy = try master.derive(try DerivationPath(parsing: "m/44'/1'/0'/0/0").components).publicKey
        let change = try master.derive(try DerivationPath(parsing: "m/84'/1'/0'/1/0").components).publicKey
        let previous = BitcoinTx(
            version: 2, inputs: [.init(previousTxID: [UInt8](repeating: 3, count: 32), previousIndex: 0, scriptSig: [0x51])],
            outputs: [.init(value: 70_000, script: ScriptTemplate.p2pkh(Hash.hash160(legacy.compressed)))], lockTime: 0)
        let tx = BitcoinTx(
            version: 2,
            inputs: [
                .init(previousTxID: [UInt8](repeating: 9, count: 32), previousIndex: 4),
                .init(previousTxID: previous.txid, previousIndex: 0),
            ],
            outputs: [
                .init(value: 100_000, script: ScriptTemplate.p2wpkh([0x02] + [UInt8](repeating: 8, count: 32))),
                .init(value: 19_000, script: ScriptTemplate.p2wpkh(change.compressed)),
            ], lockTime: 0)
        var psbt = try PSBT(unsignedTransaction: tx)
        psbt.inputs[0].insertInOrder(
            PSBT.Pair(type: PSBTField.inWitnessUtxo, value: Self.txOut(50_000, ScriptTemplate.p2wpkh(segwit.compressed))))
        psbt.inputs[0].insertInOrder(
            PSBT.Pair(
                type: PSBTField.inBIP32Derivation, keyData: segwit.compressed, value: try Self.origin(master.fingerprint, "m/84'/1'/0'/0/0")
            ))
        psbt.inputs[1].insertInOrder(PSBT.Pair(type: PSBTField.inNonWitnessUtxo, value: previous.serialized()))
        psbt.inputs[1].insertInOrder(
            PSBT.Pair(
                type: PSBTField.inBIP32Derivation, keyData: legacy.compressed, value: try Self.origin(master.fingerprint, "m/44'/1'/0'/0/0")
            ))
        psbt.outputs[1].insertInOrder(
            PSBT.Pair(
                type: PSBTField.outBIP32Derivation, keyData: change.compressed,
                value: try Self.origin(master.fingerprint, "m/84'/1'/0'/1/0")))
        return psbt
    }

    func testAPSBTSignedOnTheCardIsTheSoftwareKeysPSBT() throws {
        let master = try ExtendedKey.master(seed: fixture.seed)
        let unsigned = try psbt(master: master)
        let card = try CardPSBTKeys(unlockedCard())
        XCTAssertTrue(card.owns(fingerprint: master.fingerprint, path: []))
        XCTAssertFalse(card.owns(fingerprint: [0, 0, 0, 0], path: []))
        let (onCard, cardReport) = try PSBTSigner(coinType: 1).sign(unsigned, keys: card) { _ in }
        let (inSoftware, _) = try PSBTSigner(coinType: 1).sign(unsigned, keys: try BIP32Keyring(root: master, nonces: .rfc6979)) { _ in }
        XCTAssertEqual(onCard, inSoftware)
        XCTAssertEqual(cardReport.inputs.map(\.signed), [1, 1])
        XCTAssertTrue(cardReport.complete)
        XCTAssertEqual(cardReport.outputs.map(\.change), [false, true])
        XCTAssertNoThrow(try PSBTFinalizer.extract(try PSBTFinalizer.finalized(onCard)))
    }

    /// A taproot input: the card makes no BIP340 signature, refused before the summary.
    func testATaprootInputIsRefusedBeforeTheSummary() throws {
        let master = try ExtendedKey.master(seed: fixture.seed)
        let key = try master.derive(try DerivationPath(parsing: "m/86'/1'/0'/0/0").components).publicKey
        let xOnly = Array(key.compressed.dropFirst())
        let tx = BitcoinTx(
            version: 2, inputs: [.init(previousTxID: [UInt8](repeating: 1, count: 32), previousIndex: 0)],
            outputs: [.init(value: 1_000, script: ScriptTemplate.p2wpkh([0x02] + [UInt8](repeating: 8, count: 32)))], lockTime: 0)
        var psbt = try PSBT(unsignedTransaction: tx)
        psbt.inputs[0].insertInOrder(
            PSBT.Pair(type: PSBTField.inWitnessUtxo, value: Self.txOut(2_000, [0x51, 0x20] + (try key.taprootOutputKey()))))
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inTapInternalKey, value: xOnly))
        psbt.inputs[0].insertInOrder(
            PSBT.Pair(
                type: PSBTField.inTapBIP32Derivation, keyData: xOnly, value: [0] + (try Self.origin(master.fingerprint, "m/86'/1'/0'/0/0")))
        )
        var asked = false
        XCTAssertThrowsError(try PSBTSigner().sign(psbt, keys: try CardPSBTKeys(unlockedCard())) { _ in asked = true }) {
            XCTAssertEqual(($0 as? PSBTSignError)?.code, "psbt.unsupported_script")
        }
        XCTAssertFalse(asked)
    }

    func testAnEthereumTransactionSignedOnTheCardIsTheSoftwareKeysTransaction() throws {
        let record = try JSONParser.parseObject(
            Array(
                #"{"eth_tx":{"to":"0xF0109fC8DF283027b6285cc889F5aA624EaC1F55","value":"1000000000000000000","nonce":7,"gas":21000,"maxFeePerGas":"30000000000","maxPriorityFeePerGas":"1500000000","chainId":1}}"#
                    .utf8))
        var summaries = [JSONObject]()
        let onCard = try EthereumRecords.sign(record, path: "m/44h/60h/0h/0/0", keys: try unlockedCard()) { summaries.append($0) }
        let software = SoftwareKeys(
            .bip32(try ExtendedKey.master(seed: fixture.seed), origin: DerivationPath(), fromSeed: true), cache: SigningKeyCache(),
            cacheable: true)
        let inSoftware = try EthereumRecords.sign(record, path: "m/44h/60h/0h/0/0", keys: software) { summaries.append($0) }
        XCTAssertEqual(onCard, inSoftware)
        XCTAssertEqual(summaries[0], summaries[1])
        XCTAssertEqual(onCard["from"], .string("0x9858EfFD232B4033E47d90003D41EC34EcaEda94"))
    }
}
