#!/usr/bin/env bash
# test_cli.sh CASE SIPD_RUN SOURCE_DIR [H5ATTR] — the sipd-run command line end to end: exit codes,
# error messages, --dry-run, the HDF5 layout of a real run, and killed/interrupted runs.
set -u
case_name=$1; bin=$2; src=$3; h5attr=${4:-}
tmp=$(mktemp -d /tmp/sipd_cli_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
# seconds from $1 to $2 (date +%s.%N), and whether $1 < $2 (awk: bc is not in every install)
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
below() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x < y) }'; }
# h5diff exits 0 when the datasets have different shapes ("Some objects are not comparable"):
# every comparison here counts that as a difference
h5diff() {
  local out rc
  out=$(command h5diff "$@" 2>&1); rc=$?
  [ -n "$out" ] && echo "$out"
  [ $rc = 0 ] && ! grep -q "not comparable" <<<"$out"
}

expect_rc() { # expected-rc stderr-pattern -- args...
  local want=$1 pat=$2; shift 3
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  [ "$rc" = "$want" ] || { cat "$tmp/err" >&2; fail "sipd-run $* exited $rc, expected $want"; }
  [ -z "$pat" ] || grep -qE -- "$pat" "$tmp/err" || { cat "$tmp/err" >&2; fail "stderr of 'sipd-run $*' lacks /$pat/"; }
}

# number of frames in an output file (dimension 0 of /frames/positions)
nframes() { h5dump -H -d /frames/positions "$1" | sed -n 's/.*DATASPACE  SIMPLE { ( \([0-9]*\),.*/\1/p'; }

case $case_name in
help)
  "$bin" --help >"$tmp/out" 2>&1 || fail "--help exit $?"
  grep -q "usage: sipd-run SCENE" "$tmp/out" || fail "--help prints no usage"
  grep -q -- "--dry-run" "$tmp/out" || fail "--help does not list --dry-run"
  grep -q -- "--overwrite" "$tmp/out" || fail "--help does not list --overwrite"
  "$bin" --version >"$tmp/out" || fail "--version exit $?"
  grep -q "^sipd-run [0-9]" "$tmp/out" || fail "--version output: $(cat "$tmp/out")"
  ;;
usage_errors)
  expect_rc 2 "no scene file" --
  expect_rc 2 "unknown option" -- --bogus "$src/scenes/cantilever.cfg"
  expect_rc 2 "--frames: expected an integer" -- --frames abc "$src/scenes/cantilever.cfg"
  expect_rc 2 "--device: expected auto, cuda or cpu" -- --device tpu "$src/scenes/cantilever.cfg"
  expect_rc 2 "nonexistent.cfg" -- "$tmp/nonexistent.cfg"
  expect_rc 2 "expected one scene file" -- a.cfg b.cfg
  # --device cuda: exit 1 with a clear message when there is no CUDA backend or no device;
  # on a machine with a GPU the run must work and record the device instead
  "$bin" --device cuda --frames 1 --quiet --output "$tmp/cuda.h5" "$src/scenes/cantilever.cfg" 2>"$tmp/err"; rc=$?
  if [ $rc = 0 ]; then
    h5dump -a /device "$tmp/cuda.h5" | grep -q '"cuda: ' || fail "--device cuda ran but the device attribute is not cuda"
  else
    [ $rc = 1 ] || fail "--device cuda without a device exited $rc, expected 1"
    grep -q "no CUDA" "$tmp/err" || fail "--device cuda message: $(cat "$tmp/err")"
  fi
  ;;
bad_scene)
  printf 'time = { dt = 0.01; frames = 2; };\nsolver = { iterations = ; };\n' >"$tmp/syntax.cfg"
  expect_rc 2 "syntax.cfg:2:" -- "$tmp/syntax.cfg"
  sed 's/iterations = 200/iteratons = 200/' "$src/scenes/cantilever.cfg" >"$src/scenes/.typo_$$.cfg"
  "$bin" "$src/scenes/.typo_$$.cfg" >"$tmp/out" 2>"$tmp/err"; rc=$?
  rm -f "$src/scenes/.typo_$$.cfg"
  [ $rc = 2 ] || fail "typo scene exit $rc"
  grep -qE "\.typo_$$\.cfg:3: .*iteratons" "$tmp/err" || { cat "$tmp/err" >&2; fail "typo not reported with file:line:key"; }
  ;;
bad_mesh)
  mkdir -p "$tmp/m"
  head -c 300 "$src/scenes/meshes/beam.node" >"$tmp/m/beam.node"
  cp "$src/scenes/meshes/beam.ele" "$tmp/m/"
  sed -e 's|"meshes/beam"|"m/beam"|' -e 's|../results/cantilever.h5|out.h5|' "$src/scenes/cantilever.cfg" >"$tmp/s.cfg"
  expect_rc 2 "m/beam.node" -- "$tmp/s.cfg"
  [ ! -e "$tmp/out.h5" ] || fail "an output file was created for a bad mesh"
  # a surface mesh is a shell body; as a solid it is refused naming the scene line
  sed -e 's|"meshes/beam"|"'"$src"'/tests/data/meshes/cloth_quads.obj"; elements = "solid"|' \
      -e 's|../results/cantilever.h5|out.h5|' "$src/scenes/cantilever.cfg" >"$tmp/c.cfg"
  expect_rc 2 "solid needs tetrahedra" -- "$tmp/c.cfg"
  grep -q "c.cfg:[0-9]*: bodies\[0\]: elements = \"solid\": solid needs tetrahedra, but .*cloth_quads.obj has triangles" "$tmp/err" ||
    fail "shell mesh message: $(cat "$tmp/err")"
  [ ! -e "$tmp/out.h5" ] || fail "an output file was created for a shell body"
  ;;
dry_run)
  "$bin" --dry-run --output "$tmp/never.h5" "$src/scenes/cantilever.cfg" >"$tmp/out" 2>"$tmp/err" || fail "dry-run exit $?"
  grep -q "iterations = 200;" "$tmp/out" || fail "dry-run does not print solver.iterations"
  grep -q "line_search = \"auto\";" "$tmp/out" || fail "dry-run does not print line_search"
  grep -q "# model: 1 bodies, 99 vertices, 240 tets" "$tmp/out" || fail "dry-run model summary: $(tail -1 "$tmp/out")"
  [ ! -e "$tmp/never.h5" ] || fail "dry-run wrote an output file"
  # the per-body summary, against counts taken from the mesh files themselves: vertices (.node
  # header), tets (.ele header), surface triangles (.face header), bounding box of the nodes,
  # pinned = the nodes in the pin box |x| <= 0.01 (cantilever.cfg), nothing moved
  m=$src/scenes/meshes/beam
  nv=$(awk '!/^#/ && NF {print $1; exit}' "$m.node"); nt=$(awk '!/^#/ && NF {print $1; exit}' "$m.ele")
  nf=$(awk '!/^#/ && NF {print $1; exit}' "$m.face")
  box=$(awk '!/^#/ && NF { if (h++ == 0) next; for (k = 2; k <= 4; k++) { if (!(k in lo) || $k < lo[k]) lo[k] = $k;
             if (!(k in hi) || $k > hi[k]) hi[k] = $k } }
             END { printf "[%.6g, %.6g, %.6g] to [%.6g, %.6g, %.6g]", lo[2], lo[3], lo[4], hi[2], hi[3], hi[4] }' "$m.node")
  np=$(awk '!/^#/ && NF { if (h++ == 0) next; if ($2 >= -0.01 && $2 <= 0.01) n++ } END { print n }' "$m.node")
  want="# bodies[0]: solid, $nv vertices, $nt tets, $nf surface triangles, bbox $box, $np pinned, 0 moved"
  grep -qxF "$want" "$tmp/out" || fail "per-body summary: expected '$want', got '$(grep '^# bodies' "$tmp/out")'"
  [ "$np" -gt 0 ] || fail "test set-up: no node in the pin box"
  ! grep -q "warning" "$tmp/err" || fail "the cantilever warns: $(cat "$tmp/err")"
  # the summary lines are comments: the printed scene still reads back
  "$bin" --dry-run --output "$tmp/never.h5" "$tmp/out" >/dev/null 2>"$tmp/err" || fail "the dry-run output does not read back: $(cat "$tmp/err")"
  ;;
dry_run_device)
  # --dry-run's device line: the backend registry's choice and reason (src/registry.h), one line
  "$bin" --dry-run --device cpu --output "$tmp/never.h5" "$src/scenes/drop.cfg" >"$tmp/out" 2>"$tmp/err" ||
    fail "dry-run --device cpu exit $?"
  [ "$(grep -c '^# device: ' "$tmp/out")" = 1 ] || fail "dry-run prints $(grep -c '^# device: ' "$tmp/out") device lines"
  grep -qxF "# device: cpu (device cpu requested)" "$tmp/out" || fail "device line: $(grep '^# device' "$tmp/out")"
  # auto with a CPU-only method: the CPU, and why (no CUDA backend, no device, or the method)
  "$bin" --dry-run --device auto --output "$tmp/never.h5" "$src/scenes/mixed_fig4.cfg" >"$tmp/out" 2>"$tmp/err" ||
    fail "dry-run --device auto (mixed-fem) exit $?"
  grep -qxE "# device: cpu \((no CUDA backend in this build|no CUDA device.*|method mixed-fem runs on the CPU backend only)\)" \
    "$tmp/out" || fail "auto device line for mixed-fem: $(grep '^# device' "$tmp/out")"
  # auto on a scene the CUDA backend runs (no contact: contact.ccd keeps drop.cfg on the CPU): cuda
  # when a device exists, else the CPU saying why not
  "$bin" --dry-run --device auto --output "$tmp/never.h5" "$src/scenes/cantilever.cfg" >"$tmp/out" 2>"$tmp/err" ||
    fail "dry-run --device auto exit $?"
  grep -qxE "# device: (cuda \(CUDA device found\)|cpu \((no CUDA backend in this build|no CUDA device.*)\))" "$tmp/out" ||
    fail "auto device line: $(grep '^# device' "$tmp/out")"
  # the scene's device key when there is no --device
  { echo 'device = "cpu";'; sed "s|\"meshes/|\"$src/scenes/meshes/|" "$src/scenes/drop.cfg"; } >"$tmp/drop_cpu.cfg"
  "$bin" --dry-run --output "$tmp/never.h5" "$tmp/drop_cpu.cfg" >"$tmp/out" 2>"$tmp/err" || fail "dry-run (device = cpu) exit $?"
  grep -qxF "# device: cpu (device cpu requested)" "$tmp/out" || fail "scene device = cpu: $(grep '^# device' "$tmp/out")"
  # a refused request is the run's error, with the run's exit status: 2 for a scene the CUDA
  # backend does not run, 1 without a CUDA backend or device
  if "$bin" --dry-run --device cuda --output "$tmp/never.h5" "$src/scenes/cantilever.cfg" >"$tmp/out" 2>"$tmp/err"; then
    grep -qxF "# device: cuda (device cuda requested)" "$tmp/out" || fail "device cuda line: $(grep '^# device' "$tmp/out")"
    expect_rc 2 "device cuda: method mixed-fem runs on the CPU backend only so far; use --device cpu or auto" -- \
      --dry-run --device cuda --output "$tmp/never.h5" "$src/scenes/mixed_fig4.cfg"
    expect_rc 2 "device cuda: contact.ccd" -- --dry-run --device cuda --output "$tmp/never.h5" "$src/scenes/drop.cfg"
  else
    expect_rc 1 "(this build has no CUDA backend|no CUDA backend available: no CUDA device)" -- \
      --dry-run --device cuda --output "$tmp/never.h5" "$src/scenes/cantilever.cfg"
    [ ! -s "$tmp/out" ] || fail "a refused device request printed: $(cat "$tmp/out")"
  fi
  [ ! -e "$tmp/never.h5" ] || fail "dry-run wrote an output file"
  ;;
mistakes)
  # silent mistakes that sipd-run now points out (docs/troubleshooting.md)
  cp "$src/tests/data/scenes/tet.node" "$src/tests/data/scenes/tet.ele" "$tmp/"
  mat='materials = ( { name = "r"; youngs = 1.0e6; poisson = 0.45; } );'
  # 1. a pin or move box that holds no vertex: a warning naming the box's own file:line
  printf '%s
bodies = ( { mesh = "tet"; material = "r";
  pin = ( { box_min = [-0.1, -0.1, -0.1]; box_max = [0.1, 0.1, 0.1]; },
          { box_min = [5.0, 5.0, 5.0]; box_max = [6.0, 6.0, 6.0]; } );
  move = { box_min = [-1.0, 2.0, -1.0]; box_max = [2.0, 3.0, 2.0]; velocity = [0.0, 1.0, 0.0]; }; } );
' \
    "$mat" >"$tmp/box.cfg"
  "$bin" --dry-run --output "$tmp/never.h5" "$tmp/box.cfg" >"$tmp/out" 2>"$tmp/err" || fail "dry-run with an empty box: exit $?"
  grep -q "box.cfg:4: warning: bodies\[0\].pin\[1\]: the box \[5, 5, 5\] to \[6, 6, 6\] holds no vertex of the body (its vertices span \[0, 0, 0\] to \[1, 1, 1\]" "$tmp/err" ||
    fail "no warning for the empty pin box: $(cat "$tmp/err")"
  grep -q "box.cfg:5: warning: bodies\[0\].move: the box .* holds no vertex .*it moves nothing" "$tmp/err" ||
    fail "no warning for the empty move box: $(cat "$tmp/err")"
  [ "$(grep -c warning "$tmp/err")" = 2 ] || fail "the pin box that holds a vertex warns too: $(cat "$tmp/err")"
  grep -qF "# bodies[0]: solid, 4 vertices, 1 tets, 4 surface triangles, bbox [0, 0, 0] to [1, 1, 1], 1 pinned, 0 moved" "$tmp/out" ||
    fail "summary with boxes: $(grep '^# bodies' "$tmp/out")"
  "$bin" --frames 1 --quiet --output "$tmp/box.h5" "$tmp/box.cfg" 2>"$tmp/err" || fail "run with an empty box: exit $?"
  grep -q "box.cfg:4: warning: bodies\[0\].pin\[1\]" "$tmp/err" || fail "a run (--quiet) does not warn: $(cat "$tmp/err")"
  # 2. a closed triangle surface (gmsh -2 of a solid; here the box mesh without its tets) with
  # elements = "auto": a hollow shell, said with how to get a solid; counts from the file: its
  # triangles, 3/2 of them as hinges (every edge of a closed surface joins two triangles), and
  # the nodes no triangle uses (the box's interior nodes) held fixed
  awk 'e == 0 && /^\$Elements/ { print; getline; e = 1; next }
       e == 1 && /^\$EndElements/ { print n; for (i = 1; i <= n; i++) print el[i]; print; e = 0; next }
       e == 1 { if ($2 != 4) el[++n] = $0; next } { print }' "$src/tests/data/meshes/box_v22_ascii.msh" >"$tmp/surf.msh"
  ntri=$(awk '/^\$Elements/ { e = 1; getline; next } /^\$EndElements/ { e = 0 } e && $2 == 2 { n++ } END { print n }' "$tmp/surf.msh")
  nnode=$(awk '/^\$Nodes/ { getline; print; exit }' "$tmp/surf.msh")
  nused=$(awk '/^\$Elements/ { e = 1; getline; next } /^\$EndElements/ { e = 0 } e && $2 == 2 { for (k = NF - 2; k <= NF; k++) u[$k] = 1 }
               END { print length(u) }' "$tmp/surf.msh")
  [ "$ntri" -gt 0 ] && ! grep -q "^[0-9]* 4 " "$tmp/surf.msh" || fail "test set-up: surf.msh"
  printf '%s
bodies = ( { mesh = "surf.msh"; material = "r"; } );
' "$mat" >"$tmp/surf.cfg"
  "$bin" --dry-run --output "$tmp/never.h5" "$tmp/surf.cfg" >"$tmp/out" 2>"$tmp/err" || fail "dry-run of a closed surface: exit $?"
  grep -q "surf.cfg:2: warning: bodies\[0\]: .*surf.msh holds triangles and no tetrahedra, and they close a surface: with elements = \"auto\" the body is a hollow shell .*gmsh -3" "$tmp/err" ||
    fail "no closed-surface warning: $(cat "$tmp/err")"
  want="# bodies[0]: shell, $nnode vertices, $ntri triangles, $((3 * ntri / 2)) bending hinges, bbox [0, 0, 0] to [1, 0.2, 0.2], 0 pinned, 0 moved, $((nnode - nused)) in no element (held fixed)"
  # (the shell's bending = "auto" clause names its bending length and mean edge: checked apart)
  sed 's/ (bending "auto": bending length [0-9.e+-]* m < 4 x the mean edge [0-9.e+-]* m)//' "$tmp/out" | grep -qxF "$want" ||
    fail "shell summary: expected '$want', got '$(grep '^# bodies' "$tmp/out")'"
  grep -q '^# bodies\[0\]: shell, .* bending hinges (bending "auto": bending length [0-9.e+-]* m < 4 x the mean edge' "$tmp/out" ||
    fail "shell summary: no bending \"auto\" clause: $(grep '^# bodies' "$tmp/out")"
  printf '%s
bodies = ( { mesh = "surf.msh"; material = "r"; elements = "shell"; } );
' "$mat" >"$tmp/shell.cfg"
  "$bin" --dry-run --output "$tmp/never.h5" "$tmp/shell.cfg" >/dev/null 2>"$tmp/err" || fail "dry-run of an explicit shell: exit $?"
  ! grep -q warning "$tmp/err" || fail "elements = \"shell\" still warns: $(cat "$tmp/err")"
  printf '%s
bodies = ( { mesh = "%s"; material = "r"; } );
' "$mat" "$src/tests/data/meshes/cloth_v22_ascii.msh" >"$tmp/cloth.cfg"
  "$bin" --dry-run --output "$tmp/never.h5" "$tmp/cloth.cfg" >/dev/null 2>"$tmp/err" || fail "dry-run of a cloth: exit $?"
  ! grep -q warning "$tmp/err" || fail "an open cloth warns: $(cat "$tmp/err")"
  printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n' >"$tmp/tet.obj"
  printf '%s\nbodies = ( { mesh = "tet.obj"; material = "r"; } );\n' "$mat" >"$tmp/obj.cfg"
  "$bin" --dry-run --output "$tmp/never.h5" "$tmp/obj.cfg" >/dev/null 2>"$tmp/err" || fail "dry-run of a closed OBJ: exit $?"
  grep -q "obj.cfg:2: warning: bodies\[0\]: .*tet.obj holds triangles .*tetrahedralise the surface" "$tmp/err" ||
    fail "no closed-surface warning for an OBJ: $(cat "$tmp/err")"
  # 3. an integer in an array of floats, and a mesh of a format sipd-run does not read: errors
  # that name the key (the bad-scene corpus, tests/data/scenes/bad, has more)
  printf '%s\nbodies = ( { mesh = "tet"; material = "r"; } );\ngravity = [0.0, -9, 0.0];\n' "$mat" >"$tmp/int.cfg"
  expect_rc 2 "int.cfg:3: gravity: element 1 \(-9\) is an integer but element 0 \(0.0\) is a float.*\(write -9.0\)" -- --dry-run "$tmp/int.cfg"
  printf '%s\nbodies = ( { mesh = "beam.vtk"; material = "r"; } );\n' "$mat" >"$tmp/vtk.cfg"
  expect_rc 2 "vtk.cfg:2: bodies\[0\].mesh: unsupported mesh format: '.*beam.vtk' \(sipd-run reads gmsh .msh" -- --dry-run "$tmp/vtk.cfg"
  ;;
run_layout)
  # the first example of the README, shortened, then the HDF5 contract paths read back
  "$bin" "$src/scenes/cantilever.cfg" --frames 4 --output "$tmp/c.h5" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "run exit $?"; }
  grep -q "frame 4/4" "$tmp/err" || fail "no progress line on stderr"
  "$bin" "$src/scenes/cantilever.cfg" --frames 2 --quiet --output "$tmp/q.h5" 2>"$tmp/qerr" || fail "quiet run failed"
  [ ! -s "$tmp/qerr" ] || fail "--quiet still printed: $(cat "$tmp/qerr")"
  h5dump -H "$tmp/c.h5" >"$tmp/h" || fail "h5dump cannot read the output"
  for d in /mesh/rest_positions /mesh/tets /mesh/surface_triangles /mesh/body /frames/positions /frames/time \
           /convergence/frame /convergence/substep /convergence/iterations /convergence/residual \
           /convergence/energy /convergence/line_search_steps /convergence/contacts /convergence/wall_time \
           /convergence/history_offset /convergence/max_penetration /convergence/history/residual /convergence/history/energy \
           /convergence/history/alpha /convergence/history/force /convergence/history/wall_time; do
    h5dump -H -d "$d" "$tmp/c.h5" >/dev/null 2>&1 || fail "missing dataset $d"
  done
  [ "$(nframes "$tmp/c.h5")" = 5 ] || fail "expected 5 frames (0..4), got $(nframes "$tmp/c.h5")"
  h5dump -H -d /frames/positions "$tmp/c.h5" | grep -q "( 5, 99, 3 )" || fail "positions shape"
  h5dump -H -d /mesh/tets "$tmp/c.h5" | grep -q "( 240, 4 )" || fail "tets shape"
  h5dump -H -d /convergence/iterations "$tmp/c.h5" | grep -q "( 8 )" || fail "expected 8 solve rows (4 frames x 2 substeps)"
  h5dump -p -H -d /frames/positions "$tmp/c.h5" | grep -q "DEFLATE" || fail "positions not deflated"
  h5dump -p -H -d /frames/positions "$tmp/c.h5" | grep -q "SHUFFLE" || fail "positions not shuffled"
  for a in version scene resolved_parameters command_line device precision units exit_reason wall_time_s; do
    h5dump -a "/$a" "$tmp/c.h5" >/dev/null 2>&1 || fail "missing root attribute $a"
  done
  h5dump -a /exit_reason "$tmp/c.h5" | grep -q '"completed"' || fail "exit_reason is not completed"
  h5dump -a /solves_at_iteration_cap "$tmp/c.h5" | grep -q '"0 of 8"' || fail "cantilever solves reported at the cap"
  # numeric twins of the string tallies: HDF5 numbers of the documented type, equal to the strings
  num_attr() { # file name type -> the value, if the attribute has that HDF5 type
    h5dump -a "/$2" "$1" 2>/dev/null | awk -v t="$3" '/DATATYPE/ { ok = ($2 == t) } /\(0\):/ && ok { print $2 }'; }
  check_tally() { # file total converged at_cap stalled diverged
    local f=$1 k v; shift
    for k in solves_total solves_converged solves_at_cap solves_stalled solves_diverged; do
      v=$(num_attr "$f" $k H5T_STD_I64LE)
      [ "$v" = "$1" ] || fail "$(basename "$f"): $k = '$v' (int64 expected), expected $1"
      shift
    done
  }
  check_tally "$tmp/c.h5" 8 8 0 0 0
  ws=$(h5dump -a /wall_time_s "$tmp/c.h5" | sed -n 's/.*(0): "\(.*\)"/\1/p')
  wn=$(num_attr "$tmp/c.h5" wall_time_seconds H5T_IEEE_F64LE)
  [ -n "$wn" ] && awk -v a="$ws" -v b="$wn" 'BEGIN { d = a - b; exit !(b > 0 && d * d <= (0.0006 + 1e-5 * b) ^ 2) }' ||
    fail "wall_time_seconds '$wn' (float64 expected) does not match wall_time_s '$ws'"
  [ "$(num_attr "$tmp/c.h5" worst_residual H5T_IEEE_F64LE)" = 0 ] || fail "worst_residual of a converged run is not 0.0"
  mm=$(num_attr "$tmp/c.h5" max_momentum_error H5T_IEEE_F64LE)
  ms=$(h5dump -a /max_momentum_error_Ns "$tmp/c.h5" | sed -n 's/.*(0): "\(.*\)"/\1/p')
  awk -v a="$ms" -v b="$mm" 'BEGIN { exit !(b != "" && (a == 0 ? b == 0 : ((a - b) / a) ^ 2 < 1e-10)) }' ||
    fail "max_momentum_error '$mm' does not match max_momentum_error_Ns '$ms'"
  # a budget too small to converge is reported on stderr and in the file
  sed -e "s|meshes/beam|$src/scenes/meshes/beam|" -e 's/iterations = 200;/iterations = 3;/' \
      "$src/scenes/cantilever.cfg" >"$tmp/cap.cfg"
  "$bin" "$tmp/cap.cfg" --frames 2 --output "$tmp/cap.h5" 2>"$tmp/err" || fail "capped run"
  grep -q "4 of 4 solves did not converge (at-cap 4, stalled 0, diverged 0)" "$tmp/err" ||
    fail "no iteration-cap warning: $(cat "$tmp/err")"
  h5dump -a /solves_at_iteration_cap "$tmp/cap.h5" | grep -q '"4 of 4"' || fail "cap count not stored"
  h5dump -a /solves_not_converged "$tmp/cap.h5" | grep -q '"4 of 4"' || fail "non-converged count not stored"
  check_tally "$tmp/cap.h5" 4 0 4 0 0
  wr=$(h5dump -a /worst_relative_residual "$tmp/cap.h5" | sed -n 's/.*(0): "\(.*\)"/\1/p')
  wn=$(num_attr "$tmp/cap.h5" worst_residual H5T_IEEE_F64LE)
  awk -v a="$wr" -v b="$wn" 'BEGIN { exit !(a > 0 && ((a - b) / a) ^ 2 < 1e-10) }' ||
    fail "worst_residual '$wn' does not match worst_relative_residual '$wr'"
  h5dump -d /convergence/status "$tmp/cap.h5" | grep -q "(0): 1, 1, 1, 1" || fail "per-solve status is not at-cap"
  h5dump -d /convergence/status "$tmp/c.h5" | grep -q "(0): 0, 0, 0, 0, 0, 0, 0, 0" || fail "converged solves not status 0"
  # --strict (or solver.strict) makes a non-converged solve a non-zero exit (4), a converged run exits 0
  rc=0; "$bin" "$tmp/cap.cfg" --frames 2 --output "$tmp/cap2.h5" --strict 2>/dev/null || rc=$?
  [ "$rc" = 4 ] || fail "--strict with non-converged solves: exit $rc, expected 4"
  h5dump -a /exit_reason "$tmp/cap2.h5" | grep -q '"completed"' || fail "--strict run: exit_reason not completed"
  sed -e 's/iterations = 3;/iterations = 3; strict = true;/' "$tmp/cap.cfg" >"$tmp/cap3.cfg"
  rc=0; "$bin" "$tmp/cap3.cfg" --frames 2 --output "$tmp/cap3.h5" 2>/dev/null || rc=$?
  [ "$rc" = 4 ] || fail "solver.strict = true with non-converged solves: exit $rc, expected 4"
  sed -e "s|meshes/beam|$src/scenes/meshes/beam|" "$src/scenes/cantilever.cfg" >"$tmp/ok.cfg"
  "$bin" "$tmp/ok.cfg" --frames 2 --output "$tmp/ok.h5" --strict 2>/dev/null || fail "--strict on a converged run"
  # a trajectory that gains energy every step (1 GPa at 10 Chebyshev iterations per step) is
  # stopped as diverged: exit 1, the frames before it kept
  sed -e "s|meshes/beam|$src/scenes/meshes/beam|" -e 's/youngs = 1.0e6/youngs = 1.0e9/' \
      -e 's/iterations = 200;/iterations = 10; initial_guess = "inertial";/' -e 's/substeps = 2/substeps = 1/' "$src/scenes/cantilever.cfg" >"$tmp/dv.cfg"
  rc=0; "$bin" "$tmp/dv.cfg" --output "$tmp/dv.h5" 2>"$tmp/err" || rc=$?
  [ "$rc" = 1 ] || fail "diverging run: exit $rc, expected 1"
  grep -q "diverged at frame [0-9]*, step 0" "$tmp/err" || fail "no divergence message: $(tail -3 "$tmp/err")"
  h5dump -a /exit_reason "$tmp/dv.h5" | grep -q '"diverged"' || fail "diverging run: exit_reason not diverged"
  h5dump -H -d /frames/positions "$tmp/dv.h5" | grep -q "SIMPLE { ( [1-9][0-9]*, 99, 3 )" || fail "diverging run kept no frames"
  h5dump -a /scene "$tmp/c.h5" | grep -q "clamped at x = 0" || fail "scene text not stored"
  # frame 0 is the rest state, the last frame has sagged under gravity
  h5dump -d "/frames/positions[0,10,1;1,1,1;1,1,1;1,1,1]" "$tmp/c.h5" | grep -q "(0,10,1): 0$" || fail "frame 0 is not the rest state"
  [ -f "$tmp/c.xdmf" ] || fail "no XDMF sidecar"
  grep -q 'CollectionType="Temporal"' "$tmp/c.xdmf" || fail "XDMF is not a temporal collection"
  [ "$(grep -c '<Time ' "$tmp/c.xdmf")" = 5 ] || fail "XDMF does not list 5 frames"
  ;;
sigkill)
  "$bin" "$src/scenes/twist.cfg" --frames 1000000 --output "$tmp/k.h5" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 1 100); do [ -s "$tmp/err" ] && grep -q "frame [0-9]*/" "$tmp/err" && break; sleep 0.1; done
  sleep 1
  kill -KILL $pid; wait $pid 2>/dev/null
  last=$(grep -o "frame [0-9]*/" "$tmp/err" | tail -1 | tr -dc 0-9)
  [ -n "$last" ] || fail "no progress reported before the kill"
  n=$(nframes "$tmp/k.h5")
  [ -n "$n" ] || fail "killed run's file does not open"
  [ "$n" -gt "$last" ] || fail "killed run kept $n frames, progress had reported frame $last"
  h5dump -d "/frames/positions[$((n-1)),0,0;1,1,1;1,1,1;1,1,1]" "$tmp/k.h5" >/dev/null || fail "last frame unreadable"
  echo "sigkill: progress reported frame $last, file holds $n frames"
  ;;
sigterm)
  "$bin" "$src/scenes/twist.cfg" --frames 1000000 --output "$tmp/t.h5" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 1 100); do grep -q "frame [0-9]*/" "$tmp/err" 2>/dev/null && break; sleep 0.1; done
  kill -TERM $pid; wait $pid; rc=$?
  [ $rc = 3 ] || { cat "$tmp/err"; fail "SIGTERM exit status $rc, expected 3"; }
  grep -q "stopped by a signal after frame" "$tmp/err" || fail "no stop message"
  h5dump -a /exit_reason "$tmp/t.h5" | grep -q '"signal"' || fail "exit_reason is not signal"
  n=$(nframes "$tmp/t.h5"); last=$(grep -o "after frame [0-9]*" "$tmp/err" | tr -dc 0-9)
  [ "$n" = $((last + 1)) ] || fail "file has $n frames, run said it stopped after frame $last"
  ;;
live_reader)
  # a reader can follow a running job with HDF5_USE_FILE_LOCKING=FALSE (docs/output.md)
  "$bin" "$src/scenes/twist.cfg" --frames 1000000 --output "$tmp/l.h5" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 1 100); do grep -q "frame [0-9]*/" "$tmp/err" 2>/dev/null && break; sleep 0.1; done
  # an open that overlaps the writer's per-frame flush can fail (no SWMR; docs/output.md): retry it,
  # as a reader following a job would
  live_frames() { local k n; for k in 1 2 3 4 5 6 7 8 9 10; do
      n=$(HDF5_USE_FILE_LOCKING=FALSE nframes "$tmp/l.h5" 2>/dev/null); [ -n "$n" ] && { echo "$n"; return; }; sleep 0.05; done; }
  sleep 0.5
  n1=$(live_frames)
  sleep 0.5
  n2=$(live_frames)
  kill -TERM $pid; wait $pid
  [ -n "$n1" ] && [ "$n1" -gt 0 ] || fail "a live reader could not open the file"
  [ "$n2" -gt "$n1" ] || fail "a live reader did not see the run progress ($n1 -> $n2 frames)"
  echo "live_reader: $n1 then $n2 frames"
  ;;
resume_identical)
  # a run continued from its checkpoint equals an uninterrupted one, bit for bit (CPU backend)
  "$bin" "$src/scenes/cantilever.cfg" --frames 12 --quiet --output "$tmp/full.h5" || fail "reference run"
  "$bin" "$src/scenes/cantilever.cfg" --frames 5 --quiet --output "$tmp/part.h5" || fail "first part"
  [ -f "$tmp/part.h5.ckpt" ] || fail "no checkpoint after a completed run"
  "$bin" "$src/scenes/cantilever.cfg" --frames 12 --resume --output "$tmp/part.h5" 2>"$tmp/err" || { cat "$tmp/err"; fail "resume"; }
  grep -q "resuming from .*part.h5.ckpt at frame 5" "$tmp/err" || fail "no resume message: $(cat "$tmp/err")"
  h5diff "$tmp/full.h5" "$tmp/part.h5" /frames/positions || fail "resumed positions differ"
  h5diff "$tmp/full.h5" "$tmp/part.h5" /frames/time || fail "resumed times differ"
  h5diff "$tmp/full.h5" "$tmp/part.h5" /convergence/iterations || fail "resumed iteration counts differ"
  h5dump -a /resumed_from "$tmp/part.h5" | grep -q '"frame 5' || fail "no resumed_from attribute"
  h5dump -a /resumed_from_frame "$tmp/part.h5" | grep -q "H5T_STD_I64LE" && h5dump -a /resumed_from_frame "$tmp/part.h5" | grep -q "(0): 5$" ||
    fail "resumed_from_frame is not the int64 5"
  t5=$(h5dump -d "/frames/time[5;1]" "$tmp/full.h5" | sed -n 's/.*(5): //p')
  h5dump -a /resumed_from_time "$tmp/part.h5" | grep -q "H5T_IEEE_F64LE" && h5dump -a /resumed_from_time "$tmp/part.h5" | grep -q "(0): $t5$" ||
    fail "resumed_from_time is not the float64 time of frame 5 ($t5): $(h5dump -a /resumed_from_time "$tmp/part.h5")"
  # with output.every = 3 the checkpoint (frame 4) falls between written frames
  sed -e "s|meshes/beam|$src/scenes/meshes/beam|" -e 's|output   = { file = "../results/cantilever.h5"; };|output = { file = "e.h5"; every = 3; };|' \
      "$src/scenes/cantilever.cfg" >"$tmp/every.cfg"
  grep -q "every = 3" "$tmp/every.cfg" || fail "could not prepare the every = 3 scene"
  "$bin" "$tmp/every.cfg" --frames 10 --quiet --output "$tmp/e_full.h5" || fail "every=3 reference"
  "$bin" "$tmp/every.cfg" --frames 4 --quiet --output "$tmp/e_part.h5" || fail "every=3 first part"
  "$bin" "$tmp/every.cfg" --frames 10 --resume --quiet --output "$tmp/e_part.h5" || fail "every=3 resume"
  for d in /frames/positions /frames/time /convergence/iterations /convergence/frame; do
    h5diff "$tmp/e_full.h5" "$tmp/e_part.h5" $d || fail "every=3: $d differs after resume"
  done
  # asking for no more frames than the checkpoint has is a no-op
  "$bin" "$src/scenes/cantilever.cfg" --frames 12 --resume --output "$tmp/part.h5" 2>"$tmp/err" || fail "no-op resume"
  grep -q "nothing to do" "$tmp/err" || fail "no-op resume message"
  # --resume without a checkpoint starts from frame 0; a fresh run removes a stale checkpoint
  "$bin" "$src/scenes/cantilever.cfg" --frames 2 --resume --output "$tmp/new.h5" 2>"$tmp/err" || fail "resume w/o ckpt"
  grep -q "no checkpoint .*starting from frame 0" "$tmp/err" || fail "no-checkpoint message"
  "$bin" "$src/scenes/cantilever.cfg" --frames 2 --output "$tmp/part.h5" 2>"$tmp/err" || fail "fresh run"
  grep -q "removed the previous run's checkpoint" "$tmp/err" || fail "stale checkpoint not reported"
  ;;
resume_contact)
  # the same with body-body contact, interrupted while the balls are pressed together (pairs
  # are detected again from the checkpointed state: nothing about them needs storing)
  "$bin" "$src/scenes/ball_collision.cfg" --frames 16 --quiet --output "$tmp/full.h5" || fail "reference run"
  "$bin" "$src/scenes/ball_collision.cfg" --frames 8 --quiet --output "$tmp/part.h5" || fail "first part"
  "$bin" "$src/scenes/ball_collision.cfg" --frames 16 --resume --quiet --output "$tmp/part.h5" || fail "resume"
  for d in /frames/positions /convergence/iterations /convergence/contacts /convergence/max_penetration; do
    h5diff "$tmp/full.h5" "$tmp/part.h5" $d || fail "contact run: $d differs after resume"
  done
  h5dump -y -w 0 -o "$tmp/contacts.txt" -d /convergence/contacts "$tmp/part.h5" >/dev/null || fail "h5dump contacts"
  n=$(tr -c '0-9' '\n' <"$tmp/contacts.txt" | grep . | sort -n | tail -1)
  [ "${n:-0}" -gt 10 ] || fail "the balls were not in contact around the checkpoint (max contacts ${n:-0})"
  ;;
resume_friction)
  # the friction anchors (issue 27, contact.h stick memory) are state: a run resumed while the
  # block sticks on the slope (ground anchors) and while the upper block of the stack rests on
  # the lower one (pair anchors, carried by key) equals the uninterrupted one, bit for bit
  for sc in slope stack; do
    "$bin" "$src/scenes/study/$sc.cfg" --frames 24 --quiet --output "$tmp/${sc}_full.h5" || fail "$sc: reference run"
    "$bin" "$src/scenes/study/$sc.cfg" --frames 13 --quiet --output "$tmp/${sc}_part.h5" || fail "$sc: first part"
    "$bin" "$src/scenes/study/$sc.cfg" --frames 24 --resume --quiet --output "$tmp/${sc}_part.h5" || fail "$sc: resume"
    for d in /frames/positions /convergence/iterations /convergence/contacts; do
      h5diff "$tmp/${sc}_full.h5" "$tmp/${sc}_part.h5" $d || fail "$sc: $d differs after resume"
    done
  done
  echo "resume_friction: slope and stack resumed at frame 13 equal the uninterrupted runs"
  ;;
resume_errors)
  "$bin" "$src/scenes/cantilever.cfg" --frames 3 --quiet --output "$tmp/c.h5" || fail "run"
  cp "$tmp/c.h5.ckpt" "$tmp/good.ckpt"
  # another scene's checkpoint
  sed -e "s|meshes/beam|$src/scenes/meshes/beam|" -e 's/youngs = 1.0e6/youngs = 2.0e6/' "$src/scenes/cantilever.cfg" >"$tmp/other.cfg"
  expect_rc 2 "another scene" -- "$tmp/other.cfg" --frames 6 --resume --output "$tmp/c.h5"
  # a corrupt checkpoint (one flipped byte)
  printf '\xff' | dd of="$tmp/c.h5.ckpt" bs=1 seek=100 conv=notrunc 2>/dev/null
  expect_rc 2 "checksum" -- "$src/scenes/cantilever.cfg" --frames 6 --resume --output "$tmp/c.h5"
  # a truncated one
  head -c 50 "$tmp/good.ckpt" >"$tmp/c.h5.ckpt"
  expect_rc 2 "truncated|not a sipd-run checkpoint" -- "$src/scenes/cantilever.cfg" --frames 6 --resume --output "$tmp/c.h5"
  # the checkpoint is fine but the output file is gone
  cp "$tmp/good.ckpt" "$tmp/c.h5.ckpt"; rm -f "$tmp/c.h5"
  "$bin" "$src/scenes/cantilever.cfg" --frames 6 --resume --output "$tmp/c.h5" 2>"$tmp/err"; rc=$?
  [ $rc != 0 ] || fail "resume without its output file succeeded"
  grep -q "c.h5" "$tmp/err" || fail "message does not name the output: $(cat "$tmp/err")"
  ;;
signal_resume)
  # SIGTERM mid-run, then SIGKILL between periodic checkpoints: both resume to the
  # uninterrupted result, bit for bit
  sed -e "s|meshes/bar|$src/scenes/meshes/bar|" -e 's|output   = { file = "../results/twist.h5"; };|output = { file = "twist.h5"; checkpoint_every = 7; };|' \
      "$src/scenes/twist.cfg" >"$tmp/twist.cfg"
  grep -q "checkpoint_every = 7" "$tmp/twist.cfg" || fail "could not prepare the scene"
  n=800
  "$bin" "$tmp/twist.cfg" --frames $n --quiet --output "$tmp/ref.h5" || fail "reference run"
  for sig in TERM KILL; do
    "$bin" "$tmp/twist.cfg" --frames $n --output "$tmp/$sig.h5" 2>"$tmp/err" &
    pid=$!
    for _ in $(seq 1 100); do grep -q "frame [0-9]*/" "$tmp/err" 2>/dev/null && break; sleep 0.1; done
    sleep 0.5
    kill -$sig $pid; wait $pid; rc=$?
    if [ $sig = TERM ]; then
      [ $rc = 3 ] || fail "SIGTERM exit $rc"
      grep -q "continue with --resume" "$tmp/err" || fail "no resume hint"
    fi
    [ -f "$tmp/$sig.h5.ckpt" ] || fail "no checkpoint after SIG$sig"
    "$bin" "$tmp/twist.cfg" --frames $n --resume --quiet --output "$tmp/$sig.h5" || fail "resume after SIG$sig"
    h5diff "$tmp/ref.h5" "$tmp/$sig.h5" /frames/positions || fail "positions after SIG$sig + resume differ"
    h5diff "$tmp/ref.h5" "$tmp/$sig.h5" /convergence/iterations || fail "iterations after SIG$sig + resume differ"
    h5dump -a /exit_reason "$tmp/$sig.h5" | grep -q '"completed"' || fail "exit_reason after SIG$sig + resume"
  done
  ;;
checkpoint_seconds)
  # output.checkpoint_seconds: periodic checkpoints by wall time survive a SIGKILL
  sed -e "s|meshes/bar|$src/scenes/meshes/bar|" -e 's|output   = { file = "../results/twist.h5"; };|output = { file = "twist.h5"; checkpoint_seconds = 0.2; };|' \
      "$src/scenes/twist.cfg" >"$tmp/twist.cfg"
  grep -q "checkpoint_seconds = 0.2" "$tmp/twist.cfg" || fail "could not prepare the scene"
  "$bin" "$tmp/twist.cfg" --frames 100000 --output "$tmp/s.h5" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 1 100); do grep -q "frame [0-9]*/" "$tmp/err" 2>/dev/null && break; sleep 0.1; done
  sleep 1
  kill -KILL $pid; wait $pid 2>/dev/null
  [ -f "$tmp/s.h5.ckpt" ] || fail "no periodic checkpoint after 1 s with checkpoint_seconds = 0.2"
  "$bin" "$tmp/twist.cfg" --frames 100000 --resume --output "$tmp/s.h5" 2>"$tmp/err2" &
  pid=$!
  for _ in $(seq 1 100); do grep -q "resuming from" "$tmp/err2" 2>/dev/null && break; sleep 0.1; done
  kill -TERM $pid; wait $pid; rc=$?
  f=$(grep -o "resuming from .* at frame [0-9]*" "$tmp/err2" | grep -o "[0-9]*$")
  [ -n "$f" ] && [ "$f" -gt 0 ] || fail "did not resume from a periodic checkpoint: $(cat "$tmp/err2")"
  # (rc 1 with the process gone before the SIGTERM was seen once in a clean-clone CI run and not
  # reproduced in 18 tries since: print what the resumed run said)
  [ $rc = 3 ] || fail "SIGTERM after resume exited $rc; its stderr: $(tail -5 "$tmp/err2" | tr '\n' '|')"
  echo "checkpoint_seconds: resumed at frame $f"
  ;;
hostile_scene)
  # scene text that libconfig alone gets wrong: every case exits 2 with file:line (issue 12)
  cp "$src/tests/data/scenes/tet.node" "$src/tests/data/scenes/tet.ele" "$tmp/"
  body='materials = ( { name = "r"; youngs = 1.0e6; poisson = 0.45; } );
bodies = ( { mesh = "tet"; material = "r"; } );'
  printf '%s\ntime = { frames = 4294967298; };\n' "$body" >"$tmp/wrap.cfg"
  expect_rc 2 "wrap.cfg:3: time.frames: integer 4294967298 is out of range" -- --dry-run "$tmp/wrap.cfg"
  # an @include of "" or of a directory: libconfig's scanner would exit(2) with no file:line
  printf '%s\n@include ""\n' "$body" >"$tmp/inc_empty.cfg"
  expect_rc 2 "inc_empty.cfg:3: @include: empty file name" -- --dry-run "$tmp/inc_empty.cfg"
  mkdir -p "$tmp/sub"
  printf '%s\n@include "sub"\n' "$body" >"$tmp/inc_dir.cfg"
  expect_rc 2 "inc_dir.cfg:3: @include \".*sub\": is a directory" -- --dry-run "$tmp/inc_dir.cfg"
  # an absolute @include works; an error inside an included file names that file and line
  printf 'time = { frames = 7; };\n' >"$tmp/sub/time.cfg"
  printf '%s\n@include "%s"\n' "$body" "$tmp/sub/time.cfg" >"$tmp/inc_abs.cfg"
  "$bin" --dry-run "$tmp/inc_abs.cfg" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "absolute @include refused"; }
  grep -q "frames = 7;" "$tmp/out" || fail "absolute @include not read"
  printf '%s\r\n@include "sub/time.cfg"\r\n' "$body" >"$tmp/inc_crlf.cfg"   # CRLF line ends
  "$bin" --dry-run "$tmp/inc_crlf.cfg" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "@include with CRLF refused"; }
  grep -q "frames = 7;" "$tmp/out" || fail "@include with CRLF not read"
  printf '# a comment\ntime = { substeps = 0; };\n' >"$tmp/sub/bad.cfg"
  printf '%s\n@include "sub/bad.cfg"\noutput = { every = 1; };\n' "$body" >"$tmp/inc_bad.cfg"
  expect_rc 2 "sub/bad.cfg:2: time.substeps: must be >= 1" -- --dry-run "$tmp/inc_bad.cfg"
  printf '%s\n@include "sub/bad.cfg"\noutput = { evry = 1; };\n' "$body" >"$tmp/inc_after.cfg"
  sed -i 's/substeps = 0/substeps = 2/' "$tmp/sub/bad.cfg"
  expect_rc 2 "inc_after.cfg:4: unknown key 'output.evry'" -- --dry-run "$tmp/inc_after.cfg"
  # absurd sizes are refused before libconfig's scanner (quadratic in a line's length) sees them
  { printf '%s\nx = "' "$body"; head -c 70000 /dev/zero | tr '\0' a; printf '";\n'; } >"$tmp/longline.cfg"
  expect_rc 2 "longline.cfg:3: line too long \(70007 bytes; at most 65536" -- --dry-run "$tmp/longline.cfg"
  { printf '%s\n' "$body"; for _ in $(seq 1 80); do printf '# '; head -c 60000 /dev/zero | tr '\0' a; echo; done; } >"$tmp/huge.cfg"
  expect_rc 2 "huge.cfg: cannot read scene file: too large" -- --dry-run "$tmp/huge.cfg"
  { printf '%s\n' "$body"; printf 'x\0y\n'; } >"$tmp/nul.cfg"
  expect_rc 2 "nul.cfg:3: NUL byte" -- --dry-run "$tmp/nul.cfg"
  expect_rc 2 "cannot read scene file: is a directory" -- --dry-run "$tmp/sub"
  # a syntax error libconfig leaks on (the ASan build must still exit 2: tests/lsan.supp)
  printf '""' >"$tmp/str.cfg"
  expect_rc 2 "str.cfg:1: syntax error" -- "$tmp/str.cfg"
  # frames limit: the same for time.frames and --frames
  printf '%s\ntime = { frames = 100000001; };\n' "$body" >"$tmp/frames.cfg"
  expect_rc 2 "frames.cfg:3: time.frames: must be in \[0, 100000000\]" -- --dry-run "$tmp/frames.cfg"
  expect_rc 2 "--frames: expected an integer in \[0, 100000000\]" -- --dry-run --frames 100000001 "$tmp/inc_abs.cfg"
  # a mesh path that is a directory says so
  mkdir -p "$tmp/d.msh"
  printf 'materials = ( { name = "r"; youngs = 1.0e6; poisson = 0.45; } );\nbodies = ( { mesh = "d.msh"; material = "r"; } );\n' >"$tmp/meshdir.cfg"
  expect_rc 2 "meshdir.cfg:2: bodies\[0\].mesh: mesh file '.*d.msh' is a directory" -- --dry-run "$tmp/meshdir.cfg"
  ;;
hostile_mesh)
  # huge but finite coordinates: refused at load naming the file and line, never a run of inf
  body='materials = ( { name = "r"; youngs = 1.0e6; poisson = 0.45; } );'
  cp "$src/tests/data/scenes/tet.ele" "$tmp/big.ele"
  sed 's/^1  1.0 0.0 0.0/1  1.0e100 0.0 0.0/' "$src/tests/data/scenes/tet.node" >"$tmp/big.node"
  grep -q 1.0e100 "$tmp/big.node" || fail "could not prepare big.node"
  printf '%s\nbodies = ( { mesh = "big"; material = "r"; } );\n' "$body" >"$tmp/big.cfg"
  expect_rc 2 "big.node:4: x coordinate 1e\+100 out of range" -- --frames 1 --output "$tmp/big.h5" "$tmp/big.cfg"
  sed 's/1.0e100/1.0e308/' "$tmp/big.node" >"$tmp/b308.node"; cp "$tmp/big.ele" "$tmp/b308.ele"
  printf '%s\nbodies = ( { mesh = "b308"; material = "r"; } );\n' "$body" >"$tmp/b308.cfg"
  expect_rc 2 "b308.node:4: x coordinate 1e\+308 out of range" -- --dry-run "$tmp/b308.cfg"
  grep -q degenerate "$tmp/err" && fail "a huge coordinate is reported as a degenerate tet"
  # scale: a huge one is refused by the scene, one that makes the body too large by the model
  cp "$src/tests/data/scenes/tet.node" "$src/tests/data/scenes/tet.ele" "$tmp/"
  printf '%s\nbodies = ( { mesh = "tet"; material = "r"; scale = 1.0e101; } );\n' "$body" >"$tmp/s101.cfg"
  expect_rc 2 "s101.cfg:2: bodies\[0\].scale: out of range" -- --dry-run "$tmp/s101.cfg"
  sed 's/1.0 0.0 0.0/1.0e25 0.0 0.0/; s/0.0 1.0 0.0/0.0 1.0e25 0.0/; s/0.0 0.0 1.0/0.0 0.0 1.0e25/' \
      "$src/tests/data/scenes/tet.node" >"$tmp/t25.node"; cp "$tmp/tet.ele" "$tmp/t25.ele"
  printf '%s\nbodies = ( { mesh = "t25"; material = "r"; scale = 1.0e10; } );\n' "$body" >"$tmp/large.cfg"
  expect_rc 2 "large.cfg:2: bodies\[0\]: body too large" -- --dry-run "$tmp/large.cfg"
  printf '%s\nbodies = ( { mesh = "tet"; material = "r"; scale = 1.0e-120; } );\n' "$body" >"$tmp/small.cfg"
  expect_rc 2 "small.cfg:2: bodies\[0\]: tet 1 of .*: non-positive volume after the body transform .*too small" -- --dry-run "$tmp/small.cfg"
  [ ! -e "$tmp/big.h5" ] || fail "an output file was written for a refused mesh"
  ;;
output_safety)
  # never write over an input file, nor over a file that is not a sipd-run output (issue 12)
  sed -e "s|meshes/beam|$src/scenes/meshes/beam|" -e 's|../results/cantilever.h5|own.cfg|' \
      "$src/scenes/cantilever.cfg" >"$tmp/own.cfg"
  grep -q 'file = "own.cfg"' "$tmp/own.cfg" || fail "could not prepare own.cfg"
  cp "$tmp/own.cfg" "$tmp/own.orig"
  expect_rc 2 "own.cfg would overwrite the scene file" -- --frames 1 "$tmp/own.cfg"
  cmp -s "$tmp/own.cfg" "$tmp/own.orig" || fail "the scene file was changed"
  printf 'x = 1;\n' >"$tmp/inc.cfg"
  sed -e 's|own.cfg|out.h5|' -e '1i @include "inc.cfg"' "$tmp/own.orig" >"$tmp/s.cfg"
  sed -i 's|^x = 1;|device = "cpu";|' "$tmp/inc.cfg"
  expect_rc 2 "inc.cfg would overwrite the scene file" -- --output "$tmp/inc.cfg" "$tmp/s.cfg"
  grep -q 'device = "cpu"' "$tmp/inc.cfg" || fail "the included file was changed"
  cp "$src/scenes/meshes/beam.node" "$src/scenes/meshes/beam.ele" "$tmp/"
  sed -i "s|$src/scenes/meshes/beam|beam|" "$tmp/s.cfg"
  expect_rc 2 "beam.node would overwrite the mesh file" -- --output "$tmp/beam.node" "$tmp/s.cfg"
  cmp -s "$tmp/beam.node" "$src/scenes/meshes/beam.node" || fail "the mesh file was changed"
  # the XDMF sidecar and the checkpoint count too: output t.h5 writes t.xdmf and t.h5.ckpt
  cp "$tmp/s.cfg" "$tmp/t.xdmf"; cp "$tmp/s.cfg" "$tmp/t.h5.ckpt"
  expect_rc 2 "t.xdmf would overwrite the scene file" -- --output "$tmp/t.h5" "$tmp/t.xdmf"
  expect_rc 2 "t.h5.ckpt would overwrite the scene file" -- --output "$tmp/t.h5" "$tmp/t.h5.ckpt"
  cmp -s "$tmp/s.cfg" "$tmp/t.h5.ckpt" || fail "a scene named like the checkpoint was changed"
  cp "$tmp/s.cfg" "$tmp/t.h5.writing"   # the write-batch marker (h5out.c) and a resume's rebuild
  expect_rc 2 "t.h5.writing would overwrite the scene file" -- --output "$tmp/t.h5" "$tmp/t.h5.writing"
  cp "$tmp/s.cfg" "$tmp/t.h5.rebuild"
  expect_rc 2 "t.h5.rebuild would overwrite the scene file" -- --output "$tmp/t.h5" "$tmp/t.h5.rebuild"
  # an existing file that is not a sipd-run output: refused, unless --overwrite
  echo "precious" >"$tmp/notes.h5"
  expect_rc 2 "notes.h5: output: the file exists and is not a sipd-run output \(not HDF5\)" -- --frames 1 --output "$tmp/notes.h5" "$tmp/s.cfg"
  grep -q precious "$tmp/notes.h5" || fail "a non-sipd-run file was overwritten"
  expect_rc 2 "notes.h5: output: .*not a sipd-run output" -- --dry-run --output "$tmp/notes.h5" "$tmp/s.cfg"
  "$bin" --frames 1 --quiet --overwrite --output "$tmp/notes.h5" "$tmp/s.cfg" || fail "--overwrite refused"
  h5dump -a /exit_reason "$tmp/notes.h5" | grep -q '"completed"' || fail "--overwrite run did not complete"
  # a sipd-run output is replaced without a word (the usual re-run)
  "$bin" --frames 1 --quiet --output "$tmp/notes.h5" "$tmp/s.cfg" || fail "re-run over a sipd-run output refused"
  # HDF5, but not ours (no root attributes)
  h5copy -i "$tmp/notes.h5" -o "$tmp/other.h5" -s /mesh -d /mesh || fail "h5copy"
  expect_rc 2 "other.h5: output: .*an HDF5 file without sipd-run's root attributes" -- --frames 1 --output "$tmp/other.h5" "$tmp/s.cfg"
  echo "mine" >"$tmp/o.xdmf"
  expect_rc 2 "o.xdmf: output: the XDMF sidecar path holds a file that is not XML" -- --frames 1 --output "$tmp/o.h5" "$tmp/s.cfg"
  grep -q mine "$tmp/o.xdmf" || fail "a non-XDMF sidecar was overwritten"
  mkdir "$tmp/dir.h5"
  expect_rc 2 "dir.h5: output: is a directory" -- --frames 1 --output "$tmp/dir.h5" "$tmp/s.cfg"
  expect_rc 2 "--output: empty file name" -- --frames 1 --output= "$tmp/s.cfg"
  ;;
resume_finished)
  # killed after the final checkpoint but before the root attributes: --resume finishes the file
  [ -n "$h5attr" ] || fail "no h5attr helper given"
  "$bin" "$src/scenes/cantilever.cfg" --frames 3 --quiet --output "$tmp/f.h5" || fail "run"
  "$h5attr" "$tmp/f.h5" exit_reason || fail "h5attr"
  ! h5dump -a /exit_reason "$tmp/f.h5" >/dev/null 2>&1 || fail "exit_reason still there"
  "$bin" "$src/scenes/cantilever.cfg" --frames 3 --resume --output "$tmp/f.h5" 2>"$tmp/err" || { cat "$tmp/err"; fail "resume"; }
  grep -q "nothing to do" "$tmp/err" || fail "no nothing-to-do message"
  h5dump -a /exit_reason "$tmp/f.h5" | grep -q '"completed"' || fail "exit_reason not set by the resume"
  [ "$(nframes "$tmp/f.h5")" = 4 ] || fail "the file lost frames"
  # a run in progress (or killed) says "running"
  "$bin" "$src/scenes/twist.cfg" --frames 1000000 --output "$tmp/k.h5" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 1 100); do grep -q "frame [0-9]*/" "$tmp/err" 2>/dev/null && break; sleep 0.1; done
  kill -KILL $pid; wait $pid 2>/dev/null
  h5dump -a /exit_reason "$tmp/k.h5" | grep -q '"running"' || fail "a killed run's exit_reason is not running"
  ;;
signal_substep)
  # a signal inside a long frame stops at the next time step, checkpoints it, and the resumed
  # run equals an uninterrupted one bit for bit (issue 12, D10).  1000 substeps a frame: about
  # 0.6 s on the 2-core machine, so a signal 0.15 s after the start lands inside frame 1 (at 500
  # the faster CPU pass finished frame 1 before the signal)
  sed -e "s|meshes/beam|$src/scenes/meshes/beam|" -e 's/substeps = 2;/substeps = 1000;/' \
      -e 's/tolerance = 1.0e-[0-9]*/tolerance = 0.0/' "$src/scenes/cantilever.cfg" >"$tmp/long.cfg"
  grep -q "substeps = 1000;" "$tmp/long.cfg" && grep -q "tolerance = 0.0" "$tmp/long.cfg" || fail "could not prepare the scene"
  "$bin" "$tmp/long.cfg" --frames 2 --quiet --output "$tmp/ref.h5" || fail "reference run"
  "$bin" "$tmp/long.cfg" --frames 2 --output "$tmp/int.h5" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 1 100); do grep -q "frames x 1000 substeps" "$tmp/err" 2>/dev/null && break; sleep 0.05; done
  sleep 0.15
  kill -TERM $pid; wait $pid; rc=$?
  [ $rc = 3 ] || { cat "$tmp/err"; fail "SIGTERM exit $rc"; }
  grep -qE "stopped by a signal after frame 0 and [0-9]+ of 1000 steps of frame 1" "$tmp/err" || { cat "$tmp/err"; fail "did not stop inside frame 1"; }
  [ "$(nframes "$tmp/int.h5")" = 1 ] || fail "frame 1 was written although it was interrupted"
  steps=$(grep -oE "and [0-9]+ of 1000" "$tmp/err" | tr -dc 0-9 | sed 's/1000$//')
  h5dump -a /exit_reason "$tmp/int.h5" | grep -q '"signal"' || fail "exit_reason is not signal"
  "$bin" "$tmp/long.cfg" --frames 2 --resume --output "$tmp/int.h5" 2>"$tmp/err2" || { cat "$tmp/err2"; fail "resume"; }
  grep -q "resuming from .* at frame 0, step $steps of 1000 of frame 1" "$tmp/err2" || { cat "$tmp/err2"; fail "resume message"; }
  for d in /frames/positions /frames/time /convergence/frame /convergence/substep /convergence/iterations /convergence/residual; do
    h5diff "$tmp/ref.h5" "$tmp/int.h5" $d || fail "$d differs after a mid-frame stop and resume"
  done
  h5dump -a /exit_reason "$tmp/int.h5" | grep -q '"completed"' || fail "exit_reason after resume"
  echo "signal_substep: stopped after $steps of 1000 steps"
  ;;
diverged)
  # a state beyond the float32 range of the output is a failure (exit 1), never "completed"
  printf 'materials = ( { name = "r"; youngs = 1.0e6; poisson = 0.45; } );\nbodies = ( { mesh = "%s"; material = "r"; } );\ngravity = [0.0, -1.0e29, 0.0];\ntime = { dt = 1000.0; frames = 3; };\n' \
      "$src/tests/data/scenes/tet" >"$tmp/div.cfg"
  expect_rc 1 "diverged at frame 1, step 0: vertex [0-9]+ position y = -1e\+35" -- --output "$tmp/div.h5" "$tmp/div.cfg"
  h5dump -a /exit_reason "$tmp/div.h5" | grep -q '"diverged"' || fail "exit_reason of a diverged run"
  [ "$(nframes "$tmp/div.h5")" = 1 ] || fail "a diverged frame was written"
  # the scene's own magnitudes are bounded at load
  sed 's/-1.0e29/-1.0e300/' "$tmp/div.cfg" >"$tmp/g300.cfg"
  expect_rc 2 "g300.cfg:3: gravity: element 1 out of range" -- --output "$tmp/g.h5" "$tmp/g300.cfg"
  ;;
load_signal)
  # SIGTERM while the meshes load: stop at once, write nothing, exit 3
  genbox=$(dirname "$bin")/tools/sipd-genbox
  [ -x "$genbox" ] || fail "no sipd-genbox next to sipd-run"
  "$genbox" 60 60 60 1.0 1.0 1.0 "$tmp/box" >/dev/null || fail "genbox"
  printf 'materials = ( { name = "r"; youngs = 1.0e6; poisson = 0.45; } );\nbodies = ( { mesh = "box"; material = "r"; } );\n' >"$tmp/box.cfg"
  "$bin" "$tmp/box.cfg" --frames 5 --output "$tmp/box.h5" 2>"$tmp/err" &
  pid=$!
  # the handlers are installed just before loading: wait for SIGTERM (bit 15) in SigCgt, once
  # the forked shell has become sipd-run (before exec it has the shell's handlers)
  real=$(readlink -f "$bin")
  for _ in $(seq 1 400); do
    cgt=""
    [ "$(readlink -f /proc/$pid/exe 2>/dev/null)" = "$real" ] && cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/$pid/status 2>/dev/null)
    [ -n "$cgt" ] && [ $(( 0x$cgt & 0x4000 )) != 0 ] && break
    sleep 0.005
  done
  t0=$(date +%s.%N); kill -TERM $pid; wait $pid; rc=$?; t1=$(date +%s.%N)
  lat=$(elapsed "$t0" "$t1")
  echo "load_signal: exit $rc $lat s after SIGTERM"
  [ $rc = 3 ] || { cat "$tmp/err"; fail "SIGTERM while loading: exit $rc, expected 3"; }
  grep -q "stopped by a signal while loading" "$tmp/err" || { cat "$tmp/err"; fail "no loading-stop message"; }
  [ ! -e "$tmp/box.h5" ] || fail "an output file was written"
  # issue 31: at once, not after the load step (the mesh parse took ~1 s here)
  below "$lat" 0.5 || fail "exit $lat s after SIGTERM while loading (at most 0.5 s)"
  ;;
long_frame)
  # issue 31: one frame of 10^6 substeps.  Its log reaches the file while the frame runs (a live
  # reader sees the rows), the resident memory does not grow with it, and SIGTERM ends it within
  # 2 s with a checkpoint, the file holding exactly the rows of the steps done
  genbox=$(dirname "$bin")/tools/sipd-genbox
  "$genbox" 2 2 2 0.1 0.1 0.1 "$tmp/cube" >/dev/null || fail "genbox"
  printf 'time = { dt = 0.0166667; frames = 1; substeps = 1000000; };\nmaterials = ( { name = "r"; youngs = 1.0e6; poisson = 0.45; } );\nbodies = ( { mesh = "cube"; material = "r"; } );\n' >"$tmp/cube.cfg"
  "$bin" "$tmp/cube.cfg" --output "$tmp/c.h5" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 1 100); do grep -q "frames x 1000000 substeps" "$tmp/err" 2>/dev/null && break; sleep 0.05; done
  live() {   # DATASET: its rows, read while the run writes (retried: an open can overlap a flush)
    local k n; for k in 1 2 3 4 5 6 7 8 9 10; do
      n=$(HDF5_USE_FILE_LOCKING=FALSE h5dump -H -d "$1" "$tmp/c.h5" 2>/dev/null | sed -n 's/.*DATASPACE  SIMPLE { ( \([0-9]*\)[ ,].*/\1/p')
      [ -n "$n" ] && { echo "$n"; return; }; sleep 0.05; done; echo 0; }
  rows=0
  for _ in $(seq 1 50); do rows=$(live /convergence/iterations); [ "$rows" -gt 0 ] && break; sleep 0.2; done
  frames=$(live /frames/time)
  rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$pid/status; }
  sleep 1; r1=$(rss); sleep 3; r2=$(rss)
  t0=$(date +%s.%N); kill -TERM $pid; wait $pid; rc=$?; t1=$(date +%s.%N)
  lat=$(elapsed "$t0" "$t1")
  echo "long_frame: $rows solve rows in the file while frame 1 ran ($frames frame(s) written); resident memory $r1 kB, 3 s later $r2 kB; exit $rc $lat s after SIGTERM"
  [ "$rows" -gt 0 ] && [ "$frames" = 1 ] || fail "no convergence row reached the file during the frame ($rows rows, $frames frames)"
  if ldd "$bin" 2>/dev/null | grep -q libasan; then   # ASan's quarantine keeps freed memory by design
    echo "long_frame: AddressSanitizer build: the memory bound is not checked"
  else
    [ -n "$r1" ] && [ -n "$r2" ] && [ $((r2 * 10)) -lt $((r1 * 12)) ] || fail "resident memory grew from $r1 kB to $r2 kB in 3 s of the frame"
  fi
  [ $rc = 3 ] || { cat "$tmp/err"; fail "SIGTERM exit $rc, expected 3"; }
  below "$lat" 2 || fail "exit $lat s after SIGTERM (at most 2 s)"
  [ -f "$tmp/c.h5.ckpt" ] || fail "no checkpoint"
  [ ! -e "$tmp/c.h5.writing" ] || fail "the write-batch marker is left after a clean stop"
  steps=$(grep -oE "after frame 0 and [0-9]+ of 1000000 steps" "$tmp/err" | grep -oE "and [0-9]+" | tr -dc 0-9)
  [ -n "$steps" ] || { cat "$tmp/err"; fail "no stop message"; }
  n=$(h5dump -H -d /convergence/iterations "$tmp/c.h5" | sed -n 's/.*DATASPACE  SIMPLE { ( \([0-9]*\) ).*/\1/p')
  [ "$n" = "$steps" ] || fail "the file holds $n solve rows, the run did $steps steps"
  h5dump -d /frames/convergence_rows "$tmp/c.h5" | grep -q "(0): 0$" || fail "/frames/convergence_rows does not mark frame 0's rows"
  # output.checkpoint_seconds inside the frame: a SIGKILL loses at most that much, and --resume
  # continues inside the frame
  sed 's|^bodies|output = { checkpoint_seconds = 0.5; };\nbodies|' "$tmp/cube.cfg" >"$tmp/cube_ck.cfg"
  "$bin" "$tmp/cube_ck.cfg" --output "$tmp/k.h5" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 1 100); do grep -q "frames x 1000000 substeps" "$tmp/err" 2>/dev/null && break; sleep 0.05; done
  sleep 2
  kill -KILL $pid; wait $pid 2>/dev/null
  [ -f "$tmp/k.h5.ckpt" ] || fail "no checkpoint 2 s into a frame with checkpoint_seconds = 0.5"
  "$bin" "$tmp/cube_ck.cfg" --resume --output "$tmp/k.h5" 2>"$tmp/err2" &
  pid=$!
  for _ in $(seq 1 100); do grep -q "resuming from" "$tmp/err2" 2>/dev/null && break; sleep 0.05; done
  kill -TERM $pid; wait $pid; rc=$?
  grep -qE "resuming from .* at frame 0, step [1-9][0-9]* of 1000000 of frame 1" "$tmp/err2" || { cat "$tmp/err2"; fail "did not resume inside the frame"; }
  [ $rc = 3 ] || { cat "$tmp/err2"; fail "SIGTERM after the resume: exit $rc"; }
  echo "long_frame: $(grep -oE "step [0-9]+ of 1000000" "$tmp/err2" | head -1) resumed after SIGKILL"
  ;;
signal_in_solve)
  # issue 31: SIGTERM inside one long quasi-static solve (40000 iterations, ~2 s here) stops within
  # 1 s; the checkpoint holds the step's start and --resume redoes it, bit for bit
  sed -e "s|meshes/beam|$src/scenes/meshes/beam|" -e 's/iterations = 200;/iterations = 40000;/' -e 's/chebyshev = true;/chebyshev = false; coarse = { levels = 1; };/' \
      -e 's/tolerance = 1.0e-[0-9]*/tolerance = 0.0/' -e 's/substeps = 2;/substeps = 1; quasistatic = true;/' \
      -e 's/poisson = 0.3;/poisson = 0.49;/' "$src/scenes/cantilever.cfg" >"$tmp/qs.cfg"
  grep -q "quasistatic = true" "$tmp/qs.cfg" && grep -q "iterations = 40000" "$tmp/qs.cfg" || fail "could not prepare the scene"
  t0=$(date +%s.%N)
  "$bin" "$tmp/qs.cfg" --frames 1 --quiet --output "$tmp/ref.h5" || fail "reference run"
  tref=$(elapsed "$t0" "$(date +%s.%N)")
  "$bin" "$tmp/qs.cfg" --frames 1 --output "$tmp/int.h5" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 1 100); do grep -q "frames x 1 substeps" "$tmp/err" 2>/dev/null && break; sleep 0.05; done
  sleep "$(awk -v t="$tref" 'BEGIN { print t / 3 }')"   # a third into the solve, however fast the machine
  t0=$(date +%s.%N); kill -TERM $pid; wait $pid; rc=$?; t1=$(date +%s.%N)
  lat=$(elapsed "$t0" "$t1")
  echo "signal_in_solve: the run takes $tref s; SIGTERM a third into it: exit $rc $lat s later"
  [ $rc = 3 ] || { cat "$tmp/err"; fail "SIGTERM exit $rc"; }
  below "$lat" 1 || fail "exit $lat s after SIGTERM inside a solve (at most 1 s)"
  grep -q "stopped by a signal after frame 0 and 0 of 1 steps of frame 1 (inside the next step: the checkpoint holds its start)" "$tmp/err" ||
    { cat "$tmp/err"; fail "no inside-a-step stop message"; }
  h5dump -a /exit_reason "$tmp/int.h5" | grep -q '"signal"' || fail "exit_reason is not signal"
  "$bin" "$tmp/qs.cfg" --frames 1 --resume --quiet --output "$tmp/int.h5" || fail "resume"
  [ "$(nframes "$tmp/int.h5")" = 2 ] || fail "the resumed file holds $(nframes "$tmp/int.h5") frames, expected 2"
  for d in /frames/positions /frames/time /convergence/iterations /convergence/residual /convergence/history/residual; do
    h5diff "$tmp/ref.h5" "$tmp/int.h5" $d || fail "$d differs after a stop inside the solve and --resume"
  done
  ;;
signal_factor)
  # issue 31: SIGTERM during a CHOLMOD factorisation (Newton on a 16^3 box: 3 s each here) stops
  # within 1 s: the factorisation runs in a worker thread the run stops waiting for
  genbox=$(dirname "$bin")/tools/sipd-genbox
  "$genbox" 16 16 16 1.0 1.0 1.0 "$tmp/box" >/dev/null || fail "genbox"
  printf 'time = { dt = 0.01; frames = 1; };\nsolver = { method = "newton"; linear = "cholmod"; iterations = 20; tolerance = 0.0; };\nmaterials = ( { name = "r"; youngs = 1.0e6; poisson = 0.45; } );\nbodies = ( { mesh = "box"; material = "r"; } );\n' >"$tmp/n.cfg"
  # the abandoned worker keeps CHOLMOD's memory until the process exits (src/sparse.c chol_run, by
  # design): under ASan, LeakSanitizer reports it whenever the signal lands inside the
  # factorisation (CHOLMOD's frames carry no frame pointers, so no narrower suppression matches),
  # so this run alone does not check leaks; the exit status and latency are what it tests
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    "$bin" "$tmp/n.cfg" --device cpu --output "$tmp/n.h5" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 1 200); do grep -q "frames x 1 substeps" "$tmp/err" 2>/dev/null && break; sleep 0.05; done
  sleep 1
  t0=$(date +%s.%N); kill -TERM $pid; wait $pid; rc=$?; t1=$(date +%s.%N)
  lat=$(elapsed "$t0" "$t1")
  echo "signal_factor: exit $rc $lat s after SIGTERM"
  [ $rc = 3 ] || { cat "$tmp/err"; fail "SIGTERM exit $rc"; }
  below "$lat" 1 || fail "exit $lat s after SIGTERM during a factorisation (at most 1 s)"
  grep -q "(inside the next step: the checkpoint holds its start)" "$tmp/err" || { cat "$tmp/err"; fail "no inside-a-step stop message"; }
  [ -f "$tmp/n.h5.ckpt" ] || fail "no checkpoint"
  ;;
history)
  # output.history (issue 31): "all" (default), "every N", "none"; bad values refused with file:line
  sed -e "s|meshes/beam|$src/scenes/meshes/beam|" "$src/scenes/cantilever.cfg" >"$tmp/all.cfg"
  sed -e 's|output   = { file = "../results/cantilever.h5"; };|output = { history = "every 5"; };|' "$tmp/all.cfg" >"$tmp/e5.cfg"
  sed -e 's|output   = { file = "../results/cantilever.h5"; };|output = { history = "none"; };|' "$tmp/all.cfg" >"$tmp/none.cfg"
  grep -q 'history = "every 5"' "$tmp/e5.cfg" || fail "could not prepare the scene"
  "$bin" --dry-run "$tmp/e5.cfg" | grep -q 'history = "every 5";' || fail "--dry-run does not print output.history"
  "$bin" --dry-run "$tmp/all.cfg" | grep -q 'history = "all";' || fail "--dry-run does not print the default output.history"
  for v in '"every 0"' '"every"' '"every 5x"' '"some"' '5'; do
    sed -e "s|history = \"none\"|history = $v|" "$tmp/none.cfg" >"$tmp/bad.cfg"
    expect_rc 2 "bad.cfg:[0-9]+: output.history: " -- --dry-run "$tmp/bad.cfg"
  done
  for c in all e5 none; do "$bin" "$tmp/$c.cfg" --frames 3 --quiet --output "$tmp/$c.h5" || fail "run $c"; done
  rows() { h5dump -H -d "$2" "$tmp/$1.h5" | sed -n 's/.*DATASPACE  SIMPLE { ( \([0-9]*\) ).*/\1/p'; }
  # the per-solve rows are the same; "every 5" keeps iterations 0, 5, 10, ... and each solve's last
  h5diff "$tmp/all.h5" "$tmp/e5.h5" /convergence/iterations || fail "output.history changed the solves"
  its=$(h5dump -d /convergence/iterations -y -w 0 "$tmp/all.h5" | sed -n '/DATA {/,/}/p' | tr -dc '0-9,\n' | tr ',' '\n' | sed '/^$/d')
  want=0; total=0
  for n in $its; do want=$((want + (n + 4) / 5 + ((n - 1) % 5 != 0))); total=$((total + n)); done
  [ "$(rows all /convergence/history/iteration)" = "$total" ] || fail "\"all\": $(rows all /convergence/history/iteration) history rows, $total iterations"
  [ "$(rows e5 /convergence/history/iteration)" = "$want" ] || fail "\"every 5\": $(rows e5 /convergence/history/iteration) history rows, expected $want"
  [ "$(rows none /convergence/history/residual)" = 0 ] || fail "\"none\": history rows written"
  echo "history: $total iterations; rows kept: all $total, every 5 $want, none 0; file sizes $(stat -c %s "$tmp/all.h5") / $(stat -c %s "$tmp/e5.h5") / $(stat -c %s "$tmp/none.h5") bytes"
  ;;
*) fail "unknown case" ;;
esac
echo "ok: $case_name"
