#!/usr/bin/env bash
# test_stress.sh CASE SIPD_RUN STRESS_CHECK SOURCE_DIR — bodies[].initial_positions end to end
# and the SIPD paper's stress tests (scenes/stress_*.cfg).  stress_check (tests/verify/stress_check.c)
# reads the outputs with HDF5 alone: J = det F per tet, frame comparisons.
#   initpos_node | initpos_msh | initpos_h5 | initpos_errors | tool | stress CASE NU [fine]
set -u
case_name=$1; bin=$2; check=$3; src=$4; shift 4
tmp=$(mktemp -d /tmp/sipd_stress_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL [$case_name $*]" >&2; exit 1; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
meshes=$src/scenes/meshes

expect_rc() { # expected-rc stderr-pattern -- args...
  local want=$1 pat=$2; shift 3
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  [ "$rc" = "$want" ] || { cat "$tmp/err" >&2; fail "sipd-run $* exited $rc, expected $want"; }
  [ -z "$pat" ] || grep -qE -- "$pat" "$tmp/err" || { cat "$tmp/err" >&2; fail "stderr of 'sipd-run $*' lacks /$pat/"; }
}

# scene NAME 'BODY KEYS' [FRAMES]: the stress bar in zero gravity, one body with extra keys
scene() {
  cat >"$tmp/$1.cfg" <<EOF
time = { dt = 0.0166667; frames = ${3:-2}; };
solver = { sweep = "jacobi"; iterations = 50; tolerance = 1.0e-6; chebyshev = true; };
gravity = [0.0, 0.0, 0.0];
materials = ( { name = "rubber"; youngs = 1.0e5; poisson = 0.45; density = 1000.0; } );
bodies = ( { mesh = "$meshes/stress_bar.msh"; material = "rubber";
             $2 } );
output = { file = "$1.h5"; xdmf = false; };
EOF
}

# a copy of stress_bar.msh (msh 2.2 ASCII) with its node coordinates taken from a .node file
msh_from_node() { # NODE OUT.msh
  python3 - "$meshes/stress_bar.msh" "$1" "$2" <<'EOF'
import sys
msh, node, out = sys.argv[1:]
rows = [l.split("#")[0].split() for l in open(node)]
rows = [r for r in rows if r][1:]
lines = open(msh).read().split("\n")
i = lines.index("$Nodes")
n = int(lines[i + 1])
for k in range(n):
    tag = lines[i + 2 + k].split()[0]
    lines[i + 2 + k] = " ".join([tag] + rows[k][1:4])
open(out, "w").write("\n".join(lines))
EOF
}

case $case_name in
initpos_node)
  # frame 0 is the file's positions with the body transform applied (translate here)
  scene a 'translate = [1.0, 2.0, -3.0]; initial_positions = "'"$meshes"'/stress_bar_stretch.node";' 2
  "$bin" --quiet "$tmp/a.cfg" || fail "run exit $?"
  "$check" frame0 "$tmp/a.h5" "$meshes/stress_bar_stretch.node" 1.0 2.0 -3.0 || fail "frame 0 != the file + translate"
  # ... and not the rest shape (the check can fail)
  ! "$check" frame0 "$tmp/a.h5" "$meshes/stress_bar_flat.node" 1.0 2.0 -3.0 >/dev/null || fail "frame0 check accepts anything"
  # a relative path resolves against the scene's directory; --dry-run prints the resolved key
  mkdir -p "$tmp/sub" && cp "$meshes/stress_bar_flat.node" "$tmp/sub/flat.node"
  scene b 'initial_positions = "sub/flat.node";' 1
  "$bin" --dry-run "$tmp/b.cfg" >"$tmp/out" || fail "dry-run exit $?"
  grep -q "initial_positions = \"$tmp/sub/flat.node\";" "$tmp/out" || fail "dry-run: $(grep initial_ "$tmp/out")"
  (cd / && "$bin" --quiet "$tmp/b.cfg") || fail "run from / exit $?"
  "$check" frame0 "$tmp/b.h5" "$meshes/stress_bar_flat.node" 0 0 0 || fail "frame 0 != sub/flat.node"
  # the rest shape stays the mesh's
  "$check" rest "$tmp/b.h5" 1e-2 0 >/dev/null && fail "frame 0 of a flattened start reads as the rest shape"
  ;;
initpos_msh)
  msh_from_node "$meshes/stress_bar_stretch.node" "$tmp/stretch.msh"
  scene a 'initial_positions = "stretch.msh";' 1
  "$bin" --quiet "$tmp/a.cfg" || fail "run exit $?"
  "$check" frame0 "$tmp/a.h5" "$meshes/stress_bar_stretch.node" 0 0 0 || fail "frame 0 != the .msh positions"
  # another topology is refused: one tet's corner replaced by another vertex
  python3 - "$tmp/stretch.msh" "$tmp/other.msh" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index("$Elements")
for k in range(i + 2, len(lines)):
    w = lines[k].split()
    if len(w) > 4 and w[1] == "4":
        nodes = w[-4:]
        w[-1] = next(str(t) for t in range(1, 200) if str(t) not in nodes)
        lines[k] = " ".join(w)
        break
open(sys.argv[2], "w").write("\n".join(lines))
EOF
  scene b 'initial_positions = "other.msh";' 1
  expect_rc 2 "b\.cfg:6: bodies\[0\]\.initial_positions: .*other\.msh: tet 1 has other vertices .*identical topology" -- "$tmp/b.cfg"
  [ ! -e "$tmp/b.h5" ] || fail "an output was written for a refused initial_positions"
  ;;
initpos_h5)
  # an earlier run's frame: world positions, the body transform is NOT applied again
  scene a 'initial_positions = "'"$meshes"'/stress_bar_stretch.node";' 3
  "$bin" --quiet "$tmp/a.cfg" || fail "run a exit $?"
  scene b 'translate = [5.0, 0.0, 0.0]; initial_positions = "a.h5:2";' 1
  "$bin" --quiet "$tmp/b.cfg" || fail "run b exit $?"
  "$check" frames "$tmp/a.h5" 2 "$tmp/b.h5" 0 || fail "frame 0 of b != frame 2 of a"
  ! "$check" frames "$tmp/a.h5" 1 "$tmp/b.h5" 0 >/dev/null || fail "frames check accepts another frame"
  scene c 'initial_positions = "a.h5:-1:0";' 1    # -1 = the last frame; body 0 of that run
  "$bin" --quiet "$tmp/c.cfg" || fail "run c exit $?"
  "$check" frames "$tmp/a.h5" 3 "$tmp/c.h5" 0 || fail "a.h5:-1:0 is not the last frame"
  scene d 'initial_positions = "a.h5:4";' 1
  expect_rc 2 "d\.cfg:6: bodies\[0\]\.initial_positions: .*a\.h5: frame out of range: the file has 4 frames" -- "$tmp/d.cfg"
  scene e 'initial_positions = "a.h5:0:1";' 1
  expect_rc 2 "e\.cfg:6: bodies\[0\]\.initial_positions: .*body 1 of that run has 0 vertices" -- "$tmp/e.cfg"
  scene f 'initial_positions = "nothere.h5:0";' 1
  expect_rc 2 "f\.cfg:6: bodies\[0\]\.initial_positions: file .*nothere\.h5' not found" -- "$tmp/f.cfg"
  ;;
initpos_errors)
  node=$meshes/stress_bar_stretch.node
  # one vertex short: the header says 144
  sed -e 's/^145 3 0 0$/144 3 0 0/' -e '$d' "$node" >"$tmp/short.node"
  scene a 'initial_positions = "short.node";' 1
  expect_rc 2 "a\.cfg:6: bodies\[0\]\.initial_positions: .*short\.node:3: 144 vertices, the mesh has 145" -- "$tmp/a.cfg"
  [ ! -e "$tmp/a.h5" ] || fail "an output was written for a wrong vertex count"
  # a non-finite coordinate
  sed 's/^7 \([^ ]*\) /7 nan /' "$node" >"$tmp/nan.node"
  scene b 'initial_positions = "nan.node";' 1
  expect_rc 2 "b\.cfg:6: bodies\[0\]\.initial_positions: .*nan\.node:11: vertex 7: coordinate is not finite" -- "$tmp/b.cfg"
  # vertices out of order
  awk 'NR==5{l=$0; next} NR==6{print; print l; next} {print}' "$node" >"$tmp/swap.node"
  scene c 'initial_positions = "swap.node";' 1
  expect_rc 2 "c\.cfg:6: bodies\[0\]\.initial_positions: .*swap\.node:5: vertex index 2, expected 1" -- "$tmp/c.cfg"
  # a missing file is a scene error
  scene d 'initial_positions = "nothere.node";' 1
  expect_rc 2 "d\.cfg:6: bodies\[0\]\.initial_positions: file .*nothere\.node' not found" -- "$tmp/d.cfg"
  ;;
tool)
  # the committed starts are what the tool writes
  tool=$src/tools/make-initial-positions.py
  python3 "$tool" "$meshes/stress_bar.msh" "$tmp/flat.node" flatten 2>/dev/null || fail "tool flatten"
  python3 "$tool" "$meshes/stress_bar.msh" "$tmp/stretch.node" stretch 2>/dev/null || fail "tool stretch"
  python3 "$tool" "$meshes/stress_bar.msh" "$tmp/random.node" random 2>/dev/null || fail "tool random"
  for c in flat stretch random; do
    diff <(grep -v '^#' "$tmp/$c.node") <(grep -v '^#' "$meshes/stress_bar_$c.node") >/dev/null ||
      fail "scenes/meshes/stress_bar_$c.node differs from what the tool writes"
  done
  # and they are what they claim: extents along the axis (rest 0.3 x 0.1 x 0.1 m) and radius
  python3 - "$tmp" <<'EOF' || fail "tool output geometry"
import math, sys
def load(p):
    r = [l.split() for l in open(p) if l.strip() and not l.startswith("#")]
    return [tuple(map(float, x[1:4])) for x in r[1:]]
def ext(pts, k): return max(p[k] for p in pts) - min(p[k] for p in pts)
d = sys.argv[1]
f, s, r = load(d + "/flat.node"), load(d + "/stretch.node"), load(d + "/random.node")
assert abs(ext(f, 1) - 0.001) < 1e-12 and abs(ext(f, 0) - 0.3) < 1e-12, ext(f, 1)
assert abs(ext(s, 0) - 0.9) < 1e-12 and abs(ext(s, 1) - 0.1) < 1e-12, ext(s, 0)
R = math.sqrt(0.3**2 + 0.1**2 + 0.1**2)
assert all(abs(math.sqrt(sum(c * c for c in p)) - R) < 1e-12 for p in r)
EOF
  # the same vertex order for a TetGen mesh: vertex i keeps its rest coordinates scaled
  python3 "$tool" "$meshes/cube" "$tmp/cube.node" stretch --axis all --factor 2 2>/dev/null || fail "tool on TetGen"
  python3 - "$meshes/cube.node" "$tmp/cube.node" <<'EOF' || fail "TetGen vertex order"
import sys
def load(p):
    r = [l.split("#")[0].split() for l in open(p)]
    r = [x for x in r if x]
    return [tuple(map(float, x[1:4])) for x in r[1:1 + int(r[0][0])]]
a, b = load(sys.argv[1]), load(sys.argv[2])
c = [0.5 * (min(p[k] for p in a) + max(p[k] for p in a)) for k in range(3)]
assert len(a) == len(b)
assert all(abs(q[k] - (c[k] + 2 * (p[k] - c[k]))) < 1e-12 for p, q in zip(a, b) for k in range(3))
EOF
  ;;
stress)
  # the scene as committed, with poisson = NU: recovers its rest shape within its 2 s
  # (MESH "fine": on stress_bar_fine.msh with its own start, the scene's budget unchanged)
  which=$1; nu=$2; fine=${3:-}
  sed -e "s|poisson = [0-9.]*|poisson = $nu|" -e "s|\"meshes/|\"$meshes/|g" \
      -e "s|^output *=.*|output = { file = \"out.h5\"; xdmf = false; };|" \
      "$src/scenes/stress_$which.cfg" >"$tmp/s.cfg"
  [ -z "$fine" ] || sed -i "s|/stress_bar\([._]\)|/stress_bar_fine\1|g" "$tmp/s.cfg"
  [ -z "$fine" ] || grep -q "stress_bar_fine.msh" "$tmp/s.cfg" || fail "could not switch to the fine mesh"
  grep -q "poisson = $nu;" "$tmp/s.cfg" || fail "could not set poisson"
  "$bin" --quiet "$tmp/s.cfg" || fail "run exit $?"
  "$check" rest "$tmp/out.h5" 1e-2 || fail "the bar did not recover its rest shape"
  "$check" rest "$tmp/out.h5" 1e-2 0 >/dev/null && fail "frame 0 already at rest: not a stress test"
  # ... and every solve of the run reached the scene's tolerance (docs/convergence.md: none
  # ended at the iteration cap, stalled or diverged): a recovery by under-converged steps would
  # be the budget's luck, not the method's result
  nc=$(h5dump -a /solves_not_converged "$tmp/out.h5" 2>/dev/null | sed -n 's/.*"\([0-9]* of [0-9]*\)".*/\1/p')
  [ -n "$nc" ] || fail "no solves_not_converged attribute in the output"
  echo "solves not converged: $nc ($(h5dump -a /solves_by_status "$tmp/out.h5" | sed -n 's/^ *(0): "\(.*\)"$/\1/p'))"
  [ "${nc%% of *}" = 0 ] || fail "$nc solves did not converge at the scene's budget"
  ;;
*) fail "unknown case" ;;
esac
echo "ok [$case_name $*]"
