#!/usr/bin/env bash
# Scalar index families (docs/benchmarks.md, "Scalar index families"): builds bench/scalar and
# runs it; the arguments go to it (--rows N, default 5000000; --repetitions R; --family F ...).
# The dataset is created once in bench/.results/scalar/rows-N/ (git-ignored) and reused. The
# table goes to bench/results/scalar-NAME.md, NAME being $SCALAR_NAME or the short commit.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TESSERA_BENCH_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_BUILD_BENCH=ON \
  > /dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target scalar
name=${SCALAR_NAME:-$(git rev-parse --short HEAD)}
mkdir -p bench/.results/scalar bench/results
"$build_dir/bench/scalar" --dataset bench/.results/scalar "$@" | tee "bench/results/scalar-$name.md"
