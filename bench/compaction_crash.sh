#!/usr/bin/env bash
# More kill -9 trials of compaction than the test suite runs (tests/query/compaction_index_test.cc,
# CompactionCrash.*): each trial copies a small indexed dataset, starts `tessera compact`, kills it
# with SIGKILL at a random moment and checks the dataset opens at a committed version with every
# row and every index answer correct.
#   bench/compaction_crash.sh [TRIALS]    (default 2000; build/ must be built)
set -euo pipefail
cd "$(dirname "$0")/.."
TESSERA_COMPACTION_CRASH_TRIALS="${1:-2000}" ./build/tests/tessera_tests \
  --gtest_filter='CompactionCrash.*'
