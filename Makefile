# Thin wrapper around CMake: `make` builds into build/, `make test` runs CTest.
BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all test clean asan bench

all: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

test: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer (separate build tree).
asan:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSIPD_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS) -LE slow

bench: all
	bash tools/bench-cpu.sh

clean:
	rm -rf $(BUILD) build-asan
