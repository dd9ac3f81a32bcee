#!/usr/bin/env bash
# mixed-fem against the other solvers on the soft (1 MPa) and stiff (1 GPa) cantilever, in one run
# on one machine (issue 14, results/mixed-fem.md).
# The design document's beam (docs/design.md §3.8): 1 x 0.2 x 0.2 m, 20x4x4 cells (525 vertices, 1920 tets), nu = 0.3, density 1000,
# clamped at x = 0, gravity, 30 frames of 1/60 s (one step per frame).  Every row runs the whole
# trajectory at a fixed budget of iterations per step (tolerance 0: the budget is used; "to 1e-6":
# tolerance 1e-6 and a cap of 50) and reports
#   - time per step: the mean of /convergence/wall_time (the solve, ms),
#   - tip error: max over the frames of |tip − tip_newton| / max over the frames of |tip_newton − tip_rest|
#     (tip = centre of the free end face; Newton to tolerance 1e-8, which is at its round-off floor
#     at 1 GPa),
#   - field error: the same with the max over all vertices.
# OMP_NUM_THREADS=1 (the mesh is below the backend's parallel threshold anyway).
#   bash tools/bench-mixed.sh            (after `make`) → results/mixed-fem.md
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SIPD_RUN:-build/sipd-run}
genbox=${SIPD_GENBOX:-build/tools/sipd-genbox}
export OMP_NUM_THREADS=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$genbox" 20 4 4 1.0 0.2 0.2 "$tmp/beam" >/dev/null
tipv=272   # vertex (i, j, k) = (20, 2, 2): centre of the end face
run() { # E name keys iterations tolerance → writes $tmp/<E>_<name>.h5
  cat >"$tmp/s.cfg" <<CFG
time = { dt = 0.0166667; substeps = 1; frames = 30; };
solver = { $3 iterations = $4; tolerance = $5; };
gravity = [0.0, -9.81, 0.0];
materials = ( { name = "m"; youngs = $1; poisson = 0.3; density = 1000.0; } );
bodies = ( { mesh = "beam"; material = "m";
             pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );
CFG
  "$bin" "$tmp/s.cfg" --quiet --output "$tmp/$1_$2.h5" 2>/dev/null || echo "diverged" >"$tmp/$1_$2.failed"
}
rows=(
  'newton, pcg|method = "newton";|1 2 5'
  'newton, cholmod|method = "newton"; linear = "cholmod";|1 2 5'
  'mixed-fem, cholmod|method = "mixed-fem";|1 2 3 5'
  'mixed-fem, pcg (1e-7)|method = "mixed-fem"; linear = "pcg"; cg_tolerance = 1.0e-7;|1 3'
  'sipd Jacobi+Chebyshev|method = "sipd"; sweep = "jacobi"; chebyshev = true;|100 1000'
  'vbd|method = "vbd";|100 1000'
)
for E in 1.0e6 1.0e9; do
  run "$E" ref 'method = "newton";' 50 1.0e-8
  for r in "${rows[@]}"; do
    name=${r%%|*}; rest=${r#*|}; keys=${rest%%|*}; budgets=${rest#*|}
    tag=$(echo "$name" | tr -c 'a-zA-Z0-9' '_')
    for b in $budgets; do run "$E" "${tag}_$b" "$keys" "$b" 0.0; done
    case $name in newton*|mixed-fem*) run "$E" "${tag}_tol" "$keys" 50 1.0e-6 ;; esac
  done
done
{
  echo "# mixed-fem against Newton, SIPD and VBD: soft and stiff cantilever"
  echo
  echo "- date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), CPU backend (float64),"
  echo "  $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), nproc $(nproc), load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "  (a shared machine: times are indicative), OMP_NUM_THREADS=1, BLAS: $(basename "$(readlink -f "$(ldconfig -p | sed -n 's/.*libblas.so.3 .*=> //p' | head -1)")" 2>/dev/null)"
  echo "- beam 1 x 0.2 x 0.2 m, 20x4x4 cells (525 vertices, 1920 tets), nu = 0.3, density 1000, clamped at x = 0, gravity,"
  echo "  30 steps of 1/60 s; budget = iterations per step (tolerance 0), or \"to 1e-6\" (relative force residual 1e-6, cap 50)"
  echo "- time: mean solve time per step; tip error: max over the 30 frames of |tip - tip_Newton| relative to Newton's"
  echo "  largest tip displacement; field: the same over all vertices (Newton reference: tolerance 1e-8, cap 50)"
  echo "- command: \`bash tools/bench-mixed.sh\`"
  for E in 1.0e6 1.0e9; do
    echo
    echo "## E = $E Pa"
    echo
    echo "| method | budget | time/step (ms) | iterations/step | tip error | field error |"
    echo "|---|---:|---:|---:|---:|---:|"
    for r in "${rows[@]}"; do
      name=${r%%|*}; rest=${r#*|}; budgets=${rest#*|}
      tag=$(echo "$name" | tr -c 'a-zA-Z0-9' '_')
      case $name in newton*|mixed-fem*) budgets="$budgets tol" ;; esac
      for b in $budgets; do
        f="$tmp/${E}_${tag}_$b.h5"
        if [ -f "$tmp/${E}_${tag}_$b.failed" ]; then echo "| $name | $b | - | - | diverged | diverged |"; continue; fi
        python3 - "$tmp/${E}_ref.h5" "$f" "$name" "$b" "$tipv" <<'PY'
import sys, h5py, numpy as np
ref, f, name, b, tipv = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
r = h5py.File(ref, "r")["/frames/positions"][:].astype(float)
h = h5py.File(f, "r")
x = h["/frames/positions"][:].astype(float)
wall = h["/convergence/wall_time"][:]
it = h["/convergence/iterations"][:]
scale_tip = np.abs(r[:, tipv, :] - r[0, tipv, :]).max()
scale = np.abs(r - r[0]).max()
etip = np.abs(x[:, tipv, :] - r[:, tipv, :]).max() / scale_tip
efield = np.abs(x - r).max() / scale
print("| %s | %s | %.2f | %.1f | %.2g | %.2g |" % (name, "to 1e-6" if b == "tol" else b, 1000 * wall.mean(), it.mean(), etip, efield))
PY
      done
    done
  done
  echo
  echo "Notes"
  echo
  echo "- Iterations are outer iterations (newton, mixed-fem: one global linear solve each), Jacobi sweeps"
  echo "  (sipd) or Gauss-Seidel sweeps (vbd); an error of 1 means as far from Newton as Newton is from rest,"
  echo "  far above 1 means far too soft (a local method under-converged at this budget: docs/design.md §3.8)."
  echo "- sipd at 1000 on the soft beam stops below 1000 iterations per step: its stall rule ends solves at"
  echo "  the round-off floor (tolerance 0)."
  echo "- An error of 0 is below the resolution of the output (positions are stored as float32: ~1e-7 of"
  echo "  the beam's coordinates, 1e-4 of the 1 GPa beam's 0.2 mm tip displacement)."
  echo "- docs/solvers.md reads these tables."
} | tee results/mixed-fem.md
