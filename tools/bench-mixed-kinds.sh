#!/usr/bin/env bash
# mixed-fem on a rod and a cloth against Newton (and SIPD, VBD for scale), in one run on one
# machine: the "Cloth and rod" section of results/mixed-fem.md (issue 14, item "triangles and
# rods/springs").  Prints the markdown section on stdout.
#   rod:   1 m, 20 segments (springs + bending), radius 0.01 m, E = 1 MPa, ν = 0.3, density 1000,
#          clamped at x = 0 (two pinned vertices), gravity (scenes/rope.cfg)
#   cloth: 1 x 1 m, 20x20 cells (441 vertices, 800 triangles + hinges), thickness 1 mm, E = 0.1 MPa,
#          density 300, horizontal, one edge pinned, swinging down under gravity (a curtain hanging from
#          two corners, scenes/curtain.cfg, buckles out of its plane: its trajectory depends on round-off,
#          so Newton at 1e-6 and at 1e-8 already differ by 84% of the displacement — no reference)
# 30 frames of 1/60 s, one step per frame; every row runs the whole trajectory at a fixed budget of
# iterations per step (tolerance 0), or "to 1e-6" (relative force residual 1e-6, cap 100), and reports
#   - time per step: the mean of /convergence/wall_time (the solve, ms),
#   - field error: max over frames and vertices of |x − x_newton| / max over frames and vertices of
#     |x_newton − x_rest| (Newton to tolerance 1e-8, cap 100).
# OMP_NUM_THREADS=1.
#   bash tools/bench-mixed-kinds.sh >> results/mixed-fem.md      (after `make`)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SIPD_RUN:-build/sipd-run}
export OMP_NUM_THREADS=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
body_rod='materials = ( { name = "m"; youngs = 1.0e6; poisson = 0.3; density = 1000.0; } );
bodies = ( { generate = { shape = "rod"; length = 1.0; segments = 20; }; elements = "rod"; material = "m";
             radius = 0.01; pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [0.051, 1.0, 1.0]; }; } );'
body_cloth='materials = ( { name = "m"; youngs = 1.0e5; poisson = 0.3; density = 300.0; } );
bodies = ( { generate = { shape = "cloth"; size = [1.0, 1.0]; cells = [20, 20]; }; material = "m";
             thickness = 0.001; pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );'
run() { # scene name keys iterations tolerance → $tmp/<scene>_<name>.h5
  local body; [ "$1" = rod ] && body=$body_rod || body=$body_cloth
  cat >"$tmp/s.cfg" <<CFG
time = { dt = 0.0166667; substeps = 1; frames = 30; };
solver = { $3 iterations = $4; tolerance = $5; };
gravity = [0.0, -9.81, 0.0];
$body
CFG
  "$bin" "$tmp/s.cfg" --quiet --output "$tmp/$1_$2.h5" 2>/dev/null || echo "diverged" >"$tmp/$1_$2.failed"
}
rows=(
  'newton, pcg|method = "newton";|1 3'
  'mixed-fem, cholmod|method = "mixed-fem";|1 3 10'
  'mixed-fem, pcg (1e-7)|method = "mixed-fem"; linear = "pcg"; cg_tolerance = 1.0e-7;|3'
  'sipd Jacobi+Chebyshev|method = "sipd"; sweep = "jacobi"; chebyshev = true;|100'
  'vbd|method = "vbd";|100'
)
for sc in rod cloth; do
  run "$sc" ref 'method = "newton";' 100 1.0e-8
  for r in "${rows[@]}"; do
    name=${r%%|*}; rest=${r#*|}; keys=${rest%%|*}; budgets=${rest#*|}
    tag=$(echo "$name" | tr -c 'a-zA-Z0-9' '_')
    for b in $budgets; do run "$sc" "${tag}_$b" "$keys" "$b" 0.0; done
    case $name in newton*|mixed-fem*) run "$sc" "${tag}_tol" "$keys" 100 1.0e-6 ;; esac
  done
done
echo
echo "## Cloth and rod (tools/bench-mixed-kinds.sh)"
echo
echo "- date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), CPU backend (float64),"
echo "  nproc $(nproc), load average at the end $(cut -d' ' -f1-3 /proc/loadavg) (a shared machine: times are indicative), OMP_NUM_THREADS=1"
echo "- rod: 1 m, 20 segments (springs + bending as a plain term), r = 1 cm, E = 1 MPa, clamped, gravity; cloth: 1 x 1 m,"
echo "  20x20 cells (441 vertices, 800 membrane triangles + hinges), t = 1 mm, E = 0.1 MPa, horizontal, one edge pinned, gravity;"
echo "  30 steps of 1/60 s; budget = iterations per step (tolerance 0) or \"to 1e-6\" (cap 100)"
echo "- field error: max over frames and vertices of |x - x_Newton| / Newton's largest displacement (Newton: tolerance 1e-8)"
for sc in rod cloth; do
  echo
  echo "### $sc"
  echo
  echo "| method | budget | time/step (ms) | iterations/step | field error |"
  echo "|---|---:|---:|---:|---:|"
  for r in "${rows[@]}"; do
    name=${r%%|*}; rest=${r#*|}; budgets=${rest#*|}
    tag=$(echo "$name" | tr -c 'a-zA-Z0-9' '_')
    case $name in newton*|mixed-fem*) budgets="$budgets tol" ;; esac
    for b in $budgets; do
      f="$tmp/${sc}_${tag}_$b.h5"
      if [ -f "$tmp/${sc}_${tag}_$b.failed" ]; then echo "| $name | $b | - | - | diverged |"; continue; fi
      python3 - "$tmp/${sc}_ref.h5" "$f" "$name" "$b" <<'PY'
import sys, h5py, numpy as np
ref, f, name, b = sys.argv[1:5]
r = h5py.File(ref, "r")["/frames/positions"][:].astype(float)
h = h5py.File(f, "r")
x = h["/frames/positions"][:].astype(float)
wall = h["/convergence/wall_time"][:]
it = h["/convergence/iterations"][:]
scale = np.abs(r - r[0]).max()
print("| %s | %s | %.2f | %.1f | %.2g |" % (name, "to 1e-6" if b == "tol" else b, 1000 * wall.mean(), it.mean(),
                                            np.abs(x - r).max() / scale))
PY
    done
  done
done
