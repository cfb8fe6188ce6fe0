#!/usr/bin/env bash
# Runs the dataset microbenchmarks (scan and take throughput) with repetitions and reports
# medians: the machine is shared and noisy, so single runs mean little.
set -euo pipefail
build_dir=${1:-build}
"$build_dir/bench/dataset_benchmark" --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_display_aggregates_only=true
