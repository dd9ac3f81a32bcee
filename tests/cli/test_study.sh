#!/usr/bin/env bash
# test_study.sh SIPD_RUN SOURCE_DIR WORK_DIR CASE — issue 26's study scenes (scenes/study/) run
# through tools/defaults-study.py at reduced size, with Newton (the reference of the study):
#   slope   the block on the 20 degree slope (mu 0.5 > tan 20) sticks: Newton's block centre moves
#           less than 5 mm along the slope in 40 frames (0.9 mm measured), and at least 95% of its
#           solves converge; with friction 0.2 < tan 20 the same check fails (it slides 0.34 m)
#   stack   the upper block of the stack stays on the lower one in 30 frames (the tool's "above"
#           check, every frame) and at least 95% of Newton's solves converge; with the upper block
#           20 cm off-centre instead of 5 the check fails (it tips off: off@23, 25 of 30 converged)
# Also that the tool reads what it ran: one row per variant, 41 / 31 frames, every solve counted.
# Exit 77 (skipped) where /usr/bin/python3 lacks numpy or h5py.
set -u
exe=$1; src=$2; work=$3; case_name=$4
py=/usr/bin/python3
$py -c "import h5py, numpy" 2>/dev/null || { echo "skipped: $py lacks h5py or numpy"; exit 77; }
fail() { echo "FAIL [study_$case_name]: $*" >&2; exit 1; }
rm -rf "$work"; mkdir -p "$work"
case $case_name in
slope) frames=40 ;;
stack) frames=30 ;;
*) fail "unknown case $case_name" ;;
esac
$py "$src/tools/defaults-study.py" --exe "$exe" --scenes "$src/scenes/study" --only "$case_name" \
    --frames $frames --threads 1 --no-defaults --json "$work/study.json" --out "$work" >"$work/table.md" ||
  fail "tools/defaults-study.py exited $?"
cat "$work/table.md"
$py - "$work/study.json" "$case_name" $frames <<'PY' || exit 1
import json, sys
rows = json.load(open(sys.argv[1])); name = sys.argv[2]; frames = int(sys.argv[3])
bad = []
if [r["variant"] for r in rows] != ["newton"]:
    bad.append(f"rows {[r['variant'] for r in rows]}, expected only newton")
r = rows[0]
if r["exit"] != 0: bad.append(f"sipd-run exited {r['exit']}: {r['message']}")
if r.get("frames") != frames + 1: bad.append(f"{r.get('frames')} frames read, expected {frames + 1}")
if r.get("solves") != frames: bad.append(f"{r.get('solves')} solves read, expected {frames}")
if r.get("converged", 0) < 0.95 * frames: bad.append(f"only {r.get('converged')} of {r.get('solves')} Newton solves converged")
if name == "slope":
    if not r.get("check", "").startswith("slide") or not r["check_value"] < 5.0:
        bad.append(f"Newton's block slid: {r.get('check')} (at most 5 mm)")
if name == "stack":
    if r.get("check") != "above":
        bad.append(f"Newton's upper block did not stay on the lower one: {r.get('check')}")
for b in bad: print(f"FAIL [study_{name}]: {b}", file=sys.stderr)
if not bad: print(f"study_{name}: Newton {r['converged']} of {r['solves']} converged, {r['check']}")
sys.exit(1 if bad else 0)
PY
