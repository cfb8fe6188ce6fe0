#!/usr/bin/env bash
# Fails when a tracked C++ file is not clang-formatted (config: .clang-format).
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.h' '*.cc')
[ -n "$files" ] || exit 0
if ! clang-format --dry-run --Werror $files; then
  echo "check_format: run 'make format' to fix the files above" >&2
  exit 1
fi
