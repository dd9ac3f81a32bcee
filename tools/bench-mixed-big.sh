#!/usr/bin/env bash
# mixed-fem against the other solvers on a 120k-tet cantilever, in one run on one machine
# (issue 14 item 6, results/mixed-fem-big.md).  The beam of tools/bench-mixed.sh refined 4x per
# axis: 1 x 0.2 x 0.2 m, 80x16x16 cells (23409 vertices, 122880 tets), nu = 0.3, density 1000,
# clamped at x = 0, gravity, 10 frames of 1/60 s (one step per frame), E = 1 MPa and 1 GPa.
# The same columns as results/mixed-fem.md: time per step (mean of /convergence/wall_time),
# tip and field error against Newton (CHOLMOD, tolerance 1e-8, cap 50) over the 10 frames.
# OMP_NUM_THREADS=1 (one core for every method; CHOLMOD's BLAS single-threaded too).
#   bash tools/bench-mixed-big.sh       (after `make`) → results/mixed-fem-big.md
# FRAMES (default 10) and ES (default "1.0e6 1.0e9") shorten it: with Debian's reference BLAS
# (libblas.so.3) one CHOLMOD factorisation of this beam takes ~25 s on one core, so the full run
# takes hours; the committed table is FRAMES=3 ES=1.0e9.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SIPD_RUN:-build/sipd-run}
genbox=${SIPD_GENBOX:-build/tools/sipd-genbox}
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
FRAMES=${FRAMES:-10}; ES=${ES:-"1.0e6 1.0e9"}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$genbox" 80 16 16 1.0 0.2 0.2 "$tmp/beam" >/dev/null
tipv=11744   # vertex (i, j, k) = (80, 8, 8): centre of the end face, i + 81 (j + 17 k)
run() { # E name keys iterations tolerance → $tmp/<E>_<name>.h5
  cat >"$tmp/s.cfg" <<CFG
time = { dt = 0.0166667; substeps = 1; frames = $FRAMES; };
solver = { $3 iterations = $4; tolerance = $5; };
gravity = [0.0, -9.81, 0.0];
materials = ( { name = "m"; youngs = $1; poisson = 0.3; density = 1000.0; } );
bodies = ( { mesh = "beam"; material = "m";
             pin = { box_min = [-0.001, -1.0, -1.0]; box_max = [0.001, 1.0, 1.0]; }; } );
CFG
  echo "bench-mixed-big: E = $1, $2" >&2
  "$bin" "$tmp/s.cfg" --quiet --output "$tmp/$1_$2.h5" 2>/dev/null || echo "failed" >"$tmp/$1_$2.failed"
}
rows=(
  'newton, cholmod|method = "newton"; linear = "cholmod";|2'
  'mixed-fem, cholmod|method = "mixed-fem";|2 5'
  'mixed-fem, pcg (1e-7)|method = "mixed-fem"; linear = "pcg"; cg_tolerance = 1.0e-7;|2'
  'sipd Jacobi+Chebyshev|method = "sipd"; sweep = "jacobi"; chebyshev = true;|100'
  'vbd|method = "vbd";|100'
)
for E in $ES; do
  run "$E" ref 'method = "newton"; linear = "cholmod";' 50 1.0e-8
  for r in "${rows[@]}"; do
    name=${r%%|*}; rest=${r#*|}; keys=${rest%%|*}; budgets=${rest#*|}
    tag=$(echo "$name" | tr -c 'a-zA-Z0-9' '_')
    for b in $budgets; do run "$E" "${tag}_$b" "$keys" "$b" 0.0; done
  done
done
{
  echo "# mixed-fem against Newton, SIPD and VBD: a 120k-tet cantilever"
  echo
  echo "- date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), CPU backend (float64),"
  echo "  $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), one core (OMP_NUM_THREADS=1), load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "  (a shared machine: times are indicative; ratios within one table are what to read)"
  echo "- beam 1 x 0.2 x 0.2 m, 80x16x16 cells (23409 vertices, 122880 tets), nu = 0.3, density 1000, clamped at x = 0,"
  echo "  gravity, $FRAMES steps of 1/60 s; budget = iterations per step (tolerance 0)"
  echo "- time: mean solve time per step; tip error: max over the $FRAMES frames of |tip - tip_Newton| relative to Newton's"
  echo "  largest tip displacement; field: the same over all vertices (Newton reference: CHOLMOD, tolerance 1e-8, cap 50;"
  echo "  its own row is the reference run)"
  echo "- command: \`FRAMES=$FRAMES ES=\"$ES\" bash tools/bench-mixed-big.sh\`; BLAS: $(basename "$(readlink -f "$(ldconfig -p | sed -n 's/.*libblas.so.3 .*=> //p' | head -1)")" 2>/dev/null)"
  for E in $ES; do
    echo
    echo "## E = $E Pa"
    echo
    echo "| method | budget | time/step (ms) | iterations/step | tip error | field error |"
    echo "|---|---:|---:|---:|---:|---:|"
    python3 - "$tmp/${E}_ref.h5" "$tmp/${E}_ref.h5" "newton, cholmod (reference)" "to 1e-8" "$tipv" <<'PY'
import sys, h5py, numpy as np
h = h5py.File(sys.argv[2], "r")
print("| %s | %s | %.0f | %.1f | 0 | 0 |" % (sys.argv[3], sys.argv[4], 1000 * h["/convergence/wall_time"][:].mean(),
                                         h["/convergence/iterations"][:].mean()))
PY
    for r in "${rows[@]}"; do
      name=${r%%|*}; rest=${r#*|}; budgets=${rest#*|}
      tag=$(echo "$name" | tr -c 'a-zA-Z0-9' '_')
      for b in $budgets; do
        f="$tmp/${E}_${tag}_$b.h5"
        if [ -f "$tmp/${E}_${tag}_$b.failed" ]; then echo "| $name | $b | - | - | failed | failed |"; continue; fi
        python3 - "$tmp/${E}_ref.h5" "$f" "$name" "$b" "$tipv" <<'PY'
import sys, h5py, numpy as np
ref, f, name, b, tipv = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
r = h5py.File(ref, "r")["/frames/positions"][:].astype(float)
h = h5py.File(f, "r")
x = h["/frames/positions"][:].astype(float)
scale_tip = np.abs(r[:, tipv, :] - r[0, tipv, :]).max()
scale = np.abs(r - r[0]).max()
print("| %s | %s | %.0f | %.1f | %.2g | %.2g |" % (name, b, 1000 * h["/convergence/wall_time"][:].mean(),
      h["/convergence/iterations"][:].mean(), np.abs(x[:, tipv, :] - r[:, tipv, :]).max() / scale_tip,
      np.abs(x - r).max() / scale))
PY
      done
    done
  done
  echo
  echo "Notes: errors as in results/mixed-fem.md (1 = as far from Newton as Newton is from rest). docs/solvers.md"
  echo "\"Which solver when\" reads this table beside the 1920-tet one."
} | tee results/mixed-fem-big.md
