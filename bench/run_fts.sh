#!/usr/bin/env bash
# Full-text search (docs/benchmarks.md, "Full-text search"): tessera's INVERTED index against
# tantivy (Python package, en_stem tokenizer) and SQLite FTS5 (Python's sqlite3, porter
# tokenizer) on WordNet's 117,659 glosses (Debian package wordnet-base), in the same run. Builds
# the tessera CLI and bench/fts_query, then runs bench/fts/fts_bench.py; the arguments go to it
# (--replicate K: the corpus K times; --queries N per type, default 200; --repetitions R,
# default 5). Work files go to bench/.results/fts/ (git-ignored), the table to
# bench/results/fts-NAME.md, NAME being $FTS_NAME or the short commit. A few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TESSERA_BENCH_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_BUILD_BENCH=ON \
  > /dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target tessera_cli fts_query
name=${FTS_NAME:-$(git rev-parse --short HEAD)}
mkdir -p bench/.results/fts bench/results
.venv/bin/python bench/fts/fts_bench.py --cli "$build_dir/tessera" \
  --fts-query "$build_dir/bench/fts_query" --work bench/.results/fts --label "$name" "$@" |
  tee "bench/results/fts-$name.md"
