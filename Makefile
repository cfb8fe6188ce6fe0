# The two commands of the README:
#   make demo   sets up everything on a fresh Debian machine, builds, and runs the CLI tour
#   make test   sets up everything, builds, and runs the test suite, also under ASan + UBSan,
#               and runs every fuzz target for FUZZ_SECONDS (docs/development.md)
# Both are idempotent: a second run only rebuilds what changed.

JOBS ?= $(shell nproc)
BUILD_DIR ?= build
ASAN_BUILD_DIR ?= build-asan
FUZZ_BUILD_DIR ?= build-fuzz
# Seconds each fuzz target runs in `make test`; targets run JOBS at a time.
FUZZ_SECONDS ?= 20
# Unity builds (CMakeLists.txt): batches of sources compiled as one translation unit, which
# more than halves a clean build; UNITY_BUILD=OFF builds file by file (quicker to rebuild one file).
UNITY_BUILD ?= ON
CMAKE_FLAGS ?=

.PHONY: quickstart all bootstrap build build-asan build-fuzz demo test test-release test-asan test-fuzz bench bench-ann format check-format clean

all: build

bootstrap:
	bash scripts/bootstrap.sh

# The build also makes the Python package in $(BUILD_DIR)/python importable from the repo's venv
# (a .pth file, as an editable install does): `.venv/bin/python -c "import tessera"`.
build: bootstrap
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=$(UNITY_BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR) -j $(JOBS)
	.venv/bin/python -c 'import sysconfig, sys; open(sysconfig.get_paths()["purelib"] + "/tessera-build.pth", "w").write(sys.argv[1] + "\n")' "$(abspath $(BUILD_DIR))/python"

# -O1 (with assertions, as Debug keeps them): the sanitized tests run faster than at -O0,
# and the ASan stage is the longest of `make test`. -g1 (line tables only) is all a
# sanitizer's stack trace needs, and compiles in ~60 % of the time of -g (an index unity
# file: 62 s against 105 s).
build-asan: bootstrap
	cmake -S . -B $(ASAN_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=ON \
	  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" \
	  -DTESSERA_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD=$(UNITY_BUILD) $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD_DIR) -j $(JOBS)

# libFuzzer targets (clang): the library under ASan + UBSan + coverage, -O1 with assertions,
# line tables only (-g1) for the stack traces.
build-fuzz: bootstrap
	cmake -S . -B $(FUZZ_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" -DCMAKE_CXX_COMPILER=clang++ -DTESSERA_FUZZ=ON \
	  -DTESSERA_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD=$(UNITY_BUILD) $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS)

demo: build
	bash scripts/demo.sh $(BUILD_DIR)/tessera

# The Python quickstart (docs/python.md): WordNet's glosses embedded with WordLlama, indexed and
# searched; writes docs/python-quickstart.png. Its extra packages go into the repo's venv.
quickstart: build
	.venv/bin/python -m pip install -q -r examples/python/requirements.txt
	.venv/bin/python examples/python/quickstart.py

test-release: build
	bash scripts/check_format.sh
	cd $(BUILD_DIR) && ctest -j $(JOBS) --output-on-failure --timeout 900

test-asan: build-asan
	cd $(ASAN_BUILD_DIR) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest -j $(JOBS) --output-on-failure --timeout 1800

test-fuzz: build-fuzz
	bash scripts/run_fuzzers.sh $(FUZZ_BUILD_DIR)/fuzz $(FUZZ_SECONDS) $(JOBS)

test: test-release test-asan test-fuzz

bench: build
	bash bench/run_dataset_benchmarks.sh $(BUILD_DIR)

# tessera vs faiss-cpu and pylance (docs/benchmarks.md); e.g. make bench-ann ANN_ARGS=--quick
ANN_ARGS ?=
bench-ann: bootstrap
	bash bench/ann/run.sh $(ANN_ARGS)

format:
	clang-format -i $$(git ls-files '*.h' '*.cc')

check-format:
	bash scripts/check_format.sh

clean:
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR) $(FUZZ_BUILD_DIR)
