#!/usr/bin/env bash
# stress-study.sh — the SIPD paper's stress tests (scenes/stress_*.cfg) over method x case x ν:
# does the bar recover its rest shape (max |J − 1| < 1e-2 and no inverted tet in the last frame,
# after 2 s = 120 steps of 1/60 s) with the given per-step iteration budget?
#
#   bash tools/stress-study.sh [BUDGET ...]      (default: 200; e.g. "200 1000")
#
# Methods (each at the scene's tolerance, 1e-6; iterations = BUDGET per step; the scene's first
# solver line is replaced, its second line holds the tolerance):
#   sipd-jacobi-cheb  method sipd, sweep jacobi, chebyshev, projection expanded (the scenes' default)
#   sipd-gs           method sipd, sweep gauss-seidel, projection sign, line_search always
#   vbd               method vbd
#   newton            method newton
# Env: SIPD_RUN (default build/sipd-run), CHECK (default build/tests/stress_check), MESH
# (default meshes/stress_bar.msh: the tests' mesh; meshes/stress_bar_fine.msh with its own starts
# needs them written first: see README), OMP_NUM_THREADS (default 2); METHODS, CASES, NUS
# (space-separated subsets of the defaults) select rows.  Writes a markdown table on
# stdout; the runs go to a temporary directory.  Wall time is of the whole run (2 s simulated).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SIPD_RUN:-$root/build/sipd-run}
check=${CHECK:-$root/build/tests/stress_check}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
budgets=("$@")
[ ${#budgets[@]} -gt 0 ] || budgets=(200)
tmp=$(mktemp -d /tmp/sipd_stress_XXXXXX)
trap 'rm -rf "$tmp"' EXIT

solver_of() {   # method name -> the solver group's method/sweep keys
  case $1 in
    sipd-jacobi-cheb) echo 'method = "sipd"; sweep = "jacobi"; chebyshev = true; projection = "expanded";' ;;
    sipd-gs) echo 'method = "sipd"; sweep = "gauss-seidel"; projection = "sign"; line_search = "always";' ;;
    vbd) echo 'method = "vbd";' ;;
    newton) echo 'method = "newton";' ;;
  esac
}

echo "| budget | method | case | ν | result | max\|J−1\| | inverted tets | wall s |"
echo "|---|---|---|---|---|---|---|---|"
for budget in "${budgets[@]}"; do
  for method in ${METHODS:-sipd-jacobi-cheb sipd-gs vbd newton}; do
    for case in ${CASES:-flatten stretch random}; do
      for nu in ${NUS:-0.3 0.45 0.49}; do
        scene=$tmp/$case-$method-$nu-$budget.cfg
        # the scene with its solver line, poisson, mesh and output replaced; paths made absolute
        sed -e "s|^solver *=.*|solver = { $(solver_of $method) iterations = $budget;|" \
            -e "s|poisson = [0-9.]*|poisson = $nu|" \
            -e "s|\"meshes/|\"$root/scenes/meshes/|g" \
            -e "s|^output *=.*|output = { file = \"$tmp/out.h5\"; xdmf = false; };|" \
            "$root/scenes/stress_$case.cfg" >"$scene"
        if [ -n "${MESH:-}" ]; then
          sed -i -e "s|$root/scenes/meshes/stress_bar.msh|$root/scenes/$MESH|" \
                 -e "s|stress_bar_\([a-z]*\)\.node|$(basename "${MESH%.msh}")_\1.node|" "$scene"
        fi
        t0=$(date +%s.%N)
        if "$bin" --quiet "$scene" 2>"$tmp/err"; then
          t1=$(date +%s.%N)
          line=$("$check" rest "$tmp/out.h5" 1e-2) && res=pass || res=fail
          maxj=$(echo "$line" | sed -n 's/max|J-1| = \([^ ]*\).*/\1/p')
          inv=$(echo "$line" | sed -n 's/.*inverted = \([0-9]*\) of.*/\1/p')
        else
          t1=$(date +%s.%N); res="error: $(tail -1 "$tmp/err")"; maxj=-; inv=-
        fi
        printf '| %s | %s | %s | %s | %s | %s | %s | %.1f |\n' "$budget" "$method" "$case" "$nu" "$res" "$maxj" \
               "$inv" "$(echo "$t1 - $t0" | bc -l)"
      done
    done
  done
done
