#!/usr/bin/env bash
# CPU cost of collision detection (tools/sipd-contact-bench.c, src/collide.c) on noodle piles
# → results/contact-bench.md
#   bash tools/bench-contact.sh [LAYERSxNOODLESxCELLS ...]   (after `make`; about a minute on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BUILD_DIR:-build}/tools/sipd-contact-bench
[ -x "$bin" ] || { echo "build first: make (or set BUILD_DIR)" >&2; exit 1; }
out=results/contact-bench.md
{
  echo "# CPU collision detection: broad and narrow phase on noodle piles"
  echo
  echo "- date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -1), $(nproc) cores"
  echo "- command: \`bash tools/bench-contact.sh $*\`"
  echo "- load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) (other processes share the cores when it is above 0)"
  echo
  echo "## 1 thread"
  echo
  "$bin" --threads 1 "$@"
  echo
  echo "## all cores ($(nproc))"
  echo
  "$bin" "$@"
  cat <<'NOTES'

Columns: surface triangles and vertices of the pile; `create ms` = collide_create (surface
extraction, once per model); candidates = broad-phase output (box overlaps minus exclusions);
pairs = narrow-phase output (gap < d̂); `broad ms` and `narrow ms` = one call each (best of the
repetitions); Mpairs/s = pairs / narrow time; Mcandidates/s = candidates / narrow time.

## Notes

- The pile is contact-dense on purpose: every noodle is 0.5 d̂ from its neighbours in the layer
  and from the noodles crossing it above and below: about 6 pairs per surface triangle, far
  more than a real pile.  Pairs per second is the figure that carries over.
- Broad phase: boxes of x0 ∪ y1 inflated by margin + d̂/2, one hashed uniform grid (cell = mean
  face-box extent), VF queries per surface vertex and EE queries per edge, in fixed blocks of
  256 queries (thread-count-independent output order).  Its cost is dominated by scanning the
  grid cells of each query box (key compare, reporting-cell rule, box test) and the rest-shape
  distance test of same-body candidates (self-contact).
- Narrow phase: one closest-point evaluation per candidate (dist_vf_pair / dist_ee_pair of
  src/physics/distance.h), in blocks of 2048 candidates, ~35–55 ns per candidate on one core.
  Candidates outnumber pairs by ~3–7x here (box tests are loose for diagonal edges).
- Memory: 88 bytes per pair, 8 per candidate, ~60 per grid entry (a box covers 1–8 cells),
  twice for the per-block staging buffers.
- On a shared machine (load average above the core count) the times are up to 1.5x longer
  and two threads may gain nothing: rerun on an idle machine for scaling numbers.
NOTES
} | tee "$out"
