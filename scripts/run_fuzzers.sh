#!/usr/bin/env bash
# Runs every fuzz target of a TESSERA_FUZZ build for a fixed time, over its seed corpus
# (tests/fuzz/corpus/<target>/, read-only: new inputs go to a temporary directory), at most
# JOBS targets at once. Prints one closing line per target; exits non-zero when any target
# found a crash, leak, timeout or UB, and keeps what it found in ARTIFACTS/<target>/.
#   bash scripts/run_fuzzers.sh BIN_DIR [SECONDS_PER_TARGET] [JOBS] [ARTIFACTS]
set -euo pipefail
cd "$(dirname "$0")/.."
bin_dir="$(realpath "$1")"
seconds="${2:-20}"
jobs="${3:-1}"
artifacts="$(realpath -m "${4:-$bin_dir/../fuzz-artifacts}")"
corpus="$(realpath tests/fuzz/corpus)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run_one() {
  local fuzzer="$1" name dir
  name="$(basename "$fuzzer" _fuzzer)"
  dir="$work/$name"
  mkdir -p "$dir/new" "$dir/artifacts"
  local seeds="$corpus/$name"
  [ -d "$seeds" ] || seeds="$dir/new"
  # A target's own temporary files (its template dataset) live under TMPDIR=$dir.
  if TMPDIR="$dir" ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$fuzzer" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$dir/artifacts/" "$dir/new" "$seeds" >"$dir/log" 2>&1; then
    local runs
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)"
    echo "fuzz $name: ok (${runs:-?} inputs in ${seconds}s, $(ls "$dir/new" | wc -l) new)"
  else
    rm -rf "$artifacts/$name"
    mkdir -p "$artifacts/$name"
    cp "$dir/log" "$artifacts/$name/log"
    cp "$dir"/artifacts/* "$artifacts/$name/" 2>/dev/null || true
    echo "fuzz $name: FAILED; log and reproducer in $artifacts/$name/"
    grep -m 5 -E "ERROR|runtime error|SUMMARY|Assertion|abort" "$dir/log" | sed 's/^/    /' || true
    return 1
  fi
}
export -f run_one
export work corpus seconds artifacts

fuzzers=("$bin_dir"/*_fuzzer)
[ -x "${fuzzers[0]}" ] || { echo "no fuzz targets in $bin_dir" >&2; exit 1; }
printf '%s\n' "${fuzzers[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$1"' _ {} |
  tee "$work/summary" || true
# The closing line in the plain "N passed, N failed" form test reports use.
passed="$(grep -c ': ok (' "$work/summary" || true)"
failed=$((${#fuzzers[@]} - passed))
echo "fuzz: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
