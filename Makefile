# Thin wrapper around CMake: `make` builds sipd-run and the tools into build/ (not the tests),
# `make test` builds everything and runs CTest, `make install PREFIX=P` installs (docs/testing.md).
BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local

.PHONY: all test install clean asan bench fuzz gpu-emu gpu-emu-asan

all: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target sipd-programs

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

# --no-tests=error: a build tree configured with -DSIPD_BUILD_TESTS=OFF has no tests to pass
test: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS)

install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer (separate build tree).
asan:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSIPD_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS) -LE 'slow|regs|nvcc'

# libFuzzer on the gmsh (ASCII, binary), TetGen and scene loaders, FUZZ_SECONDS each
# (clang-14 + libclang-rt-14-dev; build tree build-fuzz; see tests/fuzz/README.md).
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang-14
FUZZ_TARGETS = fuzz_gmsh fuzz_gmsh_binary fuzz_tetgen fuzz_scene fuzz_obj
fuzz:
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=$(FUZZ_CC) -DCMAKE_BUILD_TYPE=Debug -DSIPD_FUZZ=ON
	cmake --build build-fuzz -j $(JOBS) --target $(FUZZ_TARGETS)
	bash tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The CUDA backend on the CPU: kernels/*.cu built by the host C++ compiler against the emulation
# layer tests/emu (docs/gpu.md), then the `gpu` tests.  A skipped test (exit
# 77) fails here: the emulation always has a device.  GPU_EMU_TESTS / GPU_EMU_EXCLUDE are ctest
# -R / -E regexes (empty: no filter; `make gpu-emu GPU_EMU_EXCLUDE=` runs every gpu test).
# Measured on 2 shared cores (Release, s): noodles 61, twisted_beams 15, big 7, stack 4,
# ball_collision 3.4, collide 3, energy 1.6, stress_random 0.9, every other test under 1.5 —
# about 1.5 min together, all passing.  Two-level SIPD and newton on CUDA (gpu_coarse_*, added
# later, measured with the machine at load 8 on its 2 cores): budget 16, newton 9, solve 2.2, ops
# 0.04 (about 7, 3.5, 1 and 0.03 s of CPU time); pairs (added later still) 10.6 (7 s of CPU time).  Left out by default: noodles_bench (over ctest's 300 s:
# each shuffle of the emulated reductions is a fiber switch per lane) and bunny_kinds (67 s at load 8;
# its three kinds are covered by gpu_kinds_* and gpu_thin_ground).
GPU_EMU_TESTS ?=
GPU_EMU_EXCLUDE ?= ^gpu_scene_(noodles_bench|bunny_kinds)$$
# Under ASan + UBSan (Debug at -O0, before the sanitizer builds took -O1) the tests ran 3-6x
# slower (s): stretch 31, ball_collision 31, stress_stretch 59, collide 16, drop 15, ball_drop 15,
# compressed_block 9, methods 3; at -O1 the subset's tests take 26 s, two at a time:
# the default subset covers every kernel of both .cu files, CUB, the contact paths and the
# Gauss-Seidel kernel (methods: vbd; energy); coarse_ops (0.8 s) adds the
# hessian / gradient / set_direction ops and their kernels (k_element<NEWTON>, k_hessian_row);
# coarse_pairs (16 s) the contact pairs' blocks (k_pair_hessian) and couplings;
# coarse_solve (79 s under ASan at load 8) and coarse_newton are left to `make gpu-emu`.
GPU_EMU_ASAN_TESTS ?= ^gpu_(emu_selftest|methods|energy|collide|coarse_ops|coarse_pairs|profile|scene_(drop|ball_drop|ball_collision|compressed_block|cantilever|stretch|stress_stretch))$$
GPU_EMU_ASAN_EXCLUDE ?=
gpu_ctest = ctest -L gpu -j $(JOBS) --output-on-failure --no-tests=error -O ctest-gpu.log \
	$(if $(1),-R '$(1)') $(if $(2),-E '$(2)'); rc=$$?; \
	if grep -Eq '\*\*\*(Skipped|Not Run)' ctest-gpu.log; then \
	  echo "gpu-emu: a test was skipped: that is a failure in the emulation (it always has a device)"; exit 1; fi; \
	exit $$rc

gpu-emu:
	cmake -S . -B build-emu -DSIPD_CUDA_EMU=ON
	cmake --build build-emu -j $(JOBS)
	cd build-emu && $(call gpu_ctest,$(GPU_EMU_TESTS),$(GPU_EMU_EXCLUDE))

gpu-emu-asan:
	cmake -S . -B build-emu-asan -DSIPD_CUDA_EMU=ON -DSIPD_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
	cmake --build build-emu-asan -j $(JOBS)
	cd build-emu-asan && ASAN_OPTIONS=detect_leaks=1 $(call gpu_ctest,$(GPU_EMU_ASAN_TESTS),$(GPU_EMU_ASAN_EXCLUDE))

bench: all
	bash tools/bench-cpu.sh

clean:
	rm -rf $(BUILD) build-asan build-fuzz build-emu build-emu-asan
