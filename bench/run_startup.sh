#!/usr/bin/env bash
# Process start against the libraries' own start (docs/benchmarks.md, "Process start"): how long
# `tessera --help` and a count of a 1,000-row dataset take, next to programs that do nothing but
# link the shared libraries tessera links (an empty main printing one Arrow type), one library
# set more per line (OpenBLAS, libcurl, ICU, libstemmer and libedit are not among them: the
# commands that use them open them, util/shared_library.h). What the libraries cost before main runs is
# a floor no change inside tessera can lower. Medians of RUNS (default 40) rounds, each round
# running every process once in turn (fresh processes; interleaved, so that all lines share
# the machine's state of the moment). Builds the CLI first; the probes are compiled into
# bench/.results/startup/ (git-ignored). STARTUP_BASELINE (below) adds another build's lines.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TESSERA_BENCH_BUILD_DIR:-build}
runs=${RUNS:-40}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target tessera_cli
work=bench/.results/startup
mkdir -p "$work"
pyarrow=$(.venv/bin/python -c 'import os, pyarrow; print(os.path.dirname(pyarrow.__file__))')
cat > "$work/probe.cc" << 'EOF'
#include <arrow/api.h>
#include <iostream>
int main() {
  std::cout << arrow::int64()->ToString() << "\n";
  return 0;
}
EOF
# name|libraries, each set including the previous one's
probes=(
  "libarrow|-l:libarrow.so.2600"
  "+ parquet|-l:libparquet.so.2600"
  "+ arrow_compute, arrow_acero|-l:libarrow_compute.so.2600 -l:libarrow_acero.so.2600"
  "+ protobuf|-lprotobuf"
  "+ OpenSSL|-lssl -lcrypto"
  "+ CRoaring|-lroaring"
)
libraries=""
commands=()
names=()
for i in "${!probes[@]}"; do
  name=${probes[$i]%%|*}
  libraries="$libraries ${probes[$i]#*|}"
  # shellcheck disable=SC2086
  c++ -O2 -std=c++20 "$work/probe.cc" -I"$pyarrow/include" -L"$pyarrow" -Wl,--no-as-needed \
    $libraries -Wl,-rpath,"$pyarrow" -o "$work/probe$i"
  names+=("empty program linking $name")
  commands+=("$work/probe$i")
done
rm -rf "$work/small"
"$build_dir/tessera" gen --dataset "$work/small" --rows 1000 --dim 8 > /dev/null
# The same three processes of another build, in the same rounds: STARTUP_BASELINE=path/to/tessera
# (for example a build of an earlier commit).
for binary in "$build_dir/tessera" ${STARTUP_BASELINE:+"$STARTUP_BASELINE"}; do
  label=tessera
  [[ "$binary" == "$build_dir/tessera" ]] || label="baseline ($binary)"
  names+=("$label --help" "$label count (1,000 rows)" "$label count --where 'id < 10'")
  commands+=("$binary --help" "$binary count $work/small" "$binary count $work/small --where id<10")
done
.venv/bin/python - "$runs" "${#names[@]}" "${names[@]}" "${commands[@]}" << 'EOF'
import statistics, subprocess, sys, time
runs, count = int(sys.argv[1]), int(sys.argv[2])
names, commands = sys.argv[3:3 + count], sys.argv[3 + count:]
times = [[] for _ in commands]
for _ in range(runs):
    for i, command in enumerate(commands):
        start = time.perf_counter()
        subprocess.run(command.split(), check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times[i].append((time.perf_counter() - start) * 1e3)
print("| process | median ms | min ms |")
print("| --- | ---: | ---: |")
for name, samples in zip(names, times):
    print("| %s | %.1f | %.1f |" % (name, statistics.median(samples), min(samples)))
EOF
