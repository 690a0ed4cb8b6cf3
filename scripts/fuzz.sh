#!/bin/bash
# Runs satchel-fuzz's targets (docs/RELIABILITY.md).
#
#   scripts/fuzz.sh --smoke SECONDS [BINARY]   each target over its committed corpus, then
#                                             SECONDS of fresh mutations (make test)
#   scripts/fuzz.sh --runs N [TARGET…]         N executions a target with the instrumented
#                                             build; what adds coverage is merged into
#                                             Fuzz/corpus (make fuzz)
#
# Two targets run at a time. A broken invariant or a sanitizer report stops the run with the
# target's log and the input (an "artifact"): add it to Fuzz/corpus/TARGET and a test.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}; amount=${2:-}
shift 2 || { echo "usage: $0 --smoke SECONDS [BINARY] | --runs N [TARGET…]" >&2; exit 64; }
work=.build-fuzz/work
mkdir -p "$work"
jobs=${FUZZ_JOBS:-2}

case "$mode" in
--smoke)
    fuzz=${1:-$(scripts/fuzz-build.sh)} || exit 1
    targets=$("$fuzz" --list) || exit 1
    run_one() {  # target: the committed corpus first (libFuzzer runs every input at start), then mutations
        local t=$1 fresh="$work/smoke/$1"
        rm -rf "$fresh"; mkdir -p "$fresh"
        if "$fuzz" "$t" -max_total_time="$amount" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
             -artifact_prefix="$work/$t-" "$fresh" "Fuzz/corpus/$t" > "$work/$t.log" 2>&1; then
            printf '%-20s %9s runs  corpus %s inputs\n' "$t" \
                "$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log")" "$(ls "Fuzz/corpus/$t" | wc -l)"
        else
            echo "FAILED: $t (log: $work/$t.log)"; tail -30 "$work/$t.log"; return 1
        fi
    }
    export -f run_one; export fuzz amount work
    echo "$targets" | xargs -P "$jobs" -I{} bash -c 'run_one {}'
    ;;
--runs)
    fuzz=$(scripts/fuzz-build.sh) || exit 1
    targets=${*:-$("$fuzz" --list)}
    run_one() {
        local t=$1 fresh="$work/grown/$1" start
        mkdir -p "$fresh" "Fuzz/corpus/$t"
        start=$(date +%s)
        if ! "$fuzz" "$t" -runs="$amount" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
               -artifact_prefix="$work/$t-" "$fresh" "Fuzz/corpus/$t" > "$work/$t.log" 2>&1; then
            echo "FAILED: $t (log: $work/$t.log)"; tail -30 "$work/$t.log"; return 1
        fi
        local seconds=$(( $(date +%s) - start ))
        local runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log")
        # Keep what adds coverage: libFuzzer's merge copies those inputs into the committed corpus.
        "$fuzz" "$t" -merge=1 "Fuzz/corpus/$t" "$fresh" > "$work/$t.merge.log" 2>&1 || { echo "merge failed: $t"; return 1; }
        printf '%-20s %9s runs %6s s %8s/s  corpus %s inputs, %s KiB\n' "$t" "$runs" "$seconds" "$(( runs / (seconds > 0 ? seconds : 1) ))" \
            "$(ls "Fuzz/corpus/$t" | wc -l)" "$(du -sk "Fuzz/corpus/$t" | cut -f1)"
    }
    export -f run_one; export fuzz amount work
    printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run_one {}'
    ;;
*) echo "usage: $0 --smoke SECONDS [BINARY] | --runs N [TARGET…]" >&2; exit 64 ;;
esac
