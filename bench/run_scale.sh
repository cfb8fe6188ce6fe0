#!/usr/bin/env bash
# Distributed builds and joins on Spark with 1 and 2 workers (bench/scale/scale_bench.py,
# docs/scale-out.md). Builds the Python package, then runs the benchmark; the arguments go to
# it (--rows, --dim, --repeats, ...). The report goes to bench/results/scale-NAME.md, NAME
# being $SCALE_NAME or the short commit. About ten minutes on 2 cores with the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TESSERA_BENCH_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target _native tessera_python_sources
name=${SCALE_NAME:-$(git rev-parse --short HEAD)}
mkdir -p bench/results
PYTHONPATH="$build_dir/python" .venv/bin/python bench/scale/scale_bench.py --label "$name" "$@" |
  tee "bench/results/scale-$name.md"
