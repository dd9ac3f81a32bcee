#!/usr/bin/env bash
# gpu-check.sh — everything that needs a GPU, in one command (about 4–7 minutes on an H200):
#   1. configure build-gpu/ for the device's architecture (default sm_90; SIPD_CUDA_ARCH=80 ...)
#   2. build (warnings are errors in the CUDA library)
#   3. ctest -L gpu --output-on-failure        (CPU vs GPU on the example scenes, energy
#                                                monotonicity, a 1M-tet scene, comparison methods)
#   4. ptxas -v register/spill counts of every kernel (the element kernel first)
#   5. tools/gpu/sipd-bench-gpu: tet-iterations/s at 100k, 1M, 8M tets and ms/frame per scene
#   6. tools/gpu/sipd-ttt-gpu: time to 1e-3 / 1e-5 force residual per method, GPU and CPU, with
#      the SIPD/VBD ratio measured in the same run (issue "comparison solvers", item 6)
#   7. tools/gpu/sipd-contact-bench-gpu: collision detection broad / narrow phase ms and pairs on
#      noodle piles up to ~1.2M pairs, CPU and GPU in one run (issue "contact", item 6)
#   8. two-level SIPD (solver.coarse) on the device: tests/test_gpu_coarse's measured numbers
#      (H, g against the CPU; tips against Newton) into the check file, and
#      tools/gpu/coarse-bench.sh: plain vs two-level, CPU vs GPU, on the coarse-scaling beam
#      (issue 15, item 5)
# Writes results/gpu-check-DATE-DEVICE.md (test summary + registers) and
# results/gpu-bench-DATE-DEVICE.md (benchmark tables), and copies both to $OUT when it is set.
# Exit status: non-zero when the build, a GPU test or the benchmark failed (the files are
# written either way).  Needs nvcc, cmake and a CUDA device (nvidia-smi is optional).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
arch=${SIPD_CUDA_ARCH:-90}
build=${BUILD_GPU:-build-gpu}
jobs=$(nproc 2>/dev/null || echo 4)
date=$(date -u +%Y-%m-%d)
devname=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$devname" ] || devname=unknown-gpu
slug=$(printf '%s' "$devname" | tr -c 'A-Za-z0-9._-' '-' | sed 's/--*/-/g;s/^-//;s/-$//')
mkdir -p results
check_md=results/gpu-check-$date-$slug.md
bench_md=results/gpu-bench-$date-$slug.md
log=$(mktemp /tmp/sipd-gpu-check.XXXXXX)
trap 'rm -f "$log"' EXIT
status=0
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain 2>/dev/null | grep -q . && echo " (dirty tree)" || true)

echo "== configure + build ($build, sm_$arch)" >&2
if ! { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSIPD_CUDA_ARCH="$arch" &&
       cmake --build "$build" -j "$jobs"; } >"$log" 2>&1; then
  tail -50 "$log" >&2
  echo "gpu-check: build failed" >&2
  status=1
fi
if [ $status -eq 0 ] && [ ! -f "$build/libsipd_cuda.a" ]; then
  echo "gpu-check: the CUDA backend was not built (nvcc not found by CMake?)" >&2
  status=1
fi
nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
[ -n "$nvcc" ] || nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)

tests_out=""
coarse_out=""
if [ $status -eq 0 ]; then
  echo "== ctest -L gpu" >&2
  tests_out=$(cd "$build" && timeout 420 ctest -L gpu --output-on-failure 2>&1)
  rc=$?
  printf '%s\n' "$tests_out" >&2
  [ $rc -eq 0 ] || status=1
  printf '%s\n' "$tests_out" | grep -qi "Not Run\|Skipped" && { echo "gpu-check: GPU tests were skipped: no usable CUDA device?" >&2; status=1; }
  # the two-level cases once more, for their numbers (ctest shows output only on failure)
  coarse_out=$(for c in ops solve budget; do timeout 120 "$build/tests/test_gpu_coarse" "$c" 2>&1 || echo "test_gpu_coarse $c: exit $?"; done)
fi

echo "== ptxas -v" >&2
# every kernel of both CUDA files (backend and collision detection)
regs=$(for cu in "$root/kernels/backend_cuda.cu" "$root/kernels/collide_cuda.cu"; do
         "$nvcc" -arch=sm_$arch -std=c++17 -DSIPD_REAL_FLOAT -I"$root/src" -I"$root/kernels" -Xptxas -v -c "$cu" \
           -o /dev/null 2>&1; done | awk '
  /Compiling entry function/ { match($0, /'"'"'[^'"'"']*'"'"'/); fn = substr($0, RSTART + 1, RLENGTH - 2); sp = "" }
  /bytes stack frame/        { sp = $0; sub(/^[ \t]+/, "", sp) }
  /Used [0-9]+ registers/    { match($0, /Used [0-9]+ registers/); r = substr($0, RSTART + 5, RLENGTH - 15);
                               printf "| `%s` | %s | %s |\n", fn, r, sp }')
regs_sorted=$( { printf '%s\n' "$regs" | grep k_element; printf '%s\n' "$regs" | grep -v k_element; } | grep -v '^$')
command -v c++filt >/dev/null && regs_sorted=$(printf '%s\n' "$regs_sorted" | c++filt)

{
  echo "# GPU check — $date, $devname"
  echo
  echo "- commit $commit$dirty, build \`$build\` for sm_$arch"
  echo "- device: $(nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader 2>/dev/null | head -1)"
  echo "- nvcc: $("$nvcc" --version 2>/dev/null | tail -1)"
  echo "- command: \`bash tools/gpu-check.sh\`"
  echo
  echo "## ctest -L gpu"
  echo
  echo '```'
  printf '%s\n' "$tests_out" | grep -E "Test +#|tests passed|tests failed|Not Run|Skipped|max \|x_gpu|iterations cpu|energy:|big:" | head -80
  echo '```'
  echo
  echo "## Two-level SIPD on the device (tests/test_gpu_coarse: ops, solve, budget)"
  echo
  echo '```'
  printf '%s\n' "$coarse_out" | grep -Ev '^device:'
  echo '```'
  echo
  echo "## Registers per thread (ptxas -v, sm_$arch; element kernel instances: k_element<precond, split>)"
  echo
  echo "precond 0 split, 1 block, 2 diag, 3 mass; split 0 expanded, 1 sign, 2 none, 3 clamp, 4 abs"
  echo
  echo "| kernel | registers | stack / spills |"
  echo "|---|---:|---|"
  printf '%s\n' "$regs_sorted"
} >"$check_md"

if [ -x "$build/tools/sipd-bench-gpu" ]; then
  echo "== benchmark" >&2
  {
    echo "# GPU SIPD iteration throughput — $date, $devname"
    echo
    echo "- commit $commit$dirty, build \`$build\` (sm_$arch, Release)"
    echo "- command: \`bash tools/gpu-check.sh\` → \`$build/tools/sipd-bench-gpu --seconds 1\`"
    echo "- host: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
    echo
    timeout 300 "$build/tools/sipd-bench-gpu" --seconds 1 --scenes scenes
    echo
    echo "- time to tolerance, SIPD vs VBD in one run: \`$build/tools/sipd-ttt-gpu\`"
    echo
    timeout 150 "$build/tools/sipd-ttt-gpu"
  } >"$bench_md" 2>"$log"
  rc=$?
  cat "$log" >&2
  [ $rc -eq 0 ] || { echo "gpu-check: benchmark failed (exit $rc)" >&2; status=1; }
  {
    echo
    echo "## Collision detection on noodle piles, CPU ($(nproc) threads) and GPU"
    echo
    echo "- command: \`$build/tools/sipd-contact-bench-gpu --reps 3\` (tools/sipd-contact-bench.c)"
    echo
    timeout 120 "$build/tools/sipd-contact-bench-gpu" --reps 3
  } >>"$bench_md" 2>"$log"
  rc=$?
  cat "$log" >&2
  [ $rc -eq 0 ] || { echo "gpu-check: contact benchmark failed (exit $rc)" >&2; status=1; }
  {
    echo
    echo "## Two-level SIPD (solver.coarse): plain vs two-level, CPU ($(nproc) threads) and GPU"
    echo
    echo "- command: \`bash tools/gpu/coarse-bench.sh $build 40 80\` (one step of the beam of tools/coarse-scaling.sh, tolerance 1e-5, cap 3000 iterations; H assembled on the device, PᵀHP + CHOLMOD on the host)"
    echo
    timeout 240 bash tools/gpu/coarse-bench.sh "$build" 40 80
  } >>"$bench_md" 2>"$log"
  rc=$?
  cat "$log" >&2
  [ $rc -eq 0 ] || { echo "gpu-check: coarse benchmark failed (exit $rc)" >&2; status=1; }
  cat "$bench_md"
else
  echo "gpu-check: $build/tools/sipd-bench-gpu not built; no benchmark" >&2
  status=1
fi

cat "$check_md"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$check_md" "$OUT/"
  [ -f "$bench_md" ] && cp "$bench_md" "$OUT/"
fi
echo "gpu-check: wrote $check_md $( [ -f "$bench_md" ] && echo "$bench_md"); status $status" >&2
exit $status
