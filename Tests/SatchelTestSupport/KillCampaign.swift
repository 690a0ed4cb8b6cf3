import Foundation

/// kill -9 at random moments, as a test (docs/RELIABILITY.md): `run` is started again and
/// again, each time killed after a random delay in [0, `window`) seconds, until `kills` runs
/// were killed before they ended (a run that ends first is no kill). After every kill
/// `afterKill` must succeed (no corrupt state, no half-written file); a run that ends on its
/// own ends a round: `roundDone` checks the round's result and makes a fresh start. After the
/// last kill one run is left to end, so every campaign ends with a resume that is checked.
///
/// The delays come from a seed given to awk's rand, printed with a failure, so a failing
/// campaign can be replayed (as fractions of the window: a run from a fresh start that ends
/// before its kill sets the window to a fifth more than it took, as the machine's load
/// changes). One bash process runs the whole campaign: 100 kills cost the runs themselves,
/// not 100 test-harness round trips.
public struct KillCampaign {
    public let run: String
    public let afterKill: String
    public let roundDone: String
    public var kills = 100
    public var window: Double
    public var seed = UInt32.random(in: 1...1_000_000)

    public init(run: String, afterKill: String, roundDone: String, window: Double) {
        (self.run, self.afterKill, self.roundDone, self.window) = (run, afterKill, roundDone, window)
    }

    public struct Outcome {
        public let kills: Int, attempts: Int, rounds: Int
        /// How many different delays the runs had (they must differ: random moments).
        public let delays: Int
        /// The window the campaign ended with (runs from a fresh start set it as they go).
        public let window: Double
        public let failure: String?
        public let log: String
    }

    /// What is wrong with an outcome of this campaign, a message each, none when it held: a
    /// check that failed, fewer kills than asked, or no round that ended (so no resume was
    /// compared with a clean run).
    public func problems(_ outcome: Outcome, what: String) -> [String] {
        var problems = [String]()
        if let failure = outcome.failure { problems.append("\(what): \(failure)") }
        if outcome.kills != kills { problems.append("\(what): \(outcome.kills) of \(kills) runs killed before they ended\n\(outcome.log)") }
        if outcome.rounds == 0 { problems.append("\(what): no run ended, so no resume was checked") }
        if outcome.delays * 2 < outcome.attempts {
            problems.append("\(what): \(outcome.delays) different delays in \(outcome.attempts) runs: not random moments")
        }
        return problems
    }

    /// The line a test prints: what happened, and the seed that repeats it.
    public func summary(_ outcome: Outcome, what: String) -> String {
        "kill campaign \(what): \(outcome.kills) kills in \(outcome.attempts) runs, \(outcome.rounds) rounds completed, "
            + "window \(String(format: "%.2f", window)) s at the start, \(String(format: "%.2f", outcome.window)) s at the end, seed \(seed)"
    }

    /// Writes the checkers the campaigns share into `dir`:
    /// `python3 whole-lines.py FILE…`: every line of each file whole and JSON (no half line);
    /// `python3 same-events.py GOT WANTED`: a scan's events (balances aside) are the wanted
    /// ones, each once, compared without confirmations and ids (they depend on where a run's
    /// batches ended), and GOT's event ids run 1, 2, 3… as written.
    public static func writeCheckers(to dir: URL) throws {
        try """
        import json, sys
        for path in sys.argv[1:]:
            try:
                data = open(path, "rb").read()
            except FileNotFoundError:
                continue
            if data and not data.endswith(b"\\n"):
                sys.exit(path + ": ends inside a line")
            for line in data.splitlines():
                json.loads(line)
        """.write(to: dir.appendingPathComponent("whole-lines.py"), atomically: true, encoding: .utf8)
        try """
        import json, re, sys
        def events(path):
            return [l for l in open(path).read().splitlines() if '"balance"' not in l]
        def stable(line):
            return re.sub(r',"(confirmations|event_id)":[0-9]+', "", line)
        got, want = events(sys.argv[1]), events(sys.argv[2])
        if sorted(map(stable, got)) != sorted(map(stable, want)):
            sys.exit("an event was lost, repeated or changed")
        ids = [json.loads(l)["event_id"] for l in got]
        if ids != list(range(1, len(want) + 1)):
            sys.exit("event ids %s" % ids)
        """.write(to: dir.appendingPathComponent("same-events.py"), atomically: true, encoding: .utf8)
    }

    /// The campaign for a scan appending to out.jsonl with state in st/: after each kill the
    /// file holds whole lines; a round that ends holds `wanted`'s events (run writeCheckers first).
    public static func scan(_ command: String, wanted: String, window: Double) -> KillCampaign {
        KillCampaign(
            run: "\(command) --state-dir st >> out.jsonl 2>> err.log",
            afterKill: "python3 whole-lines.py out.jsonl",
            roundDone: "python3 same-events.py out.jsonl \(wanted) && mkdir -p rounds && mv out.jsonl rounds/$rounds.jsonl && rm -rf st",
            window: window)
    }

    /// Runs the campaign in `cwd`; `failure` names the first broken check, with the seed.
    public func execute(cwd: URL) throws -> Outcome {
        let script = """
            set -u
            kills=0; attempts=0; rounds=0; window=\(window); fresh=1
            # A run that ended on its own ends a round: its result checked, and a fresh start made.
            round_ended() {
              rounds=$((rounds + 1))
              if ! ( \(roundDone) ); then echo "FAILED at the end of round $rounds$1 (attempt $attempts, seed \(seed))"; exit 1; fi
            }
            # One stream of the seed, a fraction of the window per attempt. (Seeding awk anew for
            # each attempt with seed * 7919 + attempt gave mawk one value for every attempt, seeds
            # that large not told apart: every run of a campaign was killed at the same moment.)
            fractions=($(awk -v s=\(seed) -v n=\(kills * 4) 'BEGIN { srand(s); for (i = 0; i < n; i++) printf "%.4f ", rand() }'))
            while [ $kills -lt \(kills) ] && [ $attempts -lt \(kills * 4) ]; do
              delay=$(awk -v f=${fractions[$attempts]} -v w=$window 'BEGIN { printf "%.3f", f * w }')
              attempts=$((attempts + 1))
              started=$EPOCHREALTIME
              ( exec \(run) ) &
              p=$!
              sleep $delay &
              timer=$!
              wait -n $p $timer 2>/dev/null
              ended=$EPOCHREALTIME
              kill -9 $p 2>/dev/null
              wait $p 2>/dev/null
              status=$?
              kill $timer 2>/dev/null; wait $timer 2>/dev/null
              if [ $status -eq 0 ] && [ $fresh -eq 1 ]; then
                # A run from a fresh start that ended before its kill sets the window: the machine's
                # load changes while a campaign runs (other tests beside it), and so does a run's time.
                window=$(awk -v a=$started -v b=$ended 'BEGIN { w = (b - a) * 1.2; printf "%.3f", w < 0.02 ? 0.02 : w }')
              fi
              fresh=0
              if [ $status -eq 137 ]; then
                kills=$((kills + 1))
                if ! ( \(afterKill) ); then echo "FAILED after kill $kills (attempt $attempts, delay $delay s, seed \(seed))"; exit 1; fi
              elif [ $status -eq 0 ]; then
                round_ended ""
                fresh=1
              else
                echo "FAILED: a run exited $status (attempt $attempts, delay $delay s, seed \(seed))"; exit 1
              fi
            done
            delays=$(printf '%s\\n' "${fractions[@]:0:attempts}" | sort -u | wc -l)
            # The last kill is resumed too: one run left to its end, and its round checked.
            if [ $kills -gt 0 ]; then
              attempts=$((attempts + 1))
              ( exec \(run) )
              status=$?
              [ $status -eq 0 ] || { echo "FAILED: the run after the last kill exited $status (seed \(seed))"; exit 1; }
              round_ended ", after the last kill"
            fi
            echo "kills=$kills attempts=$attempts rounds=$rounds delays=$delays window=$window"
            """
        let r = try Shell.run(script, cwd: cwd)
        let last = r.lines.last ?? ""
        func value(_ name: String) -> Substring? {
            last.split(separator: " ").first { $0.hasPrefix(name + "=") }?.dropFirst(name.count + 1)
        }
        func field(_ name: String) -> Int { value(name).flatMap { Int($0) } ?? -1 }
        let failed = r.status != 0 ? (r.lines.last { $0.hasPrefix("FAILED") } ?? "exit \(r.status)") + "\n" + r.stderr : nil
        return Outcome(
            kills: field("kills"), attempts: field("attempts"), rounds: field("rounds"), delays: field("delays"),
            window: value("window").flatMap { Double($0) } ?? -1, failure: failed, log: r.out + r.stderr)
    }
}
