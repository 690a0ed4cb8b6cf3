#!/bin/bash
# Runs satchel-fuzz's targets (docs/RELIABILITY.md).
#
#   scripts/fuzz.sh --smoke SECONDS PLAIN_BINARY   each target over its committed corpus in the
#                                                 plain build, then in the instrumented build
#                                                 (unoptimized) with SECONDS of fresh mutations
#                                                 (make test)
#   scripts/fuzz.sh --runs N [TARGET…]             N executions a target with the instrumented
#                                                 build; what adds coverage is merged into
#                                                 Fuzz/corpus (make fuzz)
#
# Two targets run at a time. A broken invariant or a sanitizer report stops the run with the
# target's log and the input (an "artifact"): add it to Fuzz/corpus/TARGET and a test.
set -uo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: $0 --smoke SECONDS PLAIN_BINARY | --runs N [TARGET…]" >&2; exit 64; }
mode=${1:-}; amount=${2:-}
shift 2 || usage
work=.build-fuzz/work
mkdir -p "$work"
jobs=${FUZZ_JOBS:-2}

# One target: libFuzzer reads the fresh directory and the committed corpus (every input runs at
# start), then mutates, with the options given after the target. Sets runs and seconds.
run_one() {
    local t=$1 fresh=$2 start; shift 2
    mkdir -p "$fresh" "Fuzz/corpus/$t"
    start=$(date +%s)
    if ! "$fuzz" "$t" "$@" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
           -artifact_prefix="$work/$t-" "$fresh" "Fuzz/corpus/$t" > "$work/$t.log" 2>&1; then
        echo "FAILED: $t (log: $work/$t.log)"; tail -30 "$work/$t.log"; return 1
    fi
    seconds=$(( $(date +%s) - start ))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log")
}
smoke_one() {
    rm -rf "$work/smoke/$1"
    run_one "$1" "$work/smoke/$1" -max_total_time="$amount" || return 1
    printf '%-20s %9s runs  corpus %s inputs\n' "$1" "$runs" "$(ls "Fuzz/corpus/$1" | wc -l)"
}
grow_one() {
    run_one "$1" "$work/grown/$1" -runs="$amount" || return 1
    # Keep what adds coverage: libFuzzer's merge copies those inputs into the committed corpus.
    "$fuzz" "$1" -merge=1 "Fuzz/corpus/$1" "$work/grown/$1" > "$work/$1.merge.log" 2>&1 || { echo "merge failed: $1"; return 1; }
    printf '%-20s %9s runs %6s s %8s/s  corpus %s inputs, %s KiB\n' "$1" "$runs" "$seconds" "$(( runs / (seconds > 0 ? seconds : 1) ))" \
        "$(ls "Fuzz/corpus/$1" | wc -l)" "$(du -sk "Fuzz/corpus/$1" | cut -f1)"
}
export -f run_one smoke_one grow_one
export amount work

case "$mode" in
--smoke)
    plain=${1:-}; [ -x "$plain" ] || usage
    targets=$("$plain" --list) || exit 1
    # The plain build first: no sanitizer between the code and the inputs.
    for t in $targets; do "$plain" "$t" "Fuzz/corpus/$t" || exit 1; done
    fuzz=$(scripts/fuzz-build.sh --smoke) || exit 1
    export fuzz
    echo "$targets" | xargs -P "$jobs" -I{} bash -c 'smoke_one {}'
    ;;
--runs)
    fuzz=$(scripts/fuzz-build.sh) || exit 1
    export fuzz
    printf '%s\n' ${*:-$("$fuzz" --list)} | xargs -P "$jobs" -I{} bash -c 'grow_one {}'
    ;;
*) usage ;;
esac
