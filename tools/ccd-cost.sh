#!/usr/bin/env bash
# ccd-cost.sh [--exe BIN] [--reps N] [--threads N] [--frames N] [SCENE ...] — the cost of
# contact.ccd (issue 27, docs/contact.md#no-tunnelling): each study scene (scenes/study/*.cfg with
# contact, default slope stack ball_cloth rods throw) run with the filter (the scene as it is, the
# default) and without it (a copy with `ccd = false;` in its contact group), interleaved, N reps
# each, one process at a time.  Prints a Markdown table: wall time (the run's wall_time_seconds),
# iterations, time per iteration (median of the reps), their ratios on/off, the solves converged,
# the smallest gap of a written frame and the largest distance between the two runs' final
# positions (mm).  Needs /usr/bin/python3 with numpy and h5py.
set -eu
exe=build/sipd-run; reps=2; threads=1; frames=""
while [ $# -gt 0 ]; do
  case $1 in
    --exe) exe=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    *) break ;;
  esac
done
scenes=${*:-slope stack ball_cloth rods throw}
exe=$(readlink -f "$exe")
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src"/scenes/study/*.msh "$work/"
for s in $scenes; do
  for v in on off; do
    sed -e "s#^output.*#output = { file = \"$work/${s}_$v.h5\"; };#" "$src/scenes/study/$s.cfg" >"$work/${s}_$v.cfg"
    [ "$v" = off ] && sed -i 's/^contact *= *{/contact = { ccd = false;/' "$work/${s}_$v.cfg"
    [ -n "$frames" ] && sed -i "s/frames = [0-9]*;/frames = $frames;/" "$work/${s}_$v.cfg"
  done
  for r in $(seq "$reps"); do
    for v in on off; do
      "$exe" --threads "$threads" "$work/${s}_$v.cfg" >/dev/null 2>&1 || echo "$s $v: exit $?" >&2
      /usr/bin/python3 -c "
import h5py, sys; f = h5py.File('$work/${s}_$v.h5', 'r')
print(f.attrs['wall_time_seconds'], int(f['convergence/iterations'][:].sum()))" >>"$work/${s}_$v.times"
      cp "$work/${s}_$v.h5" "$work/${s}_$v.keep.h5"
    done
  done
done
/usr/bin/python3 - "$work" $scenes <<'PY'
import sys, h5py, numpy as np
work = sys.argv[1]
print("| scene | wall on / off (s) | iterations on / off | s per iteration on / off | ratio per iteration | ratio per run | converged on / off | smallest gap on / off (mm) | on vs off, final positions (mm) |")
print("|---|---|---|---|---|---|---|---|---|")
for s in sys.argv[2:]:
    t = {}; it = {}; f = {}
    for v in ("on", "off"):
        rows = np.loadtxt(f"{work}/{s}_{v}.times", ndmin=2)
        t[v] = np.median(rows[:, 0]); it[v] = int(rows[0, 1])
        f[v] = h5py.File(f"{work}/{s}_{v}.keep.h5", "r")
    pi = {v: t[v] / max(it[v], 1) for v in t}
    conv = {v: int((f[v]["convergence/status"][:] == 0).sum()) for v in f}
    n = len(f["on"]["convergence/status"][:])
    gap = {v: f[v]["convergence/min_gap"][:].min() * 1e3 if "min_gap" in f[v]["convergence"] else float("nan") for v in f}
    d = np.sqrt(((f["on"]["frames/positions"][-1] - f["off"]["frames/positions"][-1]) ** 2).sum(1)).max() * 1e3
    print(f"| {s} | {t['on']:.2f} / {t['off']:.2f} | {it['on']} / {it['off']} | {pi['on']*1e3:.3f}m / {pi['off']*1e3:.3f}m | "
          f"{pi['on']/pi['off']:.3f} | {t['on']/t['off']:.3f} | {conv['on']} / {conv['off']} of {n} | {gap['on']:.2f} / {gap['off']:.2f} | {d:.2f} |")
PY
