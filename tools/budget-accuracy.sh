#!/usr/bin/env bash
# Accuracy at a fixed per-frame budget (DESIGN.md §3.8, issue "comparison solvers" item 7).
# DESIGN's cantilever: beam 1 x 0.2 x 0.2 m, 20x4x4 cells (525 vertices, 1920 tets), E = 1e6,
# clamped at x = 0, gravity, frames of 1/60 s; tip = centre of the free end face after 0.5 s
# (30 frames). For each budget (substeps x iterations per frame) every method is compared with
# Newton's trajectory at the same substeps (so the difference is solver error only).
#   bash tools/budget-accuracy.sh [NU ...]     (after `make`) → results/budget-accuracy.md
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SIPD_RUN:-build/sipd-run}
nus=${*:-0.3 0.45 0.49}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
${SIPD_GENBOX:-build/tools/sipd-genbox} 20 4 4 1.0 0.2 0.2 "$tmp/beam" >/dev/null
tipv=272   # vertex (i, j, k) = (20, 2, 2): centre of the end face
tip_y() { # nu substeps iterations solver-keys → tip y (m) after 30 frames, or "diverged"
  cat >"$tmp/s.cfg" <<CFG
time = { dt = 0.0166667; substeps = $2; frames = 30; };
solver = { $4 iterations = $3; };
gravity = [0.0, -9.81, 0.0];
materials = ( { name = "rubber"; youngs = 1.0e6; poisson = $1; density = 1000.0; } );
bodies = ( { mesh = "beam"; material = "rubber";
             pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );
CFG
  if "$bin" "$tmp/s.cfg" --quiet --output "$tmp/o.h5" 2>/dev/null; then
    h5dump -d "/frames/positions[30,$tipv,1;1,1,1;1,1,1;1,1,1]" "$tmp/o.h5" | sed -n "s/.*(30,$tipv,1): //p"
  else
    echo diverged
  fi
}
methods=(
  'sipd Jacobi|method = "sipd"; sweep = "jacobi"; line_search = "always";'
  'sipd Jacobi+Chebyshev|method = "sipd"; sweep = "jacobi"; chebyshev = true;'
  'sipd Gauss-Seidel (sign)|method = "sipd"; sweep = "gauss-seidel"; projection = "sign"; line_search = "always";'
  'vbd|method = "vbd"; line_search = "always";'
  'block-jacobi|method = "block-jacobi"; line_search = "always";'
  'diag-jacobi+Chebyshev|method = "diag-jacobi"; chebyshev = true;'
  'gd|method = "gd"; line_search = "always";'
)
budgets="1x200 4x50 10x20"
{
  echo "# Accuracy at a fixed budget: cantilever tip after 0.5 s"
  echo
  echo "- date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), CPU backend (float64)"
  echo "- beam 1 x 0.2 x 0.2 m, 20x4x4 cells (525 vertices, 1920 tets), E = 1e6 Pa, density 1000, clamped at x = 0,"
  echo "  gravity, 30 frames of 1/60 s; tip = centre of the free end face"
  echo "- each cell: tip deflection in mm (rest y = 0.1 m), and in brackets its error relative to Newton's"
  echo "  deflection at the same substeps (Newton to its own convergence, 50 iterations cap)"
  echo "- command: \`bash tools/budget-accuracy.sh $*\`"
  for nu in $nus; do
    echo
    echo "## nu = $nu"
    echo
    head="| method |"; sep="|---|"
    for b in $budgets; do head="$head $b |"; sep="$sep---:|"; done
    echo "$head"; echo "$sep"
    declare -A ref
    row="| **newton** (reference) |"
    for b in $budgets; do
      s=${b%x*}
      y=$(tip_y "$nu" "$s" 50 'method = "newton"; tolerance = 1.0e-10;')
      ref[$b]=$y
      row="$row $(awk -v y="$y" 'BEGIN{printf "%.1f", 1000*(y-0.1)}') |"
    done
    echo "$row"
    for m in "${methods[@]}"; do
      name=${m%%|*}; keys=${m#*|}
      row="| $name |"
      for b in $budgets; do
        s=${b%x*}; it=${b#*x}
        y=$(tip_y "$nu" "$s" "$it" "$keys tolerance = 0.0;")
        if [ "$y" = diverged ]; then row="$row diverged |"; continue; fi
        row="$row $(awk -v y="$y" -v r="${ref[$b]}" 'BEGIN{printf "%.1f (%+.1f%%)", 1000*(y-0.1), 100*((y-0.1)-(r-0.1))/(r-0.1)}') |"
      done
      echo "$row"
    done
  done
} | tee results/budget-accuracy.md
