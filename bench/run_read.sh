#!/usr/bin/env bash
# Filtered reads against DuckDB (docs/benchmarks.md, "Filtered reads against DuckDB"): tessera's
# count and scan, with and without scalar indexes, against DuckDB (Python package) reading the
# same rows as Parquet and as Arrow IPC, 1 and 2 threads, in the same run. Builds the tessera CLI
# and bench/read_query, then runs bench/read/read_bench.py; the arguments go to it (--rows
# 5000000,20000000, --selectivities, --operations count,scan, --columns i,f,s,g,t, --threads 1,2,
# --repetitions R). Data goes to bench/.results/read/ (git-ignored; made once per row count,
# about 1.4 GB for 20M rows), the report to bench/results/read-NAME.md and .json, NAME being
# $READ_NAME or the short commit.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TESSERA_BENCH_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_BUILD_BENCH=ON \
  > /dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target tessera_cli read_query
name=${READ_NAME:-$(git rev-parse --short HEAD)}
mkdir -p bench/.results/read bench/results
.venv/bin/python bench/read/read_bench.py --cli "$build_dir/tessera" \
  --read-query "$build_dir/bench/read_query" --work bench/.results/read --label "$name" \
  --json "bench/results/read-$name.json" "$@" | tee "bench/results/read-$name.md"
