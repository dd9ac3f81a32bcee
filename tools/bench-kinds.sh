#!/usr/bin/env bash
# bench-kinds.sh — CPU element-iterations per second of each element kind, measured through
# sipd-run itself (all cores), beside a tet body of similar size → results/kinds-bench.md
#   bash tools/bench-kinds.sh            (after `make`)
# Each run: one frame, one step of a fixed number of iterations (tolerance 0: no early stop) of
# SIPD Jacobi + Chebyshev with line_search = "never" (no energy evaluations), a body of 35k–51k
# elements of one kind (a 34560-tet box, the same box as 43696 springs, a 160 x 160 cloth, a
# 50000-segment rod; the cloth also with bending = "midedge"); time = /convergence/wall_time of that solve.  The element count is what
# the output lists (tets, triangles, edges): the bending items the passes also visit (cloth
# hinges, rod bend vertices) are not counted.  Throughput includes the vertex pass and the
# update, as sipd-bench's tet numbers (results/cpu-bench.md) do.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/sipd-run
[ -x "$bin" ] || { echo "build first: make" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
iters=${ITERS:-200}
build/tools/sipd-genbox 40 12 12 1.0 0.3 0.3 "$tmp/box" >/dev/null
common="time = { dt = 0.0166667; frames = 1; };
solver = { method = \"sipd\"; iterations = $iters; tolerance = 0.0; chebyshev = true; line_search = \"never\"; };
gravity = [0.0, -9.81, 0.0];
materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; density = 1000.0; } );"
cat >"$tmp/tets.cfg" <<EOF
$common
bodies = ( { mesh = "$tmp/box"; material = "m"; pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );
output = { file = "$tmp/tets.h5"; xdmf = false; };
EOF
cat >"$tmp/cloth.cfg" <<EOF
$common
bodies = ( { generate = { shape = "cloth"; size = [1.0, 1.0]; cells = [160, 160]; }; material = "m"; thickness = 0.001;
             pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );
output = { file = "$tmp/cloth.h5"; xdmf = false; };
EOF
cat >"$tmp/cloth_midedge.cfg" <<EOF
$common
bodies = ( { generate = { shape = "cloth"; size = [1.0, 1.0]; cells = [160, 160]; }; material = "m"; thickness = 0.001;
             bending = "midedge"; pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );
output = { file = "$tmp/cloth_midedge.h5"; xdmf = false; };
EOF
cat >"$tmp/rod.cfg" <<EOF
$common
bodies = ( { generate = { shape = "rod"; length = 10.0; segments = 50000; }; elements = "rod"; material = "m"; radius = 0.01;
             pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [0.0001, 1.0, 1.0]; }; } );
output = { file = "$tmp/rod.h5"; xdmf = false; };
EOF
cat >"$tmp/springs.cfg" <<EOF
$common
bodies = ( { mesh = "$tmp/box"; elements = "springs"; material = "m"; radius = 0.005;
             pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );
output = { file = "$tmp/springs.h5"; xdmf = false; };
EOF
{
  echo "# CPU element-iterations per second by element kind"
  echo
  echo "- date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores (all used), float64"
  echo "- command: \`bash tools/bench-kinds.sh\` (ITERS=$iters SIPD Jacobi + Chebyshev iterations, line search off)"
  echo
  echo "| body | elements (kind: count) | vertices | iterations | wall s | M element-iter/s | ns per element-iter |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for k in tets cloth cloth_midedge rod springs; do
    "$bin" "$tmp/$k.cfg" --quiet --overwrite >/dev/null 2>&1 || true   # a capped solve exits 0 (not --strict)
    /usr/bin/python3 - "$tmp/$k.h5" "$k" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
it = int(f["convergence/iterations"][0]); wall = float(f["convergence/wall_time"][0])
parts = []
n = 0
for name, label in (("mesh/tets", "tets"), ("mesh/triangles", "triangles"), ("mesh/edges", "edges")):
    if name in f and f[name].shape[0] > 0:
        parts.append("%s: %d" % (label, f[name].shape[0])); n += f[name].shape[0]
nv = f["mesh/rest_positions"].shape[0]
print("| %s | %s | %d | %d | %.3f | %.1f | %.1f |" % (sys.argv[2], ", ".join(parts), nv, it, wall,
      n * it / wall / 1e6, wall / (n * it) * 1e9))
PY
  done
  echo
  echo "Element counts are those the output file lists (\`/mesh/tets\`, \`/mesh/triangles\`,"
  echo "\`/mesh/edges\`); the bending items (cloth hinges, rod bend vertices) are not written to the"
  echo "file, so the cloth and rod rows count the triangles or springs only and overstate the time per"
  echo "item that the passes visit. \`cloth\` bends with the default dihedral hinges (one 4-corner"
  echo "element per interior edge), \`cloth_midedge\` with \`bending = \"midedge\"\` (one 12-corner element"
  echo "per triangle). One run per row, on a machine that may be shared: take the ratios as indicative."
} >results/kinds-bench.md
cat results/kinds-bench.md
