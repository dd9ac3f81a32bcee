#!/usr/bin/env bash
# Accuracy at a fixed iteration budget (DESIGN.md §3.8): the cantilever scene's tip position
# after 0.5 s for each sweep at 100 iterations per step, against a run converged to 1e-11.
#   bash tools/budget-accuracy.sh        (after `make`) → results/budget-accuracy.md
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/sipd-run
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
tip() { # solver-group frames → "x y z" of vertex 10 (the tip's bottom edge)
  sed -e "s|^solver   = {.*|solver = { $1 };|" -e '/line_search = "auto"; projection/d' \
      -e "s|meshes/beam|$PWD/scenes/meshes/beam|" scenes/cantilever.cfg >"$tmp/s.cfg"
  "$bin" "$tmp/s.cfg" --frames 30 --quiet --output "$tmp/o.h5"
  h5dump -d "/frames/positions[30,10,0;1,1,1;1,1,3;1,1,1]" "$tmp/o.h5" | sed -n 's/.*(30,10,0): //p' | tr -d ,
}
ref=$(tip 'sweep = "gauss-seidel"; iterations = 5000; tolerance = 1.0e-11; line_search = "always";')
{
  echo "# Cantilever: accuracy at a fixed budget"
  echo
  echo "- date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), CPU backend (float64)"
  echo "- scene: scenes/cantilever.cfg (E = 1e6, nu = 0.3, 2 substeps of 1/120 s per frame), 30 frames = 0.5 s"
  echo "- reference: Gauss-Seidel to r < 1e-11 (tip at $ref)"
  echo "- command: \`bash tools/budget-accuracy.sh\`"
  echo
  echo "| solver (100 iterations per step, tolerance 0) | tip x | tip y | tip z | distance to reference (mm) |"
  echo "|---|---:|---:|---:|---:|"
  for cfg in 'sweep = "jacobi"; chebyshev = true;' 'sweep = "jacobi"; chebyshev = false; line_search = "always";' \
             'sweep = "gauss-seidel"; line_search = "always";'; do
    t=$(tip "$cfg iterations = 100; tolerance = 0.0;")
    d=$(awk -v a="$t" -v b="$ref" 'BEGIN{split(a,p," ");split(b,q," ");print 1000*sqrt((p[1]-q[1])^2+(p[2]-q[2])^2+(p[3]-q[3])^2)}')
    echo "| \`$cfg\` | $(echo $t | tr ' ' '|') | $d |"
  done
} | tee results/budget-accuracy.md
