#!/usr/bin/env bash
# output-identity.sh OLD_BIN NEW_BIN [FRAMES] — do two sipd-run binaries give the same CPU output?
#
# Runs every scene of scenes/ and sixteen method variants (vbd, newton, block/diag Jacobi, gd on
# drop; vbd, newton on ball_collision (pairs); vbd, newton, Gauss–Seidel and the sign split on
# cantilever; newton and mixed-fem on rope, mixed-fem on curtain; solver.coarse on drop and
# cantilever) with both binaries (FRAMES frames, default 8, 2 threads, --device cpu) and compares
# every dataset of the two HDF5 files with h5diff, wall times excepted.  Prints the datasets that
# differ; exit status 0 when none does.  Scenes the old binary refuses as bad input (exit 2) and
# the new one runs are listed as not compared (new features), not as differences.  Used for the restructure of issue 17 ("no change in
# results"); needs h5diff (hdf5-tools).
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OLD_BIN NEW_BIN [FRAMES]" >&2; exit 2; }
old=$(readlink -f "$1"); new=$(readlink -f "$2"); frames=${3:-8}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/sipd-identity.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -r "$root/scenes" "$work/scenes"
cd "$work/scenes"
variant() {   # scene method name
  sed -E "s/method = \"[a-z-]+\"; //; s/^solver( *)= \{/solver\1= { method = \"$2\";/" "$1.cfg" > "$3.cfg"
}
variant drop vbd v_drop_vbd; variant drop newton v_drop_newton; variant drop block-jacobi v_drop_bj
variant drop diag-jacobi v_drop_dj; variant drop gd v_drop_gd
variant ball_collision vbd v_ball_vbd; variant ball_collision newton v_ball_newton
variant cantilever vbd v_cant_vbd; variant cantilever newton v_cant_newton
sed -E 's/sweep = "jacobi"/sweep = "gauss-seidel"/' cantilever.cfg > v_cant_gs.cfg
sed -E 's/projection = "expanded"/projection = "sign"/' cantilever.cfg > v_cant_sign.cfg
# the assembled-H solvers on kinds beyond tets (rod stretch + bending; membranes + hinges) and
# two-level SIPD (solver.coarse, with and without ground contact)
variant rope newton v_rope_newton; variant rope mixed-fem v_rope_mixed; variant curtain mixed-fem v_curtain_mixed
sed -E 's/chebyshev = true; \};/chebyshev = true; coarse = { levels = 2; every = 5; size = 4; }; };/' drop.cfg > v_drop_coarse.cfg
sed -E 's/^( *line_search = "auto"; projection = "expanded"; chebyshev = true;) \};/\1 coarse = { levels = 2; every = 5; size = 4; }; };/' \
  cantilever.cfg > v_cant_coarse.cfg
mkdir -p "$work/old" "$work/new"
bad=0; n=0; newonly=""
for f in *.cfg; do
  s=${f%.cfg}
  rc_old=0; rc_new=0
  "$old" "$f" --device cpu --frames "$frames" --threads 2 --quiet --overwrite \
    --output "$work/old/$s.h5" > "$work/old/$s.log" 2>&1 || rc_old=$?
  "$new" "$f" --device cpu --frames "$frames" --threads 2 --quiet --overwrite \
    --output "$work/new/$s.h5" > "$work/new/$s.log" 2>&1 || rc_new=$?
  if [ $rc_old = 2 ] && [ $rc_new = 0 ]; then
    newonly="$newonly $s"; continue   # a scene the old binary refuses as bad input: a new feature
  fi
  [ $rc_old = 0 ] || { echo "$s: old binary failed (exit $rc_old)"; bad=1; }
  [ $rc_new = 0 ] || { echo "$s: new binary failed (exit $rc_new)"; bad=1; }
  [ -f "$work/old/$s.h5" ] && [ -f "$work/new/$s.h5" ] || continue
  n=$((n + 1))
  for ds in $(h5ls -r "$work/old/$s.h5" | awk '$2 == "Dataset" {print $1}' | grep -v wall_time); do
    # h5diff exits 0 when the datasets are equal; an empty dataset (e.g. a rope's 0x4
    # /mesh/tets) is "not comparable" to it yet exits 0: equal.  1: differences, 2: error.
    rd=0; r=$(h5diff "$work/old/$s.h5" "$work/new/$s.h5" "$ds" 2>&1) || rd=$?
    [ $rd = 0 ] || { echo "$s $ds: $(echo "$r" | tail -1)"; bad=1; }
  done
done
[ -z "$newonly" ] || echo "not compared (the old binary refuses them, exit 2; the new one runs them):$newonly"
echo "output-identity: $n scenes x $frames frames compared: $([ $bad = 0 ] && echo identical || echo DIFFERENT)"
exit $bad
