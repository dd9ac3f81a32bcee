#!/usr/bin/env bash
# bench-compare.sh [options] REV_A REV_B — is REV_B slower per iteration than REV_A?
#
# Builds both commits (git archive exports under a scratch folder, Release, CPU only, without
# the tests; a build is kept per commit and reused) with THIS tree's tools/sipd-bench.c (and the
# header it includes, tools/bench_model.h) in place of theirs, so both run the same workload code
# against their own library, then runs the cases
# on a fixed box, interleaved: per case and thread count one warm-up run of each, then REPS runs
# of each alternating which goes first (A B, B A, A B, ...).  Each run is one process that
# builds the box and times one step of a fixed iteration count (sipd-bench --iterations).
# Prints, per case: the median ns per tet-iteration of each build with min–max, the ratio B/A of
# the medians and the min–max of the pairwise ratios (run i of B over run i of A), whether both
# ended with bit-identical positions, the load average before and after, and the commits.
# --append adds one row per thread count to results/perf-history.md (1 thread: CPU time, several
# threads: elapsed time; its header explains the columns).
#
#   REV: anything git rev-parse takes (a commit, a branch, HEAD~1), or "." for this working
#        tree as it is (tracked and untracked-not-ignored files; rebuilt incrementally).
#   --reps N         runs per build and case after the warm-up (default 5, at least 3)
#   --cases LIST     comma-separated sipd-bench cases (default jacobi,vbd,contact; also gs,
#                    jacobi+E)
#   --size S         sipd-bench size (default 40x20x20: cells, 96000 tets)
#   --threads LIST   comma-separated thread counts, "all" = every core (default 1,all)
#   --iters LIST     iterations per case, CASE=N,... (defaults: jacobi 150, jacobi+E 120, gs 25,
#                    vbd 25, contact 100: about a second each at 96k tets on one core)
#   --append         add the result to results/perf-history.md (of this tree)
#   --note TEXT      a note for the history rows (what the change was)
#   --pin CPU        run the 1-thread runs under taskset -c CPU (default 1 when taskset exists and
#                    the machine has 2 cores or more; "none" = unpinned)
#   --scratch DIR    where the exports and builds go (default ${TMPDIR:-/tmp}/sipd-bench-compare)
#   --build-only     build the given commits (any number) and print their sipd-bench paths, one a
#                    line, without timing anything (for a bisection: time them round-robin)
#
# Timing on a shared machine is noisy: read the min–max and the load, rerun when the load was
# high (docs/benchmarks.md: Comparing two commits).
set -euo pipefail
usage() { awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
reps=5; cases=jacobi,vbd,contact; size=40x20x20; threads_list=1,all; append=0; note=""; build_only=0
scratch=${TMPDIR:-/tmp}/sipd-bench-compare; iters_opt=""; pin=""
revs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --threads) threads_list=$2; shift 2 ;;
    --iters) iters_opt=$2; shift 2 ;;
    --append) append=1; shift ;;
    --build-only) build_only=1; shift ;;
    --note) note=$2; shift 2 ;;
    --scratch) scratch=$2; shift 2 ;;
    --pin) pin=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "bench-compare.sh: unknown option $1" >&2; usage ;;
    *) revs+=("$1"); shift ;;
  esac
done
[ ${#revs[@]} = 2 ] || { [ "$build_only" = 1 ] && [ ${#revs[@]} -ge 1 ]; } || usage
[[ $reps =~ ^[0-9]+$ ]] && [ "$reps" -ge 3 ] || { echo "bench-compare.sh: --reps must be at least 3" >&2; exit 2; }
jobs=${JOBS:-$(nproc)}
ncores=$(nproc)
[ -n "$pin" ] || { pin=none; command -v taskset > /dev/null && [ "$ncores" -ge 2 ] && pin=1; }
# the workload's files copied into every build: sipd-bench.c and its tools-side header (older
# commits have no tools/bench_model.h; theirs src/meshgen.c still defines the old
# meshgen_bench_model, which the copied header's bench_model_cantilever does not clash with)
bench_files=(tools/sipd-bench.c tools/bench_model.h)
bench_hash=$(cd "$root" && cat "${bench_files[@]}" | sha1sum | cut -c1-12)

iters_of() {   # the iteration count of case $1
  local kv
  for kv in ${iters_opt//,/ }; do
    [ "${kv%%=*}" = "$1" ] && { echo "${kv#*=}"; return; }
  done
  case "$1" in
    jacobi) echo 150 ;; jacobi+E) echo 120 ;; gs|vbd) echo 25 ;; contact) echo 100 ;;
    *) echo "bench-compare.sh: unknown case $1" >&2; exit 2 ;;
  esac
}

# build REV → prints the path of its sipd-bench.  A commit is exported once per scratch folder;
# a changed tools/sipd-bench.c or tools/bench_model.h (this tree's) is copied in and rebuilt
# incrementally.
build_rev() {
  local rev=$1 key dir bin
  if [ "$rev" = . ]; then
    key=worktree
  else
    key=$(git -C "$root" rev-parse --verify --quiet "$rev^{commit}") ||
      { echo "bench-compare.sh: $rev is not a commit" >&2; exit 2; }
  fi
  dir=$scratch/$key; bin=$dir/build/tools/sipd-bench
  mkdir -p "$dir"
  if [ "$rev" = . ]; then
    # the working tree's files with their times (the build recompiles what changed); the source
    # folder is made afresh so that a deleted file does not linger
    rm -rf "$dir/src"; mkdir -p "$dir/src"
    (cd "$root" && git ls-files -z --cached --others --exclude-standard |
       tar -c --null -T - --ignore-failed-read -f - 2> /dev/null) | tar -x -C "$dir/src"
  elif [ ! -f "$dir/exported" ]; then
    rm -rf "$dir/src" "$dir/build"; mkdir -p "$dir/src"
    git -C "$root" archive "$key" | tar -x -C "$dir/src"
    touch "$dir/exported"
  fi
  local f stale=0
  for f in "${bench_files[@]}"; do cmp -s "$root/$f" "$dir/src/$f" || stale=1; done
  if [ "$rev" = . ] || [ ! -x "$bin" ] || [ "$stale" = 1 ]; then
    for f in "${bench_files[@]}"; do cp "$root/$f" "$dir/src/$f"; done
    echo "bench-compare.sh: building $rev in $dir (log: $dir/build.log)" >&2
    # no CUDA (an empty CMAKE_CUDA_COMPILER skips check_language), no tests where the option
    # exists (older commits define them, but only sipd-bench and sipd_core are built)
    if ! { cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DSIPD_BUILD_TESTS=OFF \
             -DCMAKE_CUDA_COMPILER= &&
           cmake --build "$dir/build" -j "$jobs" --target sipd-bench; } > "$dir/build.log" 2>&1; then
      echo "bench-compare.sh: $rev does not build with this tree's ${bench_files[*]} (its API moved?);" \
           "see $dir/build.log" >&2
      exit 1
    fi
  fi
  echo "$bin"
}

label() {   # short sha and subject, or the working tree's state
  if [ "$1" = . ]; then
    echo "working tree on $(git -C "$root" rev-parse --short=7 HEAD)$(git -C "$root" diff --quiet HEAD -- 2>/dev/null || echo ' (modified)')"
  else
    git -C "$root" log -1 --format='%h %s' "$1" | cut -c1-80
  fi
}
short() { if [ "$1" = . ]; then echo "worktree"; else git -C "$root" rev-parse --short=7 "$1"; fi; }

if [ "$build_only" = 1 ]; then
  for rev in "${revs[@]}"; do build_rev "$rev"; done
  exit 0
fi
bin_a=$(build_rev "${revs[0]}")
bin_b=$(build_rev "${revs[1]}")
lab_a=$(label "${revs[0]}"); lab_b=$(label "${revs[1]}")
sa=$(short "${revs[0]}"); sb=$(short "${revs[1]}")

# one run → "wall-ns cpu-ns iterations contacts tets positions-hash"
run1() {   # bin case threads
  local out line pre=()
  [ "$3" = 1 ] && [ "$pin" != none ] && pre=(taskset -c "$pin")
  out=$("${pre[@]}" "$1" --threads "$3" --iterations "$(iters_of "$2")" --case "$2" "$size") ||
    { echo "bench-compare.sh: $1 failed on case $2" >&2; exit 1; }
  line=$(printf '%s\n' "$out" | grep -E "^\| [0-9]+ \|" | head -1)
  [ -n "$line" ] || { echo "bench-compare.sh: no result line from $1 ($2)" >&2; exit 1; }
  # | tets | colours | case | iterations | M/s | ns | cpu ns | contacts | hash |
  printf '%s\n' "$line" | awk -F'|' '{gsub(/ /, ""); print $7, $8, $5, $9, $2, $10}'
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
minmax() { sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%s–%s", lo, hi}'; }
load1() { cut -d' ' -f1 /proc/loadavg; }
# "median (min–max)" of the values $@
stat() { printf '%s (%s)' "$(printf '%s\n' "$@" | median)" "$(printf '%s\n' "$@" | minmax)"; }
# "ratio of the medians (min–max of the pairwise ratios)": $1 = n, then n values of A, n of B
ratios() {
  local n=$1; shift
  local -a x=("${@:1:n}") y=("${@:n+1:n}")
  local ma mb
  ma=$(printf '%s\n' "${x[@]}" | median); mb=$(printf '%s\n' "${y[@]}" | median)
  printf '%s (%s)' "$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.3f", b / a}')" \
    "$(for ((i = 0; i < n; i++)); do awk -v a="${x[i]}" -v b="${y[i]}" 'BEGIN {printf "%.3f\n", b / a}'; done | minmax)"
}

date_utc=$(date -u +%Y-%m-%dT%H:%MZ)
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
echo "# bench-compare: A = $lab_a"
echo "#                B = $lab_b"
echo "# $date_utc, $cpu, $ncores cores; size $size; $reps runs each after a warm-up, interleaved;"
echo "# 1-thread runs pinned to CPU $pin (taskset); tools/sipd-bench.c+bench_model.h $bench_hash; uptime:$(uptime | sed 's/.*load/ load/')"
echo "# ns = nanoseconds per tet-iteration, median (min–max); B/A = ratio of the medians (min–max of"
echo "# the back-to-back pairs); wall = elapsed time, cpu = the process's CPU time"
echo
echo "| case | threads | tets | iterations | A wall ns | B wall ns | B/A wall | A cpu ns | B cpu ns | B/A cpu | contacts A/B | positions | load before–after |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"
rows=()
declare -A hcell   # "case" → "B / A ns | ratio (range)" for the history row of this thread count
for th in ${threads_list//,/ }; do
  nth=$th; [ "$th" = all ] && nth=$ncores
  hcell=(); differ=""; lmin=""; lmax=""
  for c in ${cases//,/ }; do
    l0=$(load1)
    run1 "$bin_a" "$c" "$nth" > /dev/null; run1 "$bin_b" "$c" "$nth" > /dev/null   # warm-up
    wa=(); wb=(); ua=(); ub=()
    for ((r = 0; r < reps; r++)); do
      if ((r % 2 == 0)); then
        oa=$(run1 "$bin_a" "$c" "$nth"); ob=$(run1 "$bin_b" "$c" "$nth")
      else
        ob=$(run1 "$bin_b" "$c" "$nth"); oa=$(run1 "$bin_a" "$c" "$nth")
      fi
      read -r va xa ia ca nt ha <<< "$oa"; read -r vb xb ib cb nt hb <<< "$ob"
      wa+=("$va"); wb+=("$vb"); ua+=("$xa"); ub+=("$xb")
    done
    l1=$(load1)
    its=$ia; [ "$ia" = "$ib" ] || its="$ia/$ib"
    same=same; [ "$ha" = "$hb" ] || { same=differ; differ="$differ${differ:+, }$c"; }
    cols="$(stat "${wa[@]}") | $(stat "${wb[@]}") | $(ratios "$reps" "${wa[@]}" "${wb[@]}") | $(stat "${ua[@]}") | $(stat "${ub[@]}") | $(ratios "$reps" "${ua[@]}" "${ub[@]}")"
    echo "| $c | $nth | $nt | $its | $cols | $ca/$cb | $same | $l0–$l1 |"
    # the history: CPU time for 1 thread (far less disturbed by the machine's other processes),
    # elapsed time for several (CPU time counts OpenMP's waiting there)
    if [ "$nth" = 1 ]; then x=("${ua[@]}"); y=("${ub[@]}"); else x=("${wa[@]}"); y=("${wb[@]}"); fi
    hcell[$c]="$(printf '%s\n' "${y[@]}" | median) / $(printf '%s\n' "${x[@]}" | median) | $(ratios "$reps" "${x[@]}" "${y[@]}")"
    for l in "$l0" "$l1"; do
      { [ -z "$lmin" ] || awk -v a="$l" -v b="$lmin" 'BEGIN {exit !(a < b)}'; } && lmin=$l
      { [ -z "$lmax" ] || awk -v a="$l" -v b="$lmax" 'BEGIN {exit !(a > b)}'; } && lmax=$l
    done
  done
  row="| ${date_utc%T*} | $sb vs $sa"
  for c in jacobi gs vbd contact; do row="$row | ${hcell[$c]:-– | –}"; done
  clock=cpu; [ "$nth" = 1 ] || clock=wall
  [ "$nth" = 1 ] && [ "$pin" != none ] && clock="$clock, pinned"
  row="$row | $nth | $clock | ${differ:+differ: }${differ:-same} | $lmin–$lmax | $nt tets ($size), $reps runs; ${note:-–} |"
  rows+=("$row")
done

if [ "$append" = 1 ]; then
  hist=$root/results/perf-history.md
  [ -f "$hist" ] || { echo "bench-compare.sh: $hist is missing (its header explains the columns)" >&2; exit 1; }
  printf '%s\n' "${rows[@]}" >> "$hist"
  echo
  echo "appended ${#rows[@]} rows to results/perf-history.md"
fi
