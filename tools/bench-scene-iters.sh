#!/usr/bin/env bash
# bench-scene-iters.sh REPS BIN_A BIN_B SCENE... — iterations per step and time per iteration of
# two sipd-run binaries on whole scenes (results/friction-anchor-27.md): per scene REPS runs of
# each, interleaved (A B, B A, ...), one thread (OMP_NUM_THREADS=1, --threads 1).  Prints per run
# the solves, the iterations (and per step) and the solve time summed over /convergence
# (wall_time: the solves only, not loading or output) and the time per iteration.  Needs h5dump.
set -u
[ $# -ge 4 ] || { sed -n '2,6p' "$0" >&2; exit 2; }
reps=$1; A=$2; B=$3; shift 3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sum() { h5dump -y -w 0 -o "$tmp/col.txt" -d "$1" "$2" >/dev/null && tr -s ', \n' '\n' <"$tmp/col.txt" | grep -E '^[-0-9.e+]+$' | awk '{s+=$1; n++} END {printf "%.6g %d", s, n}'; }
for sc in "$@"; do
  for r in $(seq 1 "$reps"); do
    if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
    for w in $order; do
      bin=$A; [ $w = B ] && bin=$B
      out=$tmp/$w.h5; rm -f $out $out.ckpt
      OMP_NUM_THREADS=1 "$bin" "$sc" --threads 1 --quiet --output $out || echo "run failed"
      read it n < <(sum /convergence/iterations $out)
      read wt _ < <(sum /convergence/wall_time $out)
      awk -v s="$(basename $sc)" -v w=$w -v it=$it -v n=$n -v wt=$wt 'BEGIN {printf "%-10s %s solves %d iterations %d (%.2f/step) solve time %.3f s  %.3f ms/iteration\n", s, w, n, it, it/n, wt, 1e3*wt/it}'
    done
  done
done
