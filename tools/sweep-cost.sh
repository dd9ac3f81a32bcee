#!/usr/bin/env bash
# sweep-cost.sh [options] REV_A REV_B [REV ...] — one sweep's cost apart from its step's
#
# sipd-bench times one step of N iterations and divides by N, so each figure it prints holds
# 1/N of the step's fixed work: the step load's gradient pass, the initial guess, end-of-step
# work, and in a fresh process the first touch of the state's pages. This script runs each
# build at two iteration counts, LO and HI, interleaved round-robin (the order rotates from
# round to round), and solves T(N) = O + N S for each round: S = the cost of one sweep (ns per
# tet), O = the step's fixed cost (ns per tet, once per step).
# Builds come from bench-compare.sh --build-only (the same cache, this tree's sipd-bench.c).
#
#   REV: as bench-compare.sh ("." = this working tree)
#   --case C       sipd-bench case (default jacobi)
#   --size S       box (default 100x50x34: 1,020,000 tets)
#   --threads N    threads, "all" = every core (default all); elapsed time
#   --reps N       rounds (default 5, at least 3)
#   --lo N, --hi N the two iteration counts (default 2 and 40)
#   --scratch DIR  bench-compare.sh's scratch folder
#
# Prints, per build: S and O (median and min–max over the rounds), the per-iteration figure of
# a 20-iteration step (O/20 + S: what sipd-bench --iterations 20 would print), and the ratios
# of the first build's medians to each build's (>1: faster than the first).
set -euo pipefail
usage() { awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
case_=jacobi; size=100x50x34; threads=all; reps=5; lo=2; hi=40; scratch=""
revs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --case) case_=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --lo) lo=$2; shift 2 ;;
    --hi) hi=$2; shift 2 ;;
    --scratch) scratch=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "sweep-cost.sh: unknown option $1" >&2; usage ;;
    *) revs+=("$1"); shift ;;
  esac
done
[ ${#revs[@]} -ge 2 ] || usage
for v in "$reps" "$lo" "$hi"; do [[ $v =~ ^[0-9]+$ ]] || { echo "sweep-cost.sh: $v is not a count" >&2; exit 2; }; done
[ "$reps" -ge 3 ] || { echo "sweep-cost.sh: --reps must be at least 3" >&2; exit 2; }
[ "$lo" -ge 1 ] && [ "$hi" -gt "$lo" ] || { echo "sweep-cost.sh: need 1 <= --lo < --hi" >&2; exit 2; }
[ "$threads" = all ] && threads=$(nproc)

bc_opts=(); [ -n "$scratch" ] && bc_opts=(--scratch "$scratch")
mapfile -t bins < <(bash "$root/tools/bench-compare.sh" --build-only "${bc_opts[@]}" "${revs[@]}")
[ ${#bins[@]} = ${#revs[@]} ] || { echo "sweep-cost.sh: the builds failed" >&2; exit 1; }

# one run → ns per tet-iteration (wall) of a step of $2 iterations
run1() {   # bin iterations
  local line
  line=$("$1" --threads "$threads" --case "$case_" --iterations "$2" "$size" | grep -E "^\| [0-9]+ \|" | head -1) ||
    { echo "sweep-cost.sh: $1 failed" >&2; exit 1; }
  printf '%s\n' "$line" | awk -F'|' '{gsub(/ /, "", $7); print $7}'
}

raw=$(mktemp); trap 'rm -f "$raw"' EXIT
n=${#bins[@]}
echo "# sweep-cost: $case_, $size, $threads threads, $reps rounds of $lo and $hi iterations; $(date -u +%Y-%m-%dT%H:%MZ)," \
     "$(lscpu | sed -n 's/^Model name: *//p' | head -1); uptime:$(uptime | sed 's/.*load/ load/')"
for ((r = 0; r < reps; r++)); do
  for ((k = 0; k < n; k++)); do
    j=$(((k + r) % n))
    echo "$j $r $(run1 "${bins[j]}" "$lo") $(run1 "${bins[j]}" "$hi")" >> "$raw"
  done
done
labels=(); for rev in "${revs[@]}"; do
  if [ "$rev" = . ]; then labels+=("worktree"); else labels+=("$(git -C "$root" rev-parse --short=7 "$rev")"); fi
done
python3 - "$raw" "$lo" "$hi" "${labels[@]}" <<'PY'
import sys, statistics as st
raw, lo, hi, labels = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
S = {j: [] for j in range(len(labels))}; O = {j: [] for j in range(len(labels))}
for line in open(raw):
    j, r, tl, th = line.split()
    j = int(j); tl = float(tl) * lo; th = float(th) * hi          # ns per tet for the whole step
    s = (th - tl) / (hi - lo); S[j].append(s); O[j].append(tl - lo * s)
fmt = lambda v: f"{st.median(v):.1f} ({min(v):.1f}–{max(v):.1f})"
print("| build | sweep S, ns/tet | step O, ns/tet | 20-iteration ns/tet-iter | first/this S | first/this 20-it |")
print("|---|---:|---:|---:|---:|---:|")
s0 = st.median(S[0]); t0 = st.median(O[0]) / 20 + s0
for j, lab in enumerate(labels):
    s = st.median(S[j]); t = st.median(O[j]) / 20 + s
    print(f"| {lab} | {fmt(S[j])} | {fmt(O[j])} | {t:.1f} | {s0 / s:.2f} | {t0 / t:.2f} |")
PY
