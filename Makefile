# hoodie: top-level entry points. Everything builds into build/ (CLI build/hoodie, libs build/libhoodie.{so,a}).
#   make          build
#   make test     install what is missing, build, run every test; unit tests again under ASan+UBSan
#   make demo     build and run the demo
#   make bench    benchmarks next to DuckDB (not part of the tests)
#   make install  headers, libraries, pkg-config file and the CLI (PREFIX=/usr/local)

BUILD      ?= build
ASAN_BUILD ?= build-asan
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build deps test test-fast test-asan demo bench install clean fuzz

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: deps build test-asan
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L unit

test-asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DHOODIE_SANITIZE=address,undefined $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS) -L unit

demo: deps build
	@scripts/demo.sh $(BUILD)/hoodie

bench: deps build
	@bench/run.sh $(BUILD)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

fuzz:
	CC=clang cmake -S . -B build-fuzz -DHOODIE_BUILD_FUZZERS=ON -DHOODIE_SANITIZE=address,undefined
	cmake --build build-fuzz -j $(JOBS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
