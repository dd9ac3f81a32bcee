#!/usr/bin/env bash
# test_precision.sh CASE SIPD_RUN SOURCE_DIR — --precision float32|float64 (docs/precision.md):
# the float32 CPU backend runs and says so in the output, agrees with float64, and what it does not
# run is refused with exit status 2 and the feature named.
set -u
case_name=$1; bin=$2; src=$3
tmp=$(mktemp -d /tmp/sipd_precision_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }

expect_rc() { # expected-rc stderr-pattern -- args...
  local want=$1 pat=$2; shift 3
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  [ "$rc" = "$want" ] || { cat "$tmp/err" >&2; fail "sipd-run $* exited $rc, expected $want"; }
  [ -z "$pat" ] || grep -qE -- "$pat" "$tmp/err" || { cat "$tmp/err" >&2; fail "stderr of 'sipd-run $*' lacks /$pat/"; }
}
attr() { h5dump -a "/$2" "$1" | sed -n 's/.*(0): "\(.*\)"/\1/p'; }

scene=$src/scenes/cantilever.cfg
case $case_name in
help)
  "$bin" --help >"$tmp/out" 2>&1 || fail "--help exit $?"
  grep -q -- "--precision float32|float64" "$tmp/out" || fail "--help does not list --precision"
  grep -qF -- '\-\-precision' "$src/docs/sipd-run.1" || fail "the man page does not document --precision"
  ;;
run)
  # the same two frames in float64 and float32 on the CPU: the precision attribute, the device line,
  # positions within 1e-4 of the bounding-box diagonal (about 1.04 m here) but not identical
  expect_rc 0 "device: cpu \(float32" -- "$scene" --frames 2 --device cpu --precision float32 --output "$tmp/f32.h5"
  [ "$(attr "$tmp/f32.h5" precision)" = float32 ] || fail "precision attribute: $(attr "$tmp/f32.h5" precision)"
  [ "$(attr "$tmp/f32.h5" device)" = cpu ] || fail "device attribute: $(attr "$tmp/f32.h5" device)"
  grep -q "round-off of the float32 state" "$tmp/err" || fail "the float32 solves do not report their round-off floor"
  expect_rc 0 "device: cpu \(float64" -- "$scene" --frames 2 --device cpu --precision float64 --output "$tmp/f64.h5"
  [ "$(attr "$tmp/f64.h5" precision)" = float64 ] || fail "precision attribute: $(attr "$tmp/f64.h5" precision)"
  expect_rc 0 "device: cpu \(float64" -- "$scene" --frames 2 --device cpu --output "$tmp/def.h5"
  [ "$(attr "$tmp/def.h5" precision)" = float64 ] || fail "the CPU's default precision is not float64"
  h5diff -d 1e-4 "$tmp/f32.h5" "$tmp/f64.h5" /frames/positions >"$tmp/diff" 2>&1 ||
    { cat "$tmp/diff" >&2; fail "float32 and float64 positions differ by more than 1e-4 m"; }
  ! h5diff "$tmp/f32.h5" "$tmp/f64.h5" /frames/positions >/dev/null 2>&1 || fail "float32 and float64 positions are identical"
  h5diff "$tmp/f64.h5" "$tmp/def.h5" /frames/positions >/dev/null 2>&1 || fail "--precision float64 changed the CPU's results"
  # the scene key `precision`, and --precision over it
  { echo 'precision = "float32";'; sed 's#"meshes/beam"#"'"$src"'/scenes/meshes/beam"#' "$scene"; } >"$tmp/key.cfg"
  expect_rc 0 "device: cpu \(float32" -- "$tmp/key.cfg" --frames 1 --device cpu --output "$tmp/key32.h5"
  [ "$(attr "$tmp/key32.h5" precision)" = float32 ] || fail "scene precision = float32: $(attr "$tmp/key32.h5" precision)"
  expect_rc 0 "device: cpu \(float64" -- "$tmp/key.cfg" --frames 1 --device cpu --precision float64 --output "$tmp/key64.h5"
  [ "$(attr "$tmp/key64.h5" precision)" = float64 ] || fail "--precision float64 did not override the scene's float32"
  # newton in float32 (the assembled Hessian converted into the double matrix)
  sed 's/method = "sipd"; sweep = "jacobi";/method = "newton";/; s#"meshes/beam"#"'"$src"'/scenes/meshes/beam"#' \
    "$scene" >"$tmp/newton.cfg"
  grep -q 'method = "newton"' "$tmp/newton.cfg" || fail "could not write the newton scene"
  expect_rc 0 "device: cpu \(float32" -- "$tmp/newton.cfg" --frames 1 --device cpu --precision float32 --output "$tmp/n32.h5"
  [ "$(attr "$tmp/n32.h5" precision)" = float32 ] || fail "newton float32: precision $(attr "$tmp/n32.h5" precision)"
  # --dry-run names the backend
  expect_rc 0 "" -- "$scene" --dry-run --device cpu --precision float32 --output "$tmp/dry.h5"
  grep -q "^# device: cpu-float32 " "$tmp/out" || fail "--dry-run does not name cpu-float32: $(grep device "$tmp/out")"
  ;;
refuse)
  expect_rc 2 "--precision: expected float32 or float64, got 'float16'" -- "$scene" --precision float16
  expect_rc 2 "precision float64: the CUDA backend computes in float32 only" -- "$scene" --device cuda --precision float64
  expect_rc 2 "precision float32: contact.ccd with contact pairs .* float64" -- "$src/scenes/ball_collision.cfg" --device cpu \
    --precision float32 --output "$tmp/b.h5"
  [ ! -e "$tmp/b.h5" ] || fail "a refused run wrote its output"
  # the same refusal when the scene asks for float32
  { echo 'precision = "float32";'; sed 's#"meshes/ball.msh"#"'"$src"'/scenes/meshes/ball.msh"#' \
      "$src/scenes/ball_collision.cfg"; } >"$tmp/pairs32.cfg"
  expect_rc 2 "precision float32: contact.ccd with contact pairs" -- "$tmp/pairs32.cfg" --device cpu --output "$tmp/p.h5"
  ;;
resume)
  # a float32 run with ground friction and the adaptive guess, stopped after 2 frames and resumed to
  # 4, equals the uninterrupted 4 frames bit for bit: the checkpoint's friction anchors and
  # velocity history go through the double interface and back exactly
  tb=$tmp/tilted.cfg
  sed 's#"meshes/cube"#"'"$src"'/scenes/meshes/cube"#' "$src/scenes/tilted_block.cfg" >"$tb"
  expect_rc 0 "" -- "$tb" --frames 4 --device cpu --precision float32 --output "$tmp/full.h5"
  expect_rc 0 "" -- "$tb" --frames 2 --device cpu --precision float32 --output "$tmp/part.h5"
  expect_rc 0 "resuming from" -- "$tb" --frames 4 --device cpu --precision float32 --output "$tmp/part.h5" --resume
  h5diff "$tmp/full.h5" "$tmp/part.h5" /frames/positions >"$tmp/diff" 2>&1 ||
    { cat "$tmp/diff" >&2; fail "the resumed float32 run differs from the uninterrupted one"; }
  # the same with contact pairs and their friction (the pairs' anchor store in the checkpoint):
  # the balls touch from frame 6 on (resumed from frame 7: the store then holds anchors)
  pc=$tmp/pairs.cfg
  sed 's#"../../../scenes/meshes/ball.msh"#"'"$src"'/scenes/meshes/ball.msh"#; s/stiffness = 2.0e4;/stiffness = 2.0e4; friction = 0.3;/' \
    "$src/tests/data/scenes/cpu32_pairs.cfg" >"$pc"
  grep -q "friction = 0.3" "$pc" || fail "could not write the friction pairs scene"
  expect_rc 0 "" -- "$pc" --frames 8 --device cpu --precision float32 --output "$tmp/pfull.h5"
  expect_rc 0 "" -- "$pc" --frames 7 --device cpu --precision float32 --output "$tmp/ppart.h5"
  expect_rc 0 "resuming from" -- "$pc" --frames 8 --device cpu --precision float32 --output "$tmp/ppart.h5" --resume
  h5dump -d /convergence/contacts "$tmp/pfull.h5" | grep -qE "[1-9][0-9]*, [1-9]" || fail "the balls never touched"
  h5diff "$tmp/pfull.h5" "$tmp/ppart.h5" /frames/positions >"$tmp/diff" 2>&1 ||
    { cat "$tmp/diff" >&2; fail "the resumed float32 run with pairs differs from the uninterrupted one"; }
  ;;
*) fail "unknown case" ;;
esac
