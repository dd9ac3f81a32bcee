#!/usr/bin/env bash
# test_mixed_cli.sh CASE SIPD_RUN SOURCE_DIR — mixed-fem end to end through the command line.
set -u
case_name=$1; bin=$2; src=$3
tmp=$(mktemp -d /tmp/sipd_mixed_cli_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }

case $case_name in
resume_identical)
  # a frugal budget (1 outer iteration, 2 substeps) leaves s != ŝ(x) at every step's end, so the
  # stretches must come back from the checkpoint for the continued run to equal an uninterrupted
  # one bit for bit; then the same with PCG
  for lin in cholmod pcg; do
    sed -e "s|meshes/beam|$src/scenes/meshes/beam|" -e 's|iterations = 3;|iterations = 1; linear = "'$lin'";|' \
        -e 's|frames = 60;|frames = 60; substeps = 2;|' -e 's|substeps = 1; ||' \
        "$src/scenes/cantilever_stiff_mixed.cfg" >"$tmp/m.cfg"
    grep -q "linear = \"$lin\"" "$tmp/m.cfg" || fail "could not prepare the scene"
    "$bin" "$tmp/m.cfg" --frames 8 --quiet --output "$tmp/full.h5" || fail "$lin: reference run"
    "$bin" "$tmp/m.cfg" --frames 3 --quiet --output "$tmp/part.h5" || fail "$lin: first part"
    "$bin" "$tmp/m.cfg" --frames 8 --resume --output "$tmp/part.h5" 2>"$tmp/err" || { cat "$tmp/err"; fail "$lin: resume"; }
    grep -q "resuming from .*part.h5.ckpt at frame 3" "$tmp/err" || fail "$lin: no resume message: $(cat "$tmp/err")"
    for d in /frames/positions /convergence/iterations /convergence/residual /convergence/energy; do
      h5diff "$tmp/full.h5" "$tmp/part.h5" $d || fail "$lin: $d differs after resume"
    done
    rm -f "$tmp/part.h5.ckpt"
  done
  ;;
dry_run)
  "$bin" "$src/scenes/cantilever_stiff_mixed.cfg" --dry-run >"$tmp/out" 2>&1 || fail "dry run: $(cat "$tmp/out")"
  grep -q 'method = "mixed-fem";' "$tmp/out" || fail "no method in the resolved scene"
  grep -q 'linear = "cholmod";' "$tmp/out" || fail "the default linear solve of mixed-fem is not cholmod"
  # the printed parameters load again and print the same (cholmod: no cg_tolerance; pcg: with it)
  for lin in "" 'linear = "pcg"; cg_tolerance = 1.0e-7;'; do
    sed -e "s|meshes/beam|$src/scenes/meshes/beam|" -e "s|tolerance = 1.0e-6;|tolerance = 1.0e-6; $lin|" \
        "$src/scenes/cantilever_stiff_mixed.cfg" >"$tmp/a.cfg"
    "$bin" "$tmp/a.cfg" --dry-run 2>/dev/null | sed -n '/^time = {/,$p' >"$tmp/p1.cfg" || fail "dry run ($lin)"
    "$bin" "$tmp/p1.cfg" --dry-run 2>/dev/null | sed -n '/^time = {/,$p' >"$tmp/p2.cfg" || fail "the printed scene does not load ($lin)"
    cmp -s "$tmp/p1.cfg" "$tmp/p2.cfg" || fail "the printed scene does not print the same ($lin)"
    if [ -n "$lin" ]; then grep -q 'cg_tolerance = ' "$tmp/p1.cfg" || fail "pcg: no cg_tolerance printed"
    else ! grep -q 'cg_tolerance' "$tmp/p1.cfg" || fail "cholmod: cg_tolerance printed"; fi
  done
  ;;
*) fail "unknown case" ;;
esac
exit 0
