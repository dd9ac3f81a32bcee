#!/usr/bin/env bash
# make-meshes.sh — regenerate the gmsh meshes of the contact example scenes from the .geo
# sources in this directory into scenes/meshes/ (ASCII msh 2.2, tets only: each .geo defines a
# single Physical Volume, so gmsh writes no surface triangles; sipd-run extracts the surface
# from the tets anyway).
#
# Written with gmsh 4.8.4 (Debian 12 package `gmsh`: `apt-get install gmsh`; `gmsh --version` prints 4.8.4). Other
# gmsh versions mesh the unstructured parts (ball, bowl) differently; the extruded ones
# (noodle, noodle_fine, beam_thin) are structured and should come out the same.
# Meshing runs single-threaded, so the output is reproducible for one gmsh version.
#
#   mesh         source          vertices  tets   surface triangles
#   ball         ball.geo          391     1464     536   solid sphere r = 0.1 m at the origin
#   bowl         bowl.geo          748     2152    1492   shell r 0.25..0.27 m, y <= 0, opening up
#   noodle       noodle.geo        175      432     300   hexagonal rod r 0.01 m, 0.3 m along x
#   noodle_fine  noodle.geo       3030    13800    2492   12-gon rod, 100 layers (GPU benchmark)
#   beam_thin    beam_thin.geo     656     2160     996   0.6 x 0.04 x 0.04 m along x
#   stress_bar   stress_bar.geo    145      356     276   0.3 x 0.1 x 0.1 m bar (stress tests)
#   stress_bar_fine stress_bar.geo 351     1099     596   the same, H = 0.025
#   bunny        bunny.geo         547     1726          a bunny-like body 0.36 m long (seed 002 Fig. 2)
#
# Usage: bash tools/meshes/make-meshes.sh [OUTDIR]   (default: scenes/meshes of this checkout)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$(cd "$here/../.." && pwd)/scenes/meshes}
mkdir -p "$out"
GMSH=${GMSH:-gmsh}
echo "make-meshes: $($GMSH --version 2>&1 | head -1) -> $out" >&2

mesh() {  # mesh NAME GEO [gmsh -setnumber pairs...]
    local name=$1 geo=$2; shift 2
    local args=()
    while [ $# -gt 0 ]; do args+=(-setnumber "$1" "$2"); shift 2; done
    "$GMSH" "$here/$geo" -3 -format msh22 -nt 1 "${args[@]}" -o "$out/$name.msh" > "$out/.$name.log" 2>&1 \
        || { cat "$out/.$name.log" >&2; exit 1; }
    rm -f "$out/.$name.log"
    echo "  $name.msh ($(stat -c %s "$out/$name.msh") bytes)" >&2
}

mesh ball        ball.geo
mesh bowl        bowl.geo
mesh noodle      noodle.geo                             # NC 6, NL 24: 432 tets
mesh noodle_fine noodle.geo NC 12 NL 100 HD 0.35        # 13.8k tets
mesh beam_thin   beam_thin.geo                          # N 4, NL 40: 2160 tets
mesh stress_bar   stress_bar.geo                         # H 0.04: 356 tets
mesh stress_bar_fine stress_bar.geo H 0.025              # 1099 tets
mesh bunny       bunny.geo                              # lc 0.03: 547 vertices, 1726 tets
