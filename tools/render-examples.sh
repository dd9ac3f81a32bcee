#!/usr/bin/env bash
# Regenerate the committed pictures in results/img/ from the example scenes, in one command:
#
#     bash tools/render-examples.sh [OUTDIR]        (default results/img; run from anywhere)
#
# Runs build/sipd-run on scenes/{cantilever,compressed_block,twist,stretch,noodles,
# twisted_beams,ball_collision,stretch_materials,drape_sphere,unsolved/cloth_ball,unsolved/hair}.cfg into a
# temporary directory (the HDF5 files are deleted afterwards), then tools/render.py and
# tools/plot_convergence.py. About 4 minutes (the thin-body contact scenes: 3 of them). Needs `make` first, python3 with numpy, h5py and
# matplotlib (pip install numpy h5py matplotlib); ffmpeg only with MP4=1, which also writes
# one video per scene to OUTDIR/../video/ (not committed).
# SIPD_RUN=path overrides the simulator binary.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/results/img}"
sim="${SIPD_RUN:-$root/build/sipd-run}"
render="python3 $root/tools/render.py --quiet"
plotconv="python3 $root/tools/plot_convergence.py"

if [[ ! -x "$sim" ]]; then
    echo "render-examples.sh: $sim not found: run 'make' first (or set SIPD_RUN)" >&2
    exit 1
fi
python3 -c 'import numpy, h5py, matplotlib' 2>/dev/null || {
    echo "render-examples.sh: needs numpy, h5py, matplotlib: pip install numpy h5py matplotlib" >&2
    exit 1
}

tmp="$(mktemp -d "${TMPDIR:-/tmp}/sipd-render.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

for s in cantilever compressed_block twist stretch noodles twisted_beams ball_collision stretch_materials \
         stretch_membranes drape_sphere unsolved/cloth_ball unsolved/hair; do
    echo "render-examples.sh: simulating $s" >&2
    "$sim" "$root/scenes/$s.cfg" --output "$tmp/${s#unsolved/}.h5" --quiet
done

# Cantilever at its largest sag (t = 0.35 s, frame 21 of 60), coloured by displacement, with
# the straight rest shape as a ghost.
$render "$tmp/cantilever.h5" --frames 21 --png "$out/cantilever.png" \
    --color displacement --ghost --az 30 --el 20

# Released block: compressed to 60% inside its rest shape (t = 0), then just after release
# (t = 0.033 s), when it overshoots the rest size by ~3.5%.
$render "$tmp/compressed_block.h5" --frames 0,2 --png "$out/compressed_block" \
    --ghost --az 35 --el 25 --size 720x600

# Twisted bar: the end slabs turn a quarter turn per second each in opposite directions, so
# the relative twist is a quarter turn at t = 0.5 s (frame 30), a half turn at t = 1 s
# (frame 60). The README's picture is three quarters (t = 1.5 s, frame 90).
$render "$tmp/twist.h5" --frames 30,60 --png "$out/twist" --az 25 --el 30
$render "$tmp/twist.h5" --frames 90 --png "$out/twist.png" --az 25 --el 30

# Quasi-static stretch to 150 %, nearly side on, coloured by displacement, with the rest
# shape as a ghost (visible above and below: the lateral contraction).
$render "$tmp/stretch.h5" --frames last --png "$out/stretch.png" --ghost --az 8 --el 12 \
    --color displacement --size 960x480

# Seed 002's Fig. 3: ARAP, corotational and neo-Hookean bars at 150%, seen from above (the
# rest shape in grey): ARAP keeps its width, the other two neck.
$render "$tmp/stretch_materials.h5" --frames last --png "$out/stretch_materials.png" --ghost --az 0 --el 85 \
    --color body --size 960x540 --title "Uniaxial stretch to 150%, seen from above" \
    --subtitle "back to front: ARAP (no necking), corotational, neo-Hookean; E = 1 MPa, nu = 0.3; grey: rest shape"

# The same with membrane squares (shells, the models' plane-stress forms).
$render "$tmp/stretch_membranes.h5" --frames last --png "$out/stretch_membranes.png" --ghost --az 0 --el 85 \
    --color body --size 960x540 --title "Membranes stretched to 150%, seen from above" \
    --subtitle "back to front: ARAP (no necking), corotational, neo-Hookean; E = 1 MPa, nu = 0.3, 1 cm; grey: rest shape"

# Contact: the noodles at rest in the bowl (seen from above), the two beams wound into a rope
# (t = 4 s), the balls flattened against each other (t = 0.15 s).
$render "$tmp/noodles.h5" --frames last --png "$out/noodles.png" --az 30 --el 60
$render "$tmp/twisted_beams.h5" --frames last --png "$out/twisted_beams.png" --az 30 --el 25
$render "$tmp/ball_collision.h5" --times 0.15 --png "$out/ball_collision.png" --az 20 --el 20

# Thin bodies in contact: the cloth draped over the sphere and the cloth over the rubber ball
# (last frame, t = 0.75 s), the hair bundle mid-swing (t = 0.5 s).
$render "$tmp/drape_sphere.h5" --frames last --png "$out/drape_sphere.png" --az 30 --el 25
$render "$tmp/cloth_ball.h5" --frames last --png "$out/cloth_ball.png" --az 30 --el 25
$render "$tmp/hair.h5" --times 0.5 --png "$out/hair.png" --az 20 --el 15

# Convergence log of the cantilever run (first, middle and last solve).
$plotconv "$tmp/cantilever.h5" --png "$out/cantilever_convergence.png"

if [[ "${MP4:-0}" == 1 ]]; then
    vid="$(dirname "$out")/video"
    $render "$tmp/cantilever.h5" --mp4 "$vid/cantilever.mp4" --color displacement --ghost
    $render "$tmp/compressed_block.h5" --mp4 "$vid/compressed_block.mp4" --ghost --az 35 --el 25 \
        --size 720x600
    $render "$tmp/twist.h5" --mp4 "$vid/twist.mp4" --az 25 --el 30
    $render "$tmp/stretch.h5" --mp4 "$vid/stretch.mp4" --ghost --az 8 --el 12 \
        --color displacement --size 960x480 --fps 5
fi

ls -l "$out" >&2
