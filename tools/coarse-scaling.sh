#!/usr/bin/env bash
# Scaling of plain and two-level SIPD (issue 15, item 4): iterations and wall time of one
# implicit step (dt = 1/60, from rest, gravity) to a relative force residual of 1e-5, on the
# same clamped beam (1 x 0.2 x 0.2 m, E = 1e6, nu = 0.45) meshed at n x n/5 x n/5 cells
# (6 tets per cell).  Plain = Jacobi + Chebyshev (adaptive rho); two-level = the same smoother
# with solver.coarse (every 10, refresh 0), the coarse grid fixed (size 8) or scaled with the
# mesh (size = 2n/5: 2.5 fine cells per coarse cell), and the latter with every 20.
#   bash tools/coarse-scaling.sh [N ...]   (after `make`; default N = "20 40 80") → results/coarse-scaling.md
# Environment: SIPD_RUN, SIPD_GENBOX, CAP (iteration cap, default 20000), THREADS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SIPD_RUN:-build/sipd-run}
genbox=${SIPD_GENBOX:-build/tools/sipd-genbox}
ns=${*:-20 40 80}
cap=${CAP:-20000}
threads=${THREADS:-2}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
one() { # n keys → "iterations wall_s status residual"
  cat >"$tmp/s.cfg" <<CFG
time = { dt = 0.0166667; frames = 1; };
solver = { $2 iterations = $cap; tolerance = 1.0e-5; };
gravity = [0.0, -9.81, 0.0];
materials = ( { name = "rubber"; youngs = 1.0e6; poisson = 0.45; density = 1000.0; } );
bodies = ( { mesh = "beam$1"; material = "rubber";
             pin = { box_min = [-0.001, -1.0, -1.0]; box_max = [0.001, 1.0, 1.0]; }; } );
CFG
  "$bin" "$tmp/s.cfg" --quiet --threads "$threads" --overwrite --output "$tmp/o.h5" 2>/dev/null || true
  get() { h5dump -d "/convergence/$1" "$tmp/o.h5" | sed -n 's/^ *(0): //p' | tr -d ' ,'; }
  echo "$(get iterations) $(get wall_time) $(get status) $(get residual)"
}
status_name() { case $1 in 0) echo converged;; 1) echo at-cap;; 2) echo stalled;; *) echo diverged;; esac; }
{
  echo "# Scaling: iterations and wall time to a relative residual of 1e-5, plain vs two-level SIPD"
  echo
  echo "- date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), CPU backend (float64), $threads threads;"
  echo "  **the machine's 2 cores were shared with other jobs** (load average $(cut -d' ' -f1-3 /proc/loadavg)): wall times are indicative"
  echo "- one implicit step (dt = 1/60 s, from rest, gravity) of the clamped beam 1 x 0.2 x 0.2 m, E = 1e6 Pa,"
  echo "  nu = 0.45, density 1000, meshed at n x n/5 x n/5 cells (6 tets each); tolerance 1e-5 on the"
  echo "  relative force residual (docs/convergence.md), iteration cap $cap"
  echo "- plain: Jacobi + Chebyshev, adaptive rho; two-level: the same with \`solver.coarse = { levels = 2; }\`"
  echo "  (every 10, refresh 0), the coarse grid fixed (size 8) or scaled with the mesh (size 2n/5); last column"
  echo "  the scaled grid with a correction every 20 iterations"
  echo "- each cell: iterations, wall time of the step (s), and the status when it did not converge"
  echo "- command: \`bash tools/coarse-scaling.sh $*\`"
  echo
  echo "| cells | vertices | tets | plain | two-level, size 8 | two-level, size 2n/5 | two-level, size 2n/5, every 20 |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for n in $ns; do
    m=$((n / 5))
    $genbox "$n" "$m" "$m" 1.0 0.2 0.2 "$tmp/beam$n" >/dev/null
    nv=$(( (n + 1) * (m + 1) * (m + 1) )); nt=$((6 * n * m * m))
    row="| ${n}x${m}x${m} | $nv | $nt |"
    for keys in 'chebyshev = true;' 'chebyshev = true; coarse = { levels = 2; size = 8; };' \
                "chebyshev = true; coarse = { levels = 2; size = $((2 * n / 5)); };" \
                "chebyshev = true; coarse = { levels = 2; size = $((2 * n / 5)); every = 20; };"; do
      read -r it w st r <<<"$(one "$n" "$keys")"
      if [ "$st" = 0 ]; then
        row="$row $it, $(printf '%.2f' "$w") s |"
      else
        row="$row $it, $(printf '%.2f' "$w") s ($(status_name "$st"), residual $(printf '%.2g' "$r")) |"
      fi
    done
    echo "$row"
  done
} | tee results/coarse-scaling.md
