#!/usr/bin/env bash
# fuzz/run.sh [SECONDS]: builds the fuzz build (build-fuzz/, clang, libFuzzer with AddressSanitizer
# and UndefinedBehaviorSanitizer) if needed, then runs each fuzz target for SECONDS (default 60)
# from its seed corpus and dictionary, one after another. Prints per target the executions run
# and "ran clean", or the file holding the input that crashed it; exits non-zero on any crash.
#
# The corpus is copied into a scratch folder, so a run never writes into the repository; a crash
# input and each target's log are kept in build-fuzz/fuzz-out/, and a crash input is also printed
# (base64), so a CI log alone can reproduce it. Memory is bounded per target
# (-rss_limit_mb), and so is one input's size (-max_len) and time (-timeout).
#   BREAKWATER_FUZZ_BUILD  the build folder (default build-fuzz)
#   BREAKWATER_FUZZ_ONLY   run only these targets (space-separated, e.g. "requestframer usage")
#   BREAKWATER_FUZZ_SEED   libFuzzer's seed (default 1: the test command's short run is the same
#                          mutation sequence every time, so CI is repeatable; 0 picks a random one)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || { echo "usage: fuzz/run.sh [SECONDS]" >&2; exit 2; }
build=${BREAKWATER_FUZZ_BUILD:-build-fuzz}

# Target and the longest input it is given: a few requests with small limits, a config or price file,
# an event stream, a request body.
declare -A max_len=([requestframer]=8192 [requestkey]=4096 [commandline]=4096 [pricetable]=8192 [usage]=8192
                  [eventstream]=8192)
targets=(${BREAKWATER_FUZZ_ONLY:-requestframer requestkey commandline pricetable usage eventstream})

if [[ ! -f $build/CMakeCache.txt ]]; then
    CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBREAKWATER_FUZZ=ON
fi
cmake --build "$build" -j "$(nproc)"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/breakwater-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
out=$build/fuzz-out
mkdir -p "$out"
# Symbolised reports if llvm-symbolizer is there; leaks are checked (Qt's own caches are reachable).
if [[ -x /usr/lib/llvm-14/bin/llvm-symbolizer ]]; then
    export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-14/bin/llvm-symbolizer}
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0
for target in "${targets[@]}"; do
    [[ -n ${max_len[$target]:-} ]] || { echo "fuzz: no target '$target'" >&2; exit 2; }
    corpus=$scratch/$target
    mkdir -p "$corpus" "$scratch/$target-crash"
    cp fuzz/corpus/"$target"/* "$corpus"/
    dict=()
    [[ -f fuzz/$target.dict ]] && dict=(-dict="fuzz/$target.dict")
    log=$out/$target.log
    set +e
    "$build/fuzz/fuzz_$target" "$corpus" "${dict[@]}" -max_total_time="$seconds" -seed="${BREAKWATER_FUZZ_SEED:-1}" -rss_limit_mb=2048 \
        -max_len="${max_len[$target]}" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$scratch/$target-crash/" >"$log" 2>&1
    status=$?
    set -e
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    crash=$(find "$scratch/$target-crash" -type f | head -1)
    if [[ $status -eq 0 && -z $crash ]]; then
        printf 'fuzz: %-14s %12s executions in %s s: ran clean\n' "$target" "${runs:-?}" "$seconds"
        continue
    fi
    failed=1
    kept=
    if [[ -n $crash ]]; then
        kept=$out/$target-$(basename "$crash")
        cp "$crash" "$kept"
    fi
    printf 'fuzz: %-14s %12s executions: FAILED (exit %s), input %s, log %s\n' \
        "$target" "${runs:-?}" "$status" "${kept:-none}" "$log"
    grep -E 'ERROR|runtime error|invariant broken|SUMMARY' "$log" | head -5 | sed 's/^/    /' || true
    # The input itself, printed: on a CI machine build-fuzz/ is gone when the run ends.
    if [[ -n $crash ]]; then echo "    input (base64): $(base64 -w0 "$crash")"; fi
done
exit $failed
