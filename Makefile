# The two commands of the README:
#   make demo   sets up everything on a fresh Debian machine, builds, and runs the CLI tour
#   make test   sets up everything, builds, and runs the test suite, also under ASan + UBSan
# Both are idempotent: a second run only rebuilds what changed.

JOBS ?= $(shell nproc)
BUILD_DIR ?= build
ASAN_BUILD_DIR ?= build-asan
CMAKE_FLAGS ?=

.PHONY: all bootstrap build build-asan demo test test-release test-asan bench bench-ann format check-format clean

all: build

bootstrap:
	bash scripts/bootstrap.sh

build: bootstrap
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR) -j $(JOBS)

build-asan: bootstrap
	cmake -S . -B $(ASAN_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=ON \
	  -DTESSERA_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD_DIR) -j $(JOBS)

demo: build
	bash scripts/demo.sh $(BUILD_DIR)/tessera

test-release: build
	bash scripts/check_format.sh
	cd $(BUILD_DIR) && ctest -j $(JOBS) --output-on-failure --timeout 900

test-asan: build-asan
	cd $(ASAN_BUILD_DIR) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest -j $(JOBS) --output-on-failure --timeout 1800

test: test-release test-asan

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
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR)
