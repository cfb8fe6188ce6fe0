#!/usr/bin/env bash
# Reads of a dataset on object storage (issue 19; docs/benchmarks.md, "Object storage"):
# requests, bytes and time of a search, a batch search and a k-NN join against moto's S3 server
# on loopback with 20 ms added to every request, with and without the read cache, beside Lance
# on the same store. Extra
# arguments go to bench/objstore/objstore_bench.py (e.g. --rows 20000 --repeat 1). Results:
# bench/results/objstore-<commit>.md.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TESSERA_BENCH_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target tessera_cli tessera_arrow_s3
mkdir -p bench/results bench/.results/objstore
out="bench/results/objstore-$(git rev-parse --short HEAD).md"
# The peer (pylance), installed once into the venv.
bash bench/ann/install_peers.sh
.venv/bin/python bench/objstore/objstore_bench.py --cli "$build_dir/tessera" \
  --work bench/.results/objstore --out "$out" "$@"
echo "results: $out"
