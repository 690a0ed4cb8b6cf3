import Foundation
import SatchelTestSupport
import XCTest

/// One label limit for both tools (issue 56 point 5): derive hands out labels 1 to 99,999, the
/// labels scan-blocks --sp-labels can look for; before, derive handed out any label up to
/// 2^32 - 1 and a payment to label 100,000 was never found.
final class SilentPaymentLabelLimitTests: XCTestCase {
    let key = Data(#"{"mnemonic":"\#(TestPhrase.legalWinner)"}"#.utf8)

    func testDeriveHandsOutOnlyWhatTheScanLooksFor() throws {
        let ok = try Shell.run("derive --purpose 352 --coin btc --label 99999", stdin: key)
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(ok.records.map { $0["label"] as? Int }, [99_999])
        let high = try Shell.run("derive --purpose 352 --coin btc --label 1 --label 100000", stdin: key)
        XCTAssertEqual(high.status, 64, high.stderr)
        XCTAssertEqual(high.out, "")
        XCTAssertTrue(
            high.stderr.hasPrefix(
                "Error: --label 100000: at most 99999, the highest label scan-blocks --sp-labels looks for (a payment to a higher one would never be found)\n"
            ), high.stderr)
    }

    func testScanLooksForTheSameLabels() throws {
        let high = try Shell.run(
            "scan-blocks --chain bitcoin --silent-payments --sp-labels 100000 --blocks /dev/null --birthday 0 --state-dir /nonexistent",
            stdin: key)
        XCTAssertEqual(high.status, 64, high.stderr)
        XCTAssertTrue(
            high.stderr.hasPrefix(
                "Error: --sp-labels: at most 99999 labels are looked for (the highest label derive --label hands out)\n"), high.stderr)
    }
}
