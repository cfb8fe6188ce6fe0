#!/usr/bin/env bash
# Filtered reads through a BTREE (docs/benchmarks.md, "Filtered reads through a BTREE"): builds
# bench/filtered_read and runs it; the arguments go to it (--rows N, --repetitions R,
# --selectivities 0.0001,0.01,0.1,0.5, --modes warm,fresh, --operations ...).
#
#   bench/run_filtered_read.sh [filtered_read arguments]
#
# The dataset is created once in bench/.results/filtered_read/rows-N/ (git-ignored; 260 MB for
# 5M rows: 180 MB of data files, 77 MB of BTREE) and reused by later runs with the same N.
# Results go to bench/results/filtered_read-NAME.json and .md, NAME being $FILTERED_READ_NAME or
# the short commit. Builds RelWithDebInfo into build/ ($TESSERA_BENCH_BUILD_DIR overrides), as `make bench`.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${TESSERA_BENCH_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_BUILD_BENCH=ON \
  > /dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target filtered_read

rows=5000000
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[$i]}" = --rows ] && rows=${args[$((i + 1))]}
done
name=${FILTERED_READ_NAME:-$(git rev-parse --short HEAD)}
mkdir -p bench/.results/filtered_read bench/results
"$build_dir/bench/filtered_read" --dataset "bench/.results/filtered_read/rows-$rows" \
  --out "bench/results/filtered_read-$name.json" --label "$name" "$@" |
  tee "bench/results/filtered_read-$name.md"
