#!/usr/bin/env bash
# What solver.tolerance buys (issue "Honest convergence", point 2): for each tolerance, the tip
# error against Newton's converged answer and the iterations it took, on the docs/design.md beam
# (1 x 0.2 x 0.2 m, 20x4x4 cells: 525 vertices, 1920 tets, clamped at x = 0, gravity).
#   quasi-static: one quasi-static solve under gravity (iteration cap 5000)
#   dynamic:      30 steps of 1/60 s from rest, tip after 0.5 s (iteration cap 1000 per step)
# The measure is the relative force residual max|g| / f_ref (docs/convergence.md).
#   bash tools/tolerance-study.sh [qs|dyn ...]   (after `make`) -> stdout (markdown)
# Environment: E_LIST, NU_LIST, TOL_LIST override the grids.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SIPD_RUN:-build/sipd-run}
modes=${*:-qs dyn}
E_LIST=${E_LIST:-1.0e5 1.0e6 1.0e8 1.0e9}
NU_LIST=${NU_LIST:-0.3 0.45 0.49}
TOL_LIST=${TOL_LIST:-1.0e-3 1.0e-4 1.0e-5 1.0e-6}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
${SIPD_GENBOX:-build/tools/sipd-genbox} 20 4 4 1.0 0.2 0.2 "$tmp/beam" >/dev/null
tipv=272   # vertex (20, 2, 2): centre of the free end face

# run MODE E NU SOLVER-KEYS -> "tip_y iterations_per_step not_converged" (or "failed")
run() {
  local qs frames cap
  if [ "$1" = qs ]; then qs=true; frames=1; cap=5000; else qs=false; frames=30; cap=1000; fi
  cat >"$tmp/s.cfg" <<CFG
time = { dt = 0.0166667; substeps = 1; frames = $frames; quasistatic = $qs; };
solver = { iterations = $cap; $4 };
gravity = [0.0, -9.81, 0.0];
materials = ( { name = "m"; youngs = $2; poisson = $3; density = 1000.0; } );
bodies = ( { mesh = "beam"; material = "m";
             pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );
CFG
  if ! "$bin" "$tmp/s.cfg" --quiet --output "$tmp/o.h5" >/dev/null 2>&1; then echo failed; return; fi
  local y its bad
  y=$(h5dump -d "/frames/positions[$frames,$tipv,1;1,1,1;1,1,1;1,1,1]" "$tmp/o.h5" | sed -n "s/.*($frames,$tipv,1): //p")
  its=$(h5dump -d /convergence/iterations "$tmp/o.h5" | awk -F'[:,]' '/\([0-9]+\)/{for(i=2;i<=NF;i++) if ($i ~ /[0-9]/) {s+=$i; n++}} END{printf "%.0f", s/n}')
  bad=$(h5dump -d /convergence/status "$tmp/o.h5" | awk -F'[:,]' '/\([0-9]+\)/{for(i=2;i<=NF;i++) if ($i ~ /[0-9]/ && $i+0 != 0) n++} END{print n+0}')
  echo "$y $its $bad"
}

methods=(
  'sipd Jacobi+Chebyshev|method = "sipd"; sweep = "jacobi"; chebyshev = true;'
  'vbd|method = "vbd"; line_search = "always";'
)
echo "# What the tolerance buys: tip error against Newton, iterations per step"
echo
echo "- date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), CPU backend (float64), $(nproc) cores"
echo "- beam 1 x 0.2 x 0.2 m, 20x4x4 cells (525 vertices, 1920 tets), density 1000, clamped at x = 0, gravity"
echo "- qs: one quasi-static solve (cap 5000 iterations); dyn: 30 steps of 1/60 s, tip after 0.5 s (cap 1000 per step)"
echo "- cell: tip error relative to Newton's deflection (Newton at tolerance 1e-10), mean iterations per step,"
echo "  and [n] = solves that did not converge (status != converged); '—' = the run failed"
echo "- command: \`bash tools/tolerance-study.sh $*\`"
for mode in $modes; do
  for E in $E_LIST; do
    echo
    echo "## $mode, E = $E"
    echo
    head="| ν | method |"; sep="|---|---|"
    for t in $TOL_LIST; do head="$head $t |"; sep="$sep---:|"; done
    echo "$head"; echo "$sep"
    for nu in $NU_LIST; do
      read -r yn itn badn <<<"$(run "$mode" "$E" "$nu" 'method = "newton"; tolerance = 1.0e-10; line_search = "always";')"
      if [ "$yn" = failed ]; then echo "| $nu | newton failed |"; continue; fi
      dn=$(awk -v y="$yn" 'BEGIN{printf "%.4g", 1000*(y-0.1)}')
      for m in "${methods[@]}"; do
        name=${m%%|*}; keys=${m#*|}
        row="| $nu | $name (newton: $dn mm, $itn it) |"
        for t in $TOL_LIST; do
          read -r y it bad <<<"$(run "$mode" "$E" "$nu" "$keys tolerance = $t;")"
          if [ "$y" = failed ]; then row="$row — |"; continue; fi
          row="$row $(awk -v y="$y" -v r="$yn" 'BEGIN{printf "%+.2f%%", 100*((y-0.1)-(r-0.1))/(r-0.1)}') $it it"
          [ "$bad" -gt 0 ] && row="$row [$bad]"
          row="$row |"
        done
        echo "$row"
      done
    done
  done
done
