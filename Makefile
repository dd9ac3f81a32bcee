# Thin wrapper around CMake: `make` builds into build/, `make test` runs CTest.
BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all test clean asan bench fuzz

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

# libFuzzer on the gmsh (ASCII, binary), TetGen and scene loaders, FUZZ_SECONDS each
# (clang-14 + libclang-rt-14-dev; build tree build-fuzz; see tests/fuzz/README.md).
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang-14
FUZZ_TARGETS = fuzz_gmsh fuzz_gmsh_binary fuzz_tetgen fuzz_scene
fuzz:
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=$(FUZZ_CC) -DCMAKE_BUILD_TYPE=Debug -DSIPD_FUZZ=ON
	cmake --build build-fuzz -j $(JOBS) --target $(FUZZ_TARGETS)
	bash tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

bench: all
	bash tools/bench-cpu.sh

clean:
	rm -rf $(BUILD) build-asan build-fuzz
