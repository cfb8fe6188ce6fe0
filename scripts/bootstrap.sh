#!/usr/bin/env bash
# Installs everything tessera needs on a fresh Debian machine, idempotently:
# Debian packages (gcc; clang with the libFuzzer runtime, libclang-rt-14-dev, for the fuzz build
# of tests/fuzz; protobuf, CRoaring, OpenBLAS, CLI11, ICU and the Snowball stemmers for
# full-text analysis, WordNet whose glosses are the English corpus of the full-text tests,
# GoogleTest, Google Benchmark; the Python headers (python3-dev) for the Python package and Java
# (openjdk-17-jre-headless) for the pyspark of its Spark tests;
# standalone Asio and OpenSSL for the MySQL-protocol server, the mariadb client its tests connect
# with; libcurl for the conditional puts of commits on object storage) and a venv inside the repo (.venv) with a pinned
# pyarrow whose bundled C++ headers and shared libraries are the Arrow/Parquet that CMake builds against, a
# pinned duckdb for the differential test, a pinned tantivy for the full-text benchmark and a
# pinned PyMySQL, mysql-connector-python and SQLAlchemy, clients of the server's tests; nanobind,
# with which the Python package's extension module is built, pytest for its tests, tqdm for its
# progress bars, pandas, an input it accepts, and pyspark (with py4j) and Ray, on which
# tessera.spark and tessera.ray are tested (python/, docs/python.md).
set -euo pipefail
cd "$(dirname "$0")/.."

PYARROW_VERSION=26.0.1
NUMPY_VERSION=2.3.5
# DuckDB is the reference engine of the differential filter test (tests/differential/).
DUCKDB_VERSION=2.0.1
# tantivy (its Python package) is the full-text peer of bench/fts.
TANTIVY_VERSION=0.27.0
# PyMySQL, mysql-connector-python and SQLAlchemy (with its dependencies greenlet and
# typing_extensions) are clients of the server's end-to-end test (tests/server/).
PYMYSQL_VERSION=1.1.1
MYSQL_CONNECTOR_VERSION=9.1.0
SQLALCHEMY_VERSION=2.0.36
GREENLET_VERSION=3.5.6
TYPING_EXTENSIONS_VERSION=4.16.0
# cryptography (with cffi and pycparser) lets PyMySQL send a caching_sha2_password over RSA.
CRYPTOGRAPHY_VERSION=44.0.0
CFFI_VERSION=1.17.1
PYCPARSER_VERSION=2.22
# The Python package (python/): nanobind builds its extension module; pytest (with iniconfig,
# packaging, pluggy, Pygments) runs its tests; tqdm draws its progress bars; pandas (with
# python-dateutil and tzdata) is an input it accepts.
NANOBIND_VERSION=3.1.0
PYTEST_VERSION=9.2.0
INICONFIG_VERSION=2.3.1
PACKAGING_VERSION=26.4
PLUGGY_VERSION=1.7.0
PYGMENTS_VERSION=2.21.0
TQDM_VERSION=4.70.1
PANDAS_VERSION=3.1.1
# 2.x: botocore (moto's) requires python-dateutil < 3.
DATEUTIL_VERSION=2.9.0.post0
TZDATA_VERSION=2026.6
# tessera.spark's tests run pyspark (with py4j) in local mode, on Debian's Java 17.
PYSPARK_VERSION=4.3.0
PY4J_VERSION=0.10.9.9
# tessera.ray's tests run Ray (Ray Data included) in local mode; its dependencies, pinned:
RAY_VERSION=2.60.0
# The object-storage tests (tests/objstore/) run moto's S3 server on loopback; its dependencies
# (the server's Flask, and what its S3 backend imports), pinned:
MOTO_VERSION=5.2.6
MOTO_DEPENDENCIES="boto3==1.44.18 botocore==1.44.18 s3transfer==0.19.3 jmespath==1.1.0 xmltodict==1.0.4 responses==0.26.3 Werkzeug==3.1.9 Flask==3.1.3 flask-cors==6.0.5 blinker==1.9.0 itsdangerous==2.2.0 Jinja2==3.1.6 MarkupSafe==3.0.4 six==1.17.0"
RAY_DEPENDENCIES="msgpack==1.2.4 click==8.5.1 protobuf==7.36.2 filelock==4.3.2 fsspec==2026.9.0 jsonschema==4.26.0 attrs==26.1.0 jsonschema-specifications==2025.9.1 referencing==0.37.0 rpds-py==2026.9.1 PyYAML==6.0.4 requests==2.34.2 charset-normalizer==3.5.3 idna==3.21 urllib3==2.8.0 certifi==2026.10.19.post1"

apt_packages=(
  build-essential cmake ninja-build pkg-config git
  clang libclang-rt-14-dev
  libprotobuf-dev protobuf-compiler
  libroaring-dev libopenblas-serial-dev libcli11-dev
  libicu-dev libstemmer-dev wordnet-base libedit-dev
  libasio-dev libssl-dev openssl mariadb-client libcurl4-openssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-format python3 python3-venv python3-dev openjdk-17-jre-headless
)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The venv is recreated only when missing or when a pinned version differs.
stamp=".venv/.tessera-bootstrap"
want="pyarrow==${PYARROW_VERSION} numpy==${NUMPY_VERSION} duckdb==${DUCKDB_VERSION} tantivy==${TANTIVY_VERSION} PyMySQL==${PYMYSQL_VERSION} mysql-connector-python==${MYSQL_CONNECTOR_VERSION} SQLAlchemy==${SQLALCHEMY_VERSION} greenlet==${GREENLET_VERSION} typing_extensions==${TYPING_EXTENSIONS_VERSION} cryptography==${CRYPTOGRAPHY_VERSION} cffi==${CFFI_VERSION} pycparser==${PYCPARSER_VERSION} nanobind==${NANOBIND_VERSION} pytest==${PYTEST_VERSION} iniconfig==${INICONFIG_VERSION} packaging==${PACKAGING_VERSION} pluggy==${PLUGGY_VERSION} Pygments==${PYGMENTS_VERSION} tqdm==${TQDM_VERSION} pandas==${PANDAS_VERSION} python-dateutil==${DATEUTIL_VERSION} tzdata==${TZDATA_VERSION} pyspark==${PYSPARK_VERSION} py4j==${PY4J_VERSION} ray==${RAY_VERSION} ${RAY_DEPENDENCIES} moto==${MOTO_VERSION} ${MOTO_DEPENDENCIES}"
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "bootstrap: preparing .venv with ${want}"
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q ${want}
  # The wheel ships libarrow.so.NNNN only; the linker wants the unversioned names.
  .venv/bin/python -c "import pyarrow; pyarrow.create_library_symlinks()"
  echo "$want" > "$stamp"
fi
