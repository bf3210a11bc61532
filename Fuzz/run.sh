#!/usr/bin/env bash
# Builds the libFuzzer targets (release, AddressSanitizer) and runs each for a given time with a
# seed corpus assembled from fixtures/, then prints, per target: executions, executions per second,
# coverage (libFuzzer's cov: edges and ft: features) and findings.
#
#   Fuzz/run.sh [--time SECONDS_PER_TARGET] [--targets a,b] [--jobs N] [--no-build]
#
# Targets: rewriter srcset cssurls url metacharset indexline (default: all).
# Work folder (outside git): $FUZZ_WORK, by default Fuzz/.work:
#   corpus/<target>/     the corpus, grown from run to run
#   artifacts/<target>/  crashing or property-breaking inputs (crash-*, leak-*, timeout-*, oom-*),
#                        and slow-unit-* (over 10 s: reported, not counted as findings)
#   logs/<target>.log    libFuzzer's output
# Reproduce a finding: Fuzz/.build/release/<target> <artifact file>
# Save it as a regression test: copy it to fixtures/fuzz/<target>/ (Tests/ImgCacheTests/Fuzzing replays them).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
all_targets=(rewriter srcset cssurls url metacharset indexline)
seconds=60
jobs=2
build=1
targets=("${all_targets[@]}")

while [[ $# -gt 0 ]]; do
    case "$1" in
        --time) seconds=$2; shift 2 ;;
        --targets) IFS=, read -r -a targets <<<"$2"; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --no-build) build=0; shift ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
for target in "${targets[@]}"; do
    [[ " ${all_targets[*]} " == *" $target "* ]] || { echo "run.sh: no fuzz target '$target' (targets: ${all_targets[*]})" >&2; exit 2; }
done

work=${FUZZ_WORK:-$here/.work}
bin=$here/.build/release
mkdir -p "$work/corpus" "$work/artifacts" "$work/logs" "$work/seeds"

if [[ $build == 1 ]]; then
    echo "== building (release, -sanitize=fuzzer,address, lld)"
    # Planning again makes SwiftPM see source files added to the main package since the last
    # build (it missed them here otherwise); nothing is recompiled that did not change.
    rm -f "$here/.build/release.yaml"
    # lld: the gold linker crashes on this link.
    (cd "$here" && nice -n 19 swift build -c release --scratch-path "$here/.build" \
        -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address -Xswiftc -use-ld=lld)
fi

echo "== seeds"
rm -rf "$work/seeds"
python3 "$here/seeds.py" "$root" "$work/seeds" "${targets[@]}"

max_len() {
    case "$1" in
        rewriter) echo 8192 ;;
        cssurls) echo 8192 ;;
        *) echo 4096 ;;
    esac
}

run_target() {
    local target=$1
    mkdir -p "$work/corpus/$target" "$work/artifacts/$target"
    # New corpus entries go to the first folder; the seeds are read too.
    # SWIFT_BACKTRACE: Swift's crash handler would hold up libFuzzer's own at a finding.
    SWIFT_BACKTRACE=enable=no nice -n 19 "$bin/$target" "$work/corpus/$target" "$work/seeds/$target" \
        -max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout=20 -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$work/artifacts/$target/" \
        >"$work/logs/$target.log" 2>&1 || true
}

echo "== fuzzing ${targets[*]} for ${seconds}s each, $jobs at a time (logs in $work/logs)"
running=0
for target in "${targets[@]}"; do
    run_target "$target" &
    running=$((running + 1))
    if [[ $running -ge $jobs ]]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait || true

echo "== results"
printf '%-12s %12s %8s %8s %8s %8s %8s %9s  %s\n' target execs exec/s cov ft seconds corpus slow-units findings
for target in "${targets[@]}"; do
    log=$work/logs/$target.log
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    # The last status line libFuzzer printed holds the final coverage.
    status=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
    cov=$(grep -o 'cov: [0-9]*' <<<"$status" | grep -o '[0-9]*' || true)
    ft=$(grep -o 'ft: [0-9]*' <<<"$status" | grep -o '[0-9]*' || true)
    elapsed=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || true)
    corpus=$(find "$work/corpus/$target" -type f | wc -l)
    # Slow units are only reported (under a loaded machine they are mostly waiting for a core).
    findings=$(find "$work/artifacts/$target" -type f ! -name 'slow-unit-*' | wc -l)
    slow=$(find "$work/artifacts/$target" -type f -name 'slow-unit-*' | wc -l)
    printf '%-12s %12s %8s %8s %8s %8s %8s %9s  %s\n' "$target" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
        "${elapsed:-?}" "$corpus" "$slow" "$findings"
    if grep -q -E 'PROPERTY VIOLATION|ERROR: (AddressSanitizer|libFuzzer)|SUMMARY' "$log"; then
        grep -E 'PROPERTY VIOLATION|ERROR: (AddressSanitizer|libFuzzer)|^SUMMARY|Test unit written' "$log" | sed 's/^/    /' | head -6
    fi
done
echo "artifacts: $work/artifacts/<target>/"
