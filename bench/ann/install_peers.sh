#!/usr/bin/env bash
# Installs the peer systems of the ANN benchmark into the repository's .venv, idempotently:
# a stamp file records the pinned versions, and pip runs only when they differ. The test
# bootstrap (scripts/bootstrap.sh) never installs these; only the benchmark needs them.
set -euo pipefail
cd "$(dirname "$0")/../.."

FAISS_VERSION=1.15.1
PYLANCE_VERSION=14.0.2
HNSWLIB_VERSION=0.8.0
MATPLOTLIB_VERSION=3.11.2

if [ ! -x .venv/bin/python ]; then
  bash scripts/bootstrap.sh
fi
stamp=".venv/.tessera-bench-ann"
# The wordnet dataset embeds text with WordLlama: the quickstart's pinned packages.
examples=examples/python/requirements.txt
want="faiss-cpu==${FAISS_VERSION} pylance==${PYLANCE_VERSION} hnswlib==${HNSWLIB_VERSION} matplotlib==${MATPLOTLIB_VERSION} $(sha256sum "$examples" | cut -c1-16)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "bench-ann: installing faiss-cpu, pylance, hnswlib and ${examples} into .venv"
  # numpy and pyarrow are pinned by the bootstrap; a peer must not move them.
  pins=$(.venv/bin/python -c "import numpy, pyarrow; print(f'numpy=={numpy.__version__} pyarrow=={pyarrow.__version__}')")
  # hnswlib has no wheels: pip builds it from its source distribution (a C++ compiler).
  .venv/bin/python -m pip install -q "faiss-cpu==${FAISS_VERSION}" "pylance==${PYLANCE_VERSION}" \
    "hnswlib==${HNSWLIB_VERSION}" \
    "matplotlib==${MATPLOTLIB_VERSION}" -r "$examples" ${pins}
  echo "$want" > "$stamp"
fi
