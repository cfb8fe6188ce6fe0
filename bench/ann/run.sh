#!/usr/bin/env bash
# The ANN benchmark in one command (`make bench-ann`): tessera against faiss-cpu and pylance on
# the same generated data, in the same run. docs/benchmarks.md describes it.
#
#   bench/ann/run.sh [--dataset 1m|768|wordnet|all] [--quick] [--skip tessera,lance,faiss,IVF_PQ,...]
#                    [--threads N] [--single-budget-s S] [--work-dir DIR] [--results-dir DIR]
#
# Sets up the venv (scripts/bootstrap.sh), installs the peers into it (install_peers.sh, once),
# builds the tessera CLI and bench/ann_query in Release into build-bench/ (TESSERA_BENCH_BUILD_DIR
# overrides), then runs bench/ann/ann_bench.py with the arguments. Generated data and indexes go
# to bench/.results/ann/ (reused by later runs); reports to bench/ann/results/.
# TESSERA_BIN=/path/to/tessera uses that CLI for `gen`, `create` and `index create` instead of
# building one.
set -euo pipefail
cd "$(dirname "$0")/../.."

bash scripts/bootstrap.sh
bash bench/ann/install_peers.sh

skip_tessera=0
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --skip) [[ ",${args[$((i + 1))]:-}," == *,tessera,* ]] && skip_tessera=1 ;;
    --skip=*) [[ ",${args[$i]#--skip=}," == *,tessera,* ]] && skip_tessera=1 ;;
  esac
done

build_dir=${TESSERA_BENCH_BUILD_DIR:-build-bench}
targets=()
[ -n "${TESSERA_BIN:-}" ] || targets+=(tessera_cli)
[ "$skip_tessera" = 1 ] || targets+=(ann_query)
if [ ${#targets[@]} -gt 0 ]; then
  # Release (-O3); GCC 12 reports false positives (-Wrestrict in std::string inlining) at -O3
  # that -Werror would turn into errors.
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_BENCH=ON \
    "-DCMAKE_CXX_FLAGS=-Wno-error=restrict -Wno-error=stringop-overflow -Wno-error=array-bounds" \
    > /dev/null
  cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"
fi

exec .venv/bin/python bench/ann/ann_bench.py \
  --tessera-bin "${TESSERA_BIN:-$build_dir/tessera}" \
  --ann-query-bin "$build_dir/bench/ann_query" "$@"
