import XCTest
@testable import WalletKeys

/// Wordlist.suggestions compares letter numbers, not Characters (a tenth of the time: the
/// phrase fuzz target spent most of its time there). Held here against the plain Character
/// computation it replaced, on typos of every list's words.
final class SuggestionTests: XCTestCase {
    func testSuggestionsEqualTheCharacterComputation() {
        var rng = SystemRandomNumberGenerator()
        let lists = BIP39.wordlists + [MoneroSeed.wordlist]
        for list in lists {
            let alphabet = Array(Set(list.words.joined())) + ["é", "ß", "x", "\u{3042}"]
            for _ in 0..<8 {
                var word = Array(list.words.randomElement(using: &rng)!)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: word[Int.random(in: 0..<word.count, using: &rng)] = alphabet.randomElement(using: &rng)!
                case 1: word.insert(alphabet.randomElement(using: &rng)!, at: Int.random(in: 0...word.count, using: &rng))
                case 2 where word.count > 1: word.remove(at: Int.random(in: 0..<word.count, using: &rng))
                default: if word.count > 1 { let i = Int.random(in: 0..<(word.count - 1), using: &rng); word.swapAt(i, i + 1) }
                }
                let typed = String(word)
                XCTAssertEqual(list.suggestions(for: typed), Self.reference(list.words, typed), "\(list.name): \(typed)")
            }
        }
    }

    func testKnownSuggestions() {
        let english = BIP39.wordlist("english")!
        XCTAssertEqual(english.suggestions(for: "abuot").first, "about")
        XCTAssertEqual(english.suggestions(for: "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"), [])
    }

    /// The computation before: optimal string alignment over Characters, every word of the list.
    static func reference(_ words: [String], _ word: String) -> [String] {
        let typed = Array(word)
        let bound = max(2, typed.count / 2)
        var scored: [(distance: Int, shared: Int, index: Int)] = []
        for (i, w) in words.enumerated() {
            let candidate = Array(w)
            guard abs(candidate.count - typed.count) <= bound else { continue }
            let shared = zip(typed, candidate).prefix { $0 == $1 }.count
            scored.append((distance(typed, candidate), shared, i))
        }
        scored.sort { ($0.distance, -$0.shared, $0.index) < ($1.distance, -$1.shared, $1.index) }
        return scored.prefix(3).filter { $0.distance <= bound }.map { words[$0.index] }
    }

    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
