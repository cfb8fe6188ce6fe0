#!/usr/bin/env bash
# The k-nearest-neighbour join over Parquet (issue 16; docs/benchmarks.md, "k-NN join over
# Parquet"): exact brute force, an external dataset over the Parquet file, and copy-then-index,
# on R = 1M x 128 vectors with 16 payload strings of 64 bytes and L = 1,000 queries (override with
# KNN_JOIN_ARGS, e.g. "--rows 200000"). The Parquet file is generated once into
# bench/.results/knn_join/ (git-ignored, ~1.5 GiB) and reused; the results go to
# bench/results/knn_join-<commit>.md.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TESSERA_BENCH_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target knn_join
work=bench/.results/knn_join
mkdir -p "$work" bench/results
out="bench/results/knn_join-$(git rev-parse --short HEAD).md"
# shellcheck disable=SC2086
"$build_dir/bench/knn_join" --dir "$work" ${KNN_JOIN_ARGS:-} | tee "$out"
echo "results: $out"
