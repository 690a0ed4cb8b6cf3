import Bitcoin
import Foundation
import Monero
import DeriveRecords
import KeySources
import ScanRecords
import WalletCore
import WalletKeys
import WalletScan
import XCTest
import WalletRecords
import MoneroScan

/// scan-blocks' pieces at their library home: the wallets file, event records, the progress bar.
final class ScanRecordsTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory("scanrec")
    }

    private func walletsFile(_ text: String) throws -> String {
        let path = dir + "/wallets"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
        return path
    }

    private func text(_ record: JSONObject) -> String { String(decoding: JSONWriter.line(record), as: UTF8.self) }

    func testWalletsFileLines() throws {
        let path = try walletsFile("shop\n  # a comment\n\n\t{\"view_key\":\"00\",\"name\":\"x\"}  \r\ncafe\n")
        let given = try WalletsGiven.read(names: ["first"], walletsFile: path)
        XCTAssertEqual(given.names, ["first", "shop", "cafe"])
        XCTAssertEqual(given.records.map(\.what), ["\(path) line 4"])
        XCTAssertEqual(given.records.first?.record["name"], .string("x"))
        XCTAssertThrowsError(try WalletsGiven.read(names: [], walletsFile: try walletsFile("a b\n"))) {
            XCTAssertEqual(
                $0 as? ScanError, .malformed(what: "\(path) line 1", reason: "a line holds a key-store entry's name or a JSON key record"))
        }
        XCTAssertThrowsError(try WalletsGiven.read(names: [], walletsFile: try walletsFile("ok\n{\"a\":\n"))) {
            guard case .malformed(let what, let reason)? = $0 as? ScanError else { return XCTFail("\($0)") }
            XCTAssertEqual(what, "\(path) line 2")
            XCTAssertTrue(reason.hasPrefix("not a JSON object ("), reason)
        }
    }

    /// Several wallets: a record without a name is named by its address; one that is not this
    /// chain's is refused by its line.
    func testRecordsAreReadAndNamedPerChain() throws {
        let spend = SecureBytes([UInt8](repeating: 0, count: 31) + [9])
        let keys = try MoneroKeys(spendSecret: spend)
        let record = JSONObject(["spend_key": .string(spend.hex)])
        let path = try walletsFile(
            text(record) + text(JSONObject(["spend_key": .string(spend.hex), "name": .string("named"), "birthday": .number("7")])))
        let reader = MoneroWalletReader(network: .stagenet, lookahead: (2, 3))
        let wallets = try WalletsGiven.read(names: [], walletsFile: path).wallets(
            reader, keyStore: KeyStoreOptions.parse([]), keyOptions: KeyOptions.parse([]), stdinHoldsKey: false)
        XCTAssertEqual(wallets.map(\.name), [keys.primaryAddress(.stagenet), "named"])
        XCTAssertEqual(wallets.map(\.birthday), [nil, 7])
        XCTAssertEqual(wallets[0].scanner.stateName, MoneroScanner(keys: keys, network: .stagenet).stateName)
        let bip32 = try walletsFile(
            text(
                JSONObject([
                    "xprv": .string(
                        "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi")
                ])))
        XCTAssertThrowsError(
            try WalletsGiven.read(names: [], walletsFile: bip32).wallets(
                reader, keyStore: KeyStoreOptions.parse([]), keyOptions: KeyOptions.parse([]), stdinHoldsKey: false)
        ) {
            XCTAssertEqual(
                $0 as? DerivationError, .unsupported("\(bip32) line 1 is not a Monero wallet (Zcash keys are scanned with --chain zcash)"))
        }
    }

    /// A record's BIP392 sp() descriptor is a silent payment receiver for scan-blocks; one of
    /// another network, or one among "descriptors", is refused without quoting it.
    func testSilentPaymentDescriptorRecords() throws {
        let reader = BitcoinWalletReader<BitcoinMainChain>(
            network: try BitcoinNetwork(BitcoinMainChain.self, network: "main"), coinType: nil, discovery: AccountDiscovery())
        let main =
            "sp(spscan1q0rnl6lft0gkpg4nsn528qgdpytfdej40atdqgrxpqqsg8c5r8vys973ppv7y5c9cphgkzm6g4efmhhcdkazt87ggxwz3pruphc9vkkxxhtvyag)#2z4nx9j3"
        let test =
            "sp([73c5da0a/352'/0'/0']tspscan1q0rnl6lft0gkpg4nsn528qgdpytfdej40atdqgrxpqqsg8c5r8vys973ppv7y5c9cphgkzm6g4efmhhcdkazt87ggxwz3pruphc9vkkxx3tpsdj)#tph337zw"
        XCTAssertNotNil(try reader.wallet(record: JSONObject(["descriptor": .string(main)])))
        XCTAssertThrowsError(try reader.wallet(record: JSONObject(["descriptor": .string(test)]))) {
            XCTAssertEqual(($0 as? DerivationError)?.message, "the sp() descriptor is for a test network, not bitcoin main")
        }
        XCTAssertThrowsError(try reader.wallet(record: JSONObject(["descriptors": .array([.string(main)])]))) {
            XCTAssertEqual(($0 as? DerivationError)?.message, "an sp() descriptor is a wallet of its own: give it alone, as \"descriptor\"")
        }
        XCTAssertThrowsError(
            try reader.wallet(record: JSONObject(["descriptor": .string("sh(" + main.prefix(while: { $0 != "#" }) + ")")]))
        ) {
            XCTAssertEqual(
                ($0 as? SilentPaymentError)?.message,
                "not a BIP392 sp() descriptor: BIP392's descriptor is sp(KEY) or sp(SCAN,SPEND), and only at the top level")
        }
        // An error record keeps neither form.
        XCTAssertEqual(
            SecretFields.removed(
                from: JSONObject(["id": .string("a"), "descriptor": .string(main), "descriptors": .array([.string(test)])])),
            JSONObject(["id": .string("a")]))
    }

    func testEventRecordInTheChainsWords() throws {
        let scanner = MoneroScanner(
            keys: try MoneroKeys(spendSecret: SecureBytes([UInt8](repeating: 0, count: 31) + [9])), network: .mainnet)
        let output = ReceivedOutput(
            height: 12, txID: [UInt8](repeating: 0xAB, count: 32), index: 1, amount: 5_000, account: 0, addressIndex: 0,
            spendTag: [1, 2], memo: [0xCD], unlockTime: 0, isCoinbase: false, outputKey: [3])
        let r = EventRecords.record(
            .received(output, confirmations: 4), chain: MoneroScanner.self, wallet: "shop", addresses: AddressBook(scanner: scanner))
        XCTAssertEqual(
            text(r),
            #"{"type":"received","chain":"monero","wallet":"shop","height":12,"txid":""# + String(repeating: "ab", count: 32)
                + #"","index":1,"amount":"5000","major":0,"minor":0,"address":""# + scanner.address(account: 0, index: 0)!
                + #"","payment_id":"cd","key_image":"0102","confirmations":4}"# + "\n")
    }

    func testProgressBar() {
        XCTAssertEqual(StandardOutputSink.bar(height: 5200, chainHeight: 11500), "[#############-----------------]  45%  5200/11500")
        XCTAssertEqual(StandardOutputSink.bar(height: 7, chainHeight: nil), "block 7")
        XCTAssertEqual(StandardOutputSink.bar(height: 20, chainHeight: 10, width: 4), "[####] 100%  20/10")
    }
}
