#!/bin/sh
# Runs every fuzz target of mqgate in turn, SECONDS each, and prints one
# Markdown table row per target (docs/fuzzing.md):
#
#   codecs/fuzz/run_all.sh SECONDS [TARGET...]
#
# Targets: those of codecs/fuzz, then channel_frame of fuzz/ (the service's
# frame codec). Runs one target at a time, never two at once. Each corpus
# (corpus/<target>/ next to the target's Cargo.toml) is seeded by that
# folder's make_seeds.py when it does not exist yet, and grows from run to
# run. The full libFuzzer output of each run is kept in
# codecs/fuzz/logs/<target>.log; a crash input in artifacts/<target>/.
#
# Environment: FUZZ_SANITIZER (default address; "none" if the address
# sanitizer cannot be built), FUZZ_ARGS (more libFuzzer flags). The stable
# toolchain accepts cargo-fuzz's -Z flags with RUSTC_BOOTSTRAP=1, set here.
set -u
if [ $# -lt 1 ]; then
    echo "usage: $0 SECONDS [TARGET...]" >&2
    exit 2
fi
SECS=$1
shift
NAMED=$#
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LOGS=$HERE/logs
mkdir -p "$LOGS"
SAN=${FUZZ_SANITIZER:-address}
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD)
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ]; then
    COMMIT="$COMMIT+changes"
fi
export RUSTC_BOOTSTRAP=1

# "dir target" pairs.
all_targets() {
    for t in $(cd "$HERE" && cargo fuzz list); do echo "$HERE $t"; done
    for t in $(cd "$ROOT/fuzz" && cargo fuzz list); do echo "$ROOT/fuzz $t"; done
}

# wanted TARGET [TARGET...]: true when the first is among the others, or
# when no target was named on the command line.
wanted() {
    [ "$NAMED" -eq 0 ] && return 0
    want=$1
    shift
    for w in "$@"; do [ "$w" = "$want" ] && return 0; done
    return 1
}

echo "| target | started (UTC) | commit | runs | time (s) | exec/s | coverage (cov / ft) | corpus | findings |"
echo "|---|---|---|---:|---:|---:|---|---:|---|"
status=0
list=$(mktemp)
trap 'rm -f "$list"' EXIT
all_targets >"$list"
while read -r dir target; do
    wanted "$target" "$@" || continue
    log=$LOGS/$target.log
    if [ ! -d "$dir/corpus/$target" ]; then
        (cd "$dir" && python3 make_seeds.py >/dev/null)
    fi
    mkdir -p "$dir/corpus/$target"
    started=$(date -u '+%Y-%m-%d %H:%M')
    # Build first, so that the time limit is all fuzzing.
    (cd "$dir" && cargo fuzz build -s "$SAN" "$target") >"$log" 2>&1
    # shellcheck disable=SC2086
    (cd "$dir" && cargo fuzz run -s "$SAN" "$target" "corpus/$target" -- \
        -max_total_time="$SECS" -print_final_stats=1 ${FUZZ_ARGS:-}) >>"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
    last=$(grep -E '^#[0-9]+' "$log" | grep 'cov:' | tail -n 1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \/ \2/p')
    corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p')
    if [ "$rc" -eq 0 ]; then
        findings=none
    else
        art=$(sed -n 's/.*Test unit written to \([^ ]*\).*/\1/p' "$log" | tail -n 1)
        why=$(grep -m 1 -E "panicked at|ERROR: AddressSanitizer|ERROR: libFuzzer" "$log" | cut -c 1-120)
        findings="exit $rc: ${why:-see $log} ${art:+($art)}"
        status=1
    fi
    echo "| $target | $started | $COMMIT | ${runs:-?} | ${took:-?} | ${rate:-?} | ${cov:-?} | ${corp:-?} | $findings |"
done <"$list"
exit $status
