#!/usr/bin/env bash
# Accuracy at a fixed per-frame budget (docs/design.md §3.8; issue 15, two-level SIPD).
# The design document's cantilever (docs/design.md §3.8): beam 1 x 0.2 x 0.2 m, 20x4x4 cells (525 vertices, 1920 tets), clamped at
# x = 0, gravity, frames of 1/60 s; tip = centre of the free end face after 0.5 s (30 frames).
# For each Young's modulus, Poisson ratio and budget (substeps x iterations per frame) every
# method is compared with Newton's trajectory at the same substeps (Newton to its own
# convergence, tolerance 1e-10, 50 iterations cap), so the difference is solver error only.
# Each cell: tip deflection (mm), its error relative to Newton's deflection, and the mean wall
# time per step (ms, /convergence/wall_time, 1 thread).
#   bash tools/budget-accuracy.sh [NU ...]     (after `make`) → results/budget-accuracy.md
# Environment: SIPD_RUN (binary), SIPD_GENBOX, YOUNGS (default "1.0e6 1.0e9").
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SIPD_RUN:-build/sipd-run}
nus=${*:-0.3 0.45 0.49}
youngs=${YOUNGS:-1.0e6 1.0e9}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
${SIPD_GENBOX:-build/tools/sipd-genbox} 20 4 4 1.0 0.2 0.2 "$tmp/beam" >/dev/null
tipv=272   # vertex (i, j, k) = (20, 2, 2): centre of the end face
run() { # E nu substeps iterations solver-keys → "tip_y wall_ms_per_step", or "diverged"
  cat >"$tmp/s.cfg" <<CFG
time = { dt = 0.0166667; substeps = $3; frames = 30; };
solver = { $5 iterations = $4; };
gravity = [0.0, -9.81, 0.0];
materials = ( { name = "rubber"; youngs = $1; poisson = $2; density = 1000.0; } );
bodies = ( { mesh = "beam"; material = "rubber";
             pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );
CFG
  if "$bin" "$tmp/s.cfg" --quiet --threads 1 --overwrite --output "$tmp/o.h5" 2>/dev/null; then
    y=$(h5dump -d "/frames/positions[30,$tipv,1;1,1,1;1,1,1;1,1,1]" "$tmp/o.h5" | sed -n "s/.*(30,$tipv,1): //p")
    w=$(h5dump -d /convergence/wall_time "$tmp/o.h5" | sed -n 's/^ *([0-9]*): //p' | tr ',' '\n' |
        awk 'NF {s += $1; n++} END {printf "%.2f", 1000 * s / n}')
    echo "$y $w"
  else
    echo diverged
  fi
}
methods=(
  'plain SIPD (Jacobi + Chebyshev)|chebyshev = true; tolerance = 0.0;'
  'two-level SIPD (Chebyshev smoother, every 10)|chebyshev = true; tolerance = 0.0; coarse = { levels = 2; every = 10; };'
  'two-level SIPD (Jacobi smoother, every 5)|tolerance = 0.0; coarse = { levels = 2; every = 5; };'
  'vbd|method = "vbd"; line_search = "always"; tolerance = 0.0;'
  'newton at the budget (tolerance 1e-5)|method = "newton";'
)
budgets="1x20 1x100 4x25"
{
  echo "# Accuracy at a fixed budget: cantilever tip after 0.5 s"
  echo
  echo "- date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), CPU backend (float64), 1 thread;"
  echo "  **the machine's 2 cores were shared with other jobs** (load average $(cut -d' ' -f1-3 /proc/loadavg)): wall times are indicative"
  echo "  only (ratios within a row are more reliable than absolute values)"
  echo "- beam 1 x 0.2 x 0.2 m, 20x4x4 cells (525 vertices, 1920 tets), density 1000, clamped at x = 0,"
  echo "  gravity, 30 frames of 1/60 s; tip = centre of the free end face"
  echo "- each cell: tip deflection in mm (rest y = 0.1 m), in brackets its error relative to Newton's"
  echo "  deflection at the same substeps (Newton to its own convergence, tolerance 1e-10, 50 iterations"
  echo "  cap), then the mean wall time per step in ms; the local methods run their full budget (tolerance 0)"
  echo "- two-level SIPD: \`solver.coarse\` with the defaults size = 8 (a 9 x 3 x 3 grid: 81 coarse nodes, those at the clamp kept as the free vertices next to it see them),"
  echo "  refresh = 0 (one Hessian assembly and coarse factorisation per step); its coarse iterations count"
  echo "  against the budget"
  echo "- command: \`bash tools/budget-accuracy.sh $*\`"
  for E in $youngs; do
    for nu in $nus; do
      echo
      echo "## E = $E Pa, nu = $nu"
      echo
      head="| method |"; sep="|---|"
      for b in $budgets; do head="$head $b |"; sep="$sep---:|"; done
      echo "$head"; echo "$sep"
      declare -A ref
      row="| **newton** (reference) |"
      for b in $budgets; do
        s=${b%x*}
        out=$(run "$E" "$nu" "$s" 50 'method = "newton"; tolerance = 1.0e-10;')
        y=${out% *}; w=${out#* }
        ref[$b]=$y
        row="$row $(awk -v y="$y" -v w="$w" 'BEGIN{printf "%.2f, %s ms", 1000*(y-0.1), w}') |"
      done
      echo "$row"
      for m in "${methods[@]}"; do
        name=${m%%|*}; keys=${m#*|}
        row="| $name |"
        for b in $budgets; do
          s=${b%x*}; it=${b#*x}
          out=$(run "$E" "$nu" "$s" "$it" "$keys")
          if [ "$out" = diverged ]; then row="$row diverged |"; continue; fi
          y=${out% *}; w=${out#* }
          row="$row $(awk -v y="$y" -v r="${ref[$b]}" -v w="$w" 'BEGIN{e=100*((y-0.1)-(r-0.1))/(r-0.1); printf (e < 1e4 && e > -1e4 ? "%.2f (%+.2f%%), %s ms" : "%.2f (%+.3g%%), %s ms"), 1000*(y-0.1), e, w}') |"
        done
        echo "$row"
      done
    done
  done
} | tee results/budget-accuracy.md
