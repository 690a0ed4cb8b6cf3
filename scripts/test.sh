#!/bin/bash
# make test's test phase, with the tests already built: the XCTest bundle in two shards side by side,
# and the fuzz smoke run (docs/RELIABILITY.md) beside them; each one's output whole after all
# have ended, then a line per part. Exit 0 only if every part passed.
#
# Most tests wait far more than they compute (on nodes, on tools they start, on kills), so two
# shards on two cores take little more than the longer one. Shard A holds the tests that must
# not meet each other's installs (InstallTests calls install-deps and swift build, SetupTests
# holds dpkg's lock), the live nodes, and, to even the two shards out, ManyWalletsTests and the
# heaviest of the rest; shard B is every other test class. The
# shards run the XCTest bundle itself, as swift test does: two swift test processes would both
# open SwiftPM's build database, and one of them fails on its lock. (swift test would also start
# the swift-testing runner; Satchel has no such tests.)
#
#   SATCHEL_BIN_DIR  the build's products, the tools and the test bundle (make test sets it)
#   FUZZ_SMOKE_SECONDS  fresh mutations a fuzz target (2)
set -uo pipefail
cd "$(dirname "$0")/.."
: "${SATCHEL_BIN_DIR:?set SATCHEL_BIN_DIR to the directory of the built products}"
export SATCHEL_BIN_DIR
bundle="$SATCHEL_BIN_DIR/SatchelPackageTests.xctest"
logs=.build/test-logs
rm -rf "$logs"; mkdir -p "$logs"
shard_a="EndToEndTests.InstallTests EndToEndTests.SetupTests EndToEndTests.LitecoinLiveNodeTests EndToEndTests.MoneroLiveNodeTests EndToEndTests.ManyWalletsTests
    EndToEndTests.DeriveToolTests EndToEndTests.KillCampaignTests EndToEndTests.KeycardPCSCTests EndToEndTests.HostileInputTests"

tests=$("$bundle" --list-tests | grep /) || { echo "cannot list the tests of $bundle" >&2; exit 1; }
classes=$(sed 's,/.*,,' <<< "$tests" | sort -u)
for c in $shard_a; do
    grep -qxF "$c" <<< "$classes" || { echo "scripts/test.sh: no test class $c: mend shard A" >&2; exit 1; }
done
shard_b=$(grep -vxF -f <(printf '%s\n' $shard_a) <<< "$classes")

timed() {  # log, command…: runs it, then writes its wall time into log.time
    local log=$1 start=$SECONDS status; shift
    "$@" > "$log" 2>&1; status=$?
    echo $((SECONDS - start)) > "$log.time"
    return $status
}
timed "$logs/shard-a.log" "$bundle" "$(printf '%s\n' $shard_a | paste -sd,)" &
a=$!
timed "$logs/fuzz-smoke.log" scripts/fuzz.sh --smoke "${FUZZ_SMOKE_SECONDS:-2}" "$SATCHEL_BIN_DIR/satchel-fuzz" &
f=$!
timed "$logs/shard-b.log" "$bundle" "$(paste -sd, <<< "$shard_b")"
b=$?
wait $a; a=$?
wait $f; f=$?

count_line() {  # a log's last XCTest count line, trimmed
    grep -E "^[[:space:]]+Executed [0-9]+ tests?," "$1" | tail -1 | sed -E 's/^[[:space:]]+//'
}
executed() {  # the number of tests that line counts, or 0
    count_line "$1" | sed -E 's/^Executed ([0-9]+) .*/\1/' | grep . || echo 0
}
summary() {  # name, status, log: the log's count line, or the fuzz lines' count
    local count
    count=$(count_line "$3")
    printf '%-10s exit %-3s %5s s  %s\n' "$1" "$2" "$(cat "$3.time")" "${count:-$(grep -c ' runs ' "$3") fuzz targets}"
}
for part in shard-a shard-b fuzz-smoke; do
    echo "==== $part ($logs/$part.log)"
    cat "$logs/$part.log"
done
echo "==== summary"
summary "shard A" $a "$logs/shard-a.log"
summary "shard B" $b "$logs/shard-b.log"
summary "fuzz" $f "$logs/fuzz-smoke.log"
# Every listed test ran, in one shard or the other.
ran=$(( $(executed "$logs/shard-a.log") + $(executed "$logs/shard-b.log") ))
listed=$(wc -l <<< "$tests")
[ "$ran" -eq "$listed" ] || { echo "the shards ran $ran tests of $listed" >&2; exit 1; }
[ $a -eq 0 ] && [ $b -eq 0 ] && [ $f -eq 0 ]
