#!/usr/bin/env bash
# gpu-check.sh — the GPU check of a sipd-run bundle (built by tools/gpu-bundle.sh; this file is
# tools/gpu/bundle-check.sh of the repository, copied into the bundle).  docs/gpu-check.md.
#
#   OUT=DIR bash BUNDLE/gpu-check.sh [--selftest] [--budget SECONDS] [--phases LIST] [--tests REGEX]
#
# Runs on the GPU machine from the bundle alone (no build tree, no .git, no -dev packages), in
# phases, each with its own time limit, together within --budget seconds (default 360: a
# 10-minute command with room to spare).  Each phase writes the report into $OUT as soon as it
# ends, so a run cut short still returns everything done so far.  Order:
#   env         the device, driver, glibc, the bundle's commit
#   tests       the gpu tests (each against the CPU backend), cheapest first; the ones that do not
#               fit the phase's time are listed as not run
#   throughput  tet-iterations/s at 10k, 100k and 1M tets (jacobi, jacobi (gather), jacobi+E, gs, jacobi+contact),
#               and where the time goes: each phase's ms per iteration from CUDA events, launches
#               and blocking host syncs per iteration
#   ttt         time to tolerance, SIPD vs VBD (GPU only)
#   contact     broad and narrow phase on noodle piles (GPU only)
#   coarse      plain vs two-level SIPD on the GPU
# No CPU reference runs on the device beyond what the tests need.
# Files in $OUT (3): gpu-check-DATE-DEVICE.md (the report: commit it as
# results/gpu-check-DATE-DEVICE.md), gpu-check-DATE-DEVICE-tests.log, gpu-check-DATE-DEVICE-bench.log.
#
# --selftest: the same flow on a machine without a GPU, the CPU backend standing in for the GPU in
#   every program (SIPD_TEST_GPU_SELFTEST=1), with smaller sizes and a 150 s budget; it checks this
#   script, the programs and the report, not CUDA.  CI runs it (.ci/run).
# --phases LIST: a comma-separated subset, e.g. --phases tests --tests 'noodles|big' --budget 540 to
#   run the tests that did not fit the first time.
# Exit status: 0 when every phase that ran passed (tests passed or not run for time), 1 otherwise,
# 2 on bad usage.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
selftest=0 budget="" phases="env,tests,throughput,ttt,contact,coarse" only_tests=""
while [ $# -gt 0 ]; do
  case "$1" in
    --selftest) selftest=1 ;;
    --budget) budget=${2:?}; shift ;;
    --phases) phases=${2:?}; shift ;;
    --tests) only_tests=${2:?}; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "gpu-check.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "${OUT:-}" ]; then
  echo "gpu-check.sh: set OUT to the folder for the report (OUT=DIR $0)" >&2
  exit 2
fi
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
cd "$here" || exit 2
[ -x bin/sipd-run ] || chmod +x bin/* 2>/dev/null   # a copy that lost the execute bits
t_start=$(date +%s)
manifest=share/manifest.txt
mget() { sed -n "s/^$1: //p" "$manifest" 2>/dev/null | head -1; }

# ---- phases: their share of the budget (s) and the sizes they run --------------------------------
if [ $selftest = 1 ]; then
  export SIPD_TEST_GPU_SELFTEST=1
  budget=${budget:-150}
  declare -A share=([env]=5 [tests]=40 [throughput]=40 [ttt]=20 [contact]=15 [coarse]=30)
  sizes="2000 10000 30000" seconds=0.1 ttt_args="10 2 2" contact_args="4x16x16"
  coarse_ns="20" coarse_devices="cpu" mode="self-test: no GPU; the CPU backend stands in for it"
else
  budget=${budget:-360}
  declare -A share=([env]=10 [tests]=150 [throughput]=75 [ttt]=40 [contact]=40 [coarse]=45)
  sizes="10000 100000 1000000" seconds=0.5 ttt_args="" contact_args=""
  coarse_ns="40 80" coarse_devices="cuda" mode="device"
fi
# the budget is shared among the phases asked for (--phases tests --budget 540: all of it to the tests)
total_share=0
for p in ${phases//,/ }; do
  [ -n "${share[$p]:-}" ] || { echo "gpu-check.sh: unknown phase '$p' (env, tests, throughput, ttt, contact, coarse)" >&2; exit 2; }
  total_share=$((total_share + ${share[$p]}))
done

date_s=$(date -u +%Y-%m-%d)
devname=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
if [ $selftest = 1 ]; then
  slug=selftest
else
  [ -n "$devname" ] || devname=unknown-gpu
  slug=$(printf '%s' "$devname" | tr -c 'A-Za-z0-9._-' '-' | sed 's/--*/-/g;s/^-//;s/-$//')
fi
base=gpu-check-$date_s-$slug
report=$OUT/$base.md tests_log=$OUT/$base-tests.log bench_log=$OUT/$base-bench.log
work=$(mktemp -d "${TMPDIR:-/tmp}/sipd-gpu-check.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
: >"$tests_log"
: >"$bench_log"
status=0
declare -A pstat pused

now() { date +%s; }
log() { printf 'gpu-check: %s\n' "$*" >&2; }
want() { case ",$phases," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
limit_of() { echo $(( ${share[$1]} * budget / total_share )); }

# The report: the header (with the phase table as it stands) and the sections done so far,
# written to $OUT atomically after every phase.
write_report() {
  {
    echo "# GPU check — $date_s, ${devname:-no GPU}"
    echo
    echo "- mode: $mode; command: \`OUT=... gpu-check.sh$( [ $selftest = 1 ] && echo " --selftest")\` (budget ${budget} s, phases $phases)"
    echo "- bundle: commit $(mget commit) ($(mget describe)), built $(mget built) on $(mget host); nvcc $(mget nvcc); sm_$(mget arch)"
    echo "- elapsed: $(( $(now) - t_start )) s"
    echo
    echo "| phase | limit s | used s | status |"
    echo "|---|---:|---:|---|"
    for p in env tests throughput ttt contact coarse; do
      want "$p" || continue
      echo "| $p | $(limit_of "$p") | ${pused[$p]:-} | ${pstat[$p]:-not run yet} |"
    done
    echo
    for f in "$work"/sec-*.md; do [ -f "$f" ] && { cat "$f"; echo; }; done
  } >"$report.tmp" && mv "$report.tmp" "$report"
}

# run_timed LIMIT OUTFILE ERRFILE CMD...: the command under timeout; returns its status (124/137:
# cut by the limit)
run_timed() {
  local lim=$1 o=$2 e=$3
  shift 3
  timeout -k 5 "$lim" "$@" >"$o" 2>"$e"
}

phase_done() { # NAME START STATUS
  pused[$1]=$(( $(now) - $2 ))
  pstat[$1]=$3
  case "$3" in ok*|"not run"*) ;; *) status=1 ;; esac
  write_report
  log "$1: $3 (${pused[$1]} s)"
}

# ---- env ----------------------------------------------------------------------------------------
phase_env() {
  local t0 st=ok need have
  t0=$(now)
  need=$(mget glibc_needed)
  have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  {
    echo "## Environment"
    echo
    echo "- GPU: $(nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1 || true)"
    [ -n "$devname" ] || echo "- nvidia-smi: not found or no GPU"
    echo "- libcuda.so.1: $(ldconfig -p 2>/dev/null | grep -m1 'libcuda.so.1 ' | sed 's/.*=> //' || true)${LD_LIBRARY_PATH:+ (LD_LIBRARY_PATH=$LD_LIBRARY_PATH)}"
    echo "- host: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo 2>/dev/null | head -1), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo 2>/dev/null)"
    echo "- glibc: $have (the bundle needs $need), $(uname -sr)"
    echo "- sipd-run: $(bin/sipd-run --version 2>&1 | head -1)"
    echo "- bundle: $(mget size) in $(mget files) files, built with: $(mget cmake_options)"
  } >"$work/sec-0-env.md"
  if [ -n "$need" ] && [ -n "$have" ] && [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
    echo "- **glibc $have is older than the $need the bundle was built against: its programs will not start**" >>"$work/sec-0-env.md"
    st="FAILED (glibc)"
  fi
  if ldd bin/sipd-run 2>&1 | grep -q "not found"; then
    { echo; echo '```'; ldd bin/sipd-run 2>&1 | grep "not found"; echo '```'; } >>"$work/sec-0-env.md"
    st="FAILED (libraries not found)"
  fi
  phase_done env "$t0" "$st"
}

# ---- tests --------------------------------------------------------------------------------------
phase_tests() {
  local t0 lim deadline name tmo envs exe args left t rc res secs ts npass=0 nfail=0 nskip=0 nnot=0 ncut=0
  t0=$(now)
  lim=$(limit_of tests)
  deadline=$((t0 + lim))
  {
    echo "## 1. Correctness: the gpu tests (each compared with the CPU backend)"
    echo
    [ $selftest = 1 ] && echo "Self-test: the CPU backend stands in for the GPU (SIPD_TEST_GPU_SELFTEST=1): this checks the harness, not CUDA." && echo
    echo "| test | result | s | max position difference GPU - CPU / diagonal |"
    echo "|---|---|---:|---:|"
  } >"$work/tests-head.md"
  : >"$work/tests-rows.md"
  : >"$work/tests-fails.md"
  while IFS=$'\t' read -r name tmo envs exe args; do
    [ -n "$name" ] || continue
    if [ -n "$only_tests" ] && ! printf '%s\n' "$name" | grep -Eq "$only_tests"; then
      continue
    fi
    left=$((deadline - $(now)))
    if [ "$left" -lt 5 ]; then
      echo "| $name | not run (phase time limit) | | |" >>"$work/tests-rows.md"
      nnot=$((nnot + 1))
      continue
    fi
    t=$tmo
    [ "$left" -lt "$t" ] && t=$left
    ts=$(date +%s.%N)
    [ "$envs" = "-" ] && envs=""
    # shellcheck disable=SC2086  # args and envs are word lists
    { echo "===== $name: $exe $args${envs:+ ($envs)}"; env $envs timeout -k 3 "$t" "bin/$exe" $args 2>&1; echo "exit $?"; } \
      >"$work/test.out"
    rc=$(tail -1 "$work/test.out" | awk '{print $2}')
    secs=$(awk -v a="$ts" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
    cat "$work/test.out" >>"$tests_log"
    case "$rc" in
      0) res=passed; npass=$((npass + 1)) ;;
      77) res="skipped ($(grep -m1 -i 'skipped' "$work/test.out" | sed 's/^skipped: *//' | cut -c1-100))"; nskip=$((nskip + 1)) ;;
      124|137)
        if [ "$t" -lt "$tmo" ]; then   # the phase's time ran out, not the test's own timeout
          res="not finished (phase time limit, cut at ${t} s)"; nnot=$((nnot + 1))
        else
          res="**TIMED OUT** (its ${tmo} s timeout)"; ncut=$((ncut + 1))
        fi ;;
      *) res="**FAILED** (exit $rc)"; nfail=$((nfail + 1))
         { echo "- $name:"; echo '```'; grep -E '^FAIL|error|failed' "$work/test.out" | head -8; echo '```'; } >>"$work/tests-fails.md" ;;
    esac
    # the worst "max |x_gpu - x_cpu| / diag" the test printed (test_gpu's scene, kinds, ... cases)
    dmax=$(sed -n 's/.*max |x_gpu - x_cpu| \/ diag = \([0-9.e+-]*\).*/\1/p' "$work/test.out" | sort -g | tail -1)
    echo "| $name | $res | $secs | ${dmax:-} |" >>"$work/tests-rows.md"
    { cat "$work/tests-head.md" "$work/tests-rows.md"; } >"$work/sec-1-tests.md"
  done <share/gpu-tests.tsv
  {
    cat "$work/tests-head.md" "$work/tests-rows.md"
    echo
    echo "$npass passed, $nfail failed, $ncut timed out, $nskip skipped, $nnot not run or not finished (phase time limit); full output: $(basename "$tests_log")"
    if [ -s "$work/tests-fails.md" ]; then echo; echo "Failures:"; echo; cat "$work/tests-fails.md"; fi
  } >"$work/sec-1-tests.md"
  if [ $nfail -gt 0 ] || [ $ncut -gt 0 ]; then
    phase_done tests "$t0" "FAILED ($nfail failed, $ncut timed out)"
  elif [ $nskip -gt 0 ] && [ $selftest = 0 ]; then
    phase_done tests "$t0" "FAILED ($nskip skipped: no usable CUDA device?)"
  else
    phase_done tests "$t0" "ok ($npass passed, $nnot not run for time)"
  fi
}

# a benchmark phase: NAME SECTION-FILE TITLE CMD...; stdout goes into the section, stderr to the log
phase_bench() {
  local name=$1 sec=$2 title=$3 t0 lim rc st
  shift 3
  t0=$(now)
  lim=$(limit_of "$name")
  echo "===== $name: $*" >>"$bench_log"
  run_timed "$lim" "$work/$name.out" "$work/$name.err" "$@"
  rc=$?
  cat "$work/$name.err" >>"$bench_log"
  case $rc in
    0) st=ok ;;
    124|137) st="cut at $lim s (the rows above the cut are complete)" ;;
    *) st="FAILED (exit $rc)" ;;
  esac
  {
    echo "## $title"
    echo
    echo "- command: \`$*\`"
    [ $rc = 0 ] || echo "- **$st**; stderr: $(tail -3 "$work/$name.err" | tr '\n' ' ' | cut -c1-300)"
    echo
    cat "$work/$name.out"
    [ -f "$work/$name.extra" ] && { echo; cat "$work/$name.extra"; }
  } >"$work/$sec"
  case $rc in 124|137) st="FAILED: $st" ;; esac
  phase_done "$name" "$t0" "$st"
}

phase_throughput() {
  # the profile table goes to a file of its own, appended to the section after the run
  local prof=$work/profile.md
  phase_bench throughput sec-2-throughput.md "2. Throughput and where the time goes (boxes of $(echo $sizes | sed 's/ / \/ /g') tets)" \
    bin/sipd-bench-gpu --seconds "$seconds" --no-scenes --no-cpu --profile "$prof" $sizes
  {
    cat "$work/sec-2-throughput.md"
    echo
    echo "### Where the time goes: ms per iteration of each phase (backend.h sipd_profile)"
    echo
    echo "CUDA events around each launch and copy in a step of the same iterations; \"sum of phases\" below \"ms/iter"
    echo "profiled\" is host time between launches (launch latency, host work); launches and blocking host syncs per"
    echo "iteration are counted (15- minus 5-iteration step)."
    [ $selftest = 1 ] && echo "Self-test: the CPU backend's host-clock times per pass; it has no launches or syncs (–)."
    echo
    cat "$prof" 2>/dev/null
  } >"$work/sec-2.tmp" && mv "$work/sec-2.tmp" "$work/sec-2-throughput.md"
  write_report
}

phase_ttt() {
  # shellcheck disable=SC2086
  phase_bench ttt sec-3-ttt.md "3. Time to tolerance, SIPD vs VBD (GPU)" bin/sipd-ttt-gpu --gpu-only $ttt_args
}

phase_contact() {
  # shellcheck disable=SC2086
  phase_bench contact sec-4-contact.md "4. Contact: broad and narrow phase on noodle piles (GPU)" \
    bin/sipd-contact-bench-gpu --gpu-only --reps 3 $contact_args
}

phase_coarse() {
  # shellcheck disable=SC2086
  export DEVICES=$coarse_devices
  phase_bench coarse sec-5-coarse.md "5. Two-level SIPD (solver.coarse), device $coarse_devices" \
    bash share/coarse-bench.sh "$here" $coarse_ns
}

log "$mode; report $report; budget $budget s"
write_report
if [ -f share/registers.md ]; then
  { echo "## Registers per thread (ptxas -v at the bundle build, sm_$(mget arch))"; echo; cat share/registers.md; } \
    >"$work/sec-9-registers.md"
fi
for p in env tests throughput ttt contact coarse; do
  want "$p" || continue
  if [ $(( $(now) - t_start + 5 )) -ge "$budget" ]; then
    pstat[$p]="not run (budget spent)"
    status=1
    write_report
    continue
  fi
  "phase_$p"
done
write_report
log "done in $(( $(now) - t_start )) s, status $status; files in $OUT:"
ls -1 "$OUT" >&2
# the phase table and the test summary again, for the last lines of the command's output
sed -n '/^| phase |/,/^$/p' "$report"
grep -E '^[0-9]+ passed' "$report" || true
exit $status
