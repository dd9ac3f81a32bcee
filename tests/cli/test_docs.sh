#!/usr/bin/env bash
# test_docs.sh CASE SOURCE_DIR ARG — the documentation, the version and the install, checked
# against the program itself (tests/cli/docs.cmake):
#   keys SRC SCENE_KEYS            every key the scene parser accepts is in docs/scene-reference.md,
#                                  and every key row of its tables is a key the parser accepts
#   keys_selftest SRC SCENE_KEYS   the keys check reports a key whose mentions are removed
#   first_run SRC SIPD_RUN         the README's install block names a set-up script and a make target
#                                  that exist, and its "First run" command runs as written
#   first_scene SRC SIPD_RUN       the README's "Your first scene": the .geo and the scene equal the
#                                  shipped files, the step snippets are parts of the scene, the
#                                  commands run, the Python snippet prints the output shown
#   man_help SRC SIPD_RUN          docs/sipd-run.1 lists exactly the options of --help and renders
#   version SRC SIPD_RUN           one version in CMakeLists.txt, --version, CHANGELOG.md,
#                                  CITATION.cff and the man page
#   install SRC BUILD_DIR          cmake --install into a temporary prefix, then run what it installed
# Exit 77 (skipped) only where a tool the case needs is missing (man_help: groff and man).
set -u
case_name=$1; src=$2; arg=$3
tmp=$(mktemp -d /tmp/sipd_docs_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
readme=$src/README.md

# block NAME FILE: the lines between <!-- NAME:begin --> and <!-- NAME:end -->, without code fences
# and without the 4-space indent of an indented code block
block() {
  awk -v b="<!-- $1:begin -->" -v e="<!-- $1:end -->" '
    $0 == e {f = 0}
    f && /^```/ {fenced = 1}
    f && !/^```/ {line[n++] = $0}
    $0 == b {f = 1}
    END {for (i = 0; i < n; i++) {s = line[i]; if (!fenced) sub(/^    /, "", s); print s}}' "$2"
}

# check_keys DOC KEYS: prints "missing KEY" for each parser key not written as `KEY` in DOC and
# "unknown KEY" for each key row (| `KEY` | ...) of DOC's tables that the parser does not accept
check_keys() {
  local doc=$1 keys=$2 k
  while IFS= read -r k; do
    grep -qF -- "\`$k\`" "$doc" || echo "missing $k"
  done <"$keys"
  grep -oE '^\| `[a-z_][a-z_.]*(\[\][a-z_.]*)*` \|' "$doc" | sed -E 's/^\| `([^`]*)` \|$/\1/' |
    while IFS= read -r k; do
      grep -qxF -- "$k" "$keys" || echo "unknown $k"
    done
}

case $case_name in
keys|keys_selftest)
  "$arg" >"$tmp/keys" || fail "scene_keys exited $?"
  n=$(wc -l <"$tmp/keys")
  [ "$n" -ge 60 ] || fail "scene_keys printed only $n keys: $(tr '\n' ' ' <"$tmp/keys")"
  grep -qxF "bodies[].pin.box_min" "$tmp/keys" || fail "scene_keys lacks bodies[].pin.box_min"
  doc=$src/docs/scene-reference.md
  if [ "$case_name" = keys ]; then
    check_keys "$doc" "$tmp/keys" >"$tmp/report"
    [ -s "$tmp/report" ] && { cat "$tmp/report" >&2; fail "docs/scene-reference.md and the scene parser disagree (above)"; }
    echo "docs/scene-reference.md documents all $n keys of the scene parser"
  else
    # remove every mention of one key (a nested one, and a top-level one) from a copy of the page
    for k in "bodies[].move.center" "gravity" "solver.coarse.refresh"; do
      grep -qxF -- "$k" "$tmp/keys" || fail "selftest key $k is not a parser key"
      text=$(cat "$doc")
      printf '%s\n' "${text//"\`$k\`"/}" >"$tmp/doc.md"
      check_keys "$tmp/doc.md" "$tmp/keys" >"$tmp/report"
      printf 'missing %s\n' "$k" >"$tmp/want"
      # a key-table row of the removed key becomes "| |": not a row of another key
      cmp -s "$tmp/report" "$tmp/want" || { cat "$tmp/report" >&2; fail "removing $k: the check reported the above, expected 'missing $k'"; }
    done
    # and a row for a key the parser does not know is reported
    { cat "$doc"; printf '\n| `solver.iteration` | integer | 1 | a typo |\n'; } >"$tmp/doc.md"
    check_keys "$tmp/doc.md" "$tmp/keys" >"$tmp/report"
    grep -qxF "unknown solver.iteration" "$tmp/report" || fail "an unknown key row was not reported: $(cat "$tmp/report")"
    echo "the keys check reports a removed key and an unknown row"
  fi
  ;;
first_run)
  # the install commands above it: the set-up script exists and parses, `make test` is a target
  block install "$readme" | sed 's/ *#.*//' >"$tmp/install"
  [ "$(sed -n 1p "$tmp/install")" = "bash tools/setup-debian.sh" ] && [ "$(sed -n 2p "$tmp/install")" = "make test" ] ||
    fail "README's install block is not 'bash tools/setup-debian.sh' + 'make test': $(cat "$tmp/install")"
  bash -n "$src/tools/setup-debian.sh" || fail "tools/setup-debian.sh does not parse"
  grep -q '^test:' "$src/Makefile" || fail "the Makefile has no test target"
  cmd=$(block first-run "$readme")
  [ -n "$cmd" ] || fail "no <!-- first-run --> block in README.md"
  # a copy of the repository layout the command expects: build/sipd-run, scenes/, results/
  mkdir -p "$tmp/repo/build" "$tmp/repo/scenes/meshes" "$tmp/repo/results"
  ln -s "$arg" "$tmp/repo/build/sipd-run"
  cp "$src/scenes/cantilever.cfg" "$tmp/repo/scenes/"
  cp "$src"/scenes/meshes/beam.* "$tmp/repo/scenes/meshes/"
  (cd "$tmp/repo" && OMP_NUM_THREADS=1 bash -e -c "$cmd") >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; fail "the README's first run '$cmd' failed"; }
  for f in results/cantilever.h5 results/cantilever.xdmf; do
    [ -s "$tmp/repo/$f" ] || fail "the first run wrote no $f"
  done
  # "every solve here converges to the default tolerance"
  h5dump -a solves_not_converged "$tmp/repo/results/cantilever.h5" | grep -q '"0 of ' ||
    fail "the first run left solves unconverged: $(h5dump -a solves_not_converged "$tmp/repo/results/cantilever.h5")"
  grep -q "frame 60/60" "$tmp/err" || fail "no 'frame 60/60' progress line: $(tail -3 "$tmp/err")"
  ;;
first_scene)
  block first-scene "$readme" >"$tmp/first.cfg"
  block first-geo "$readme" >"$tmp/beam.geo"
  [ -s "$tmp/first.cfg" ] && [ -s "$tmp/beam.geo" ] || fail "no first-scene / first-geo block in README.md"
  cmp -s "$tmp/first.cfg" "$src/scenes/first/first.cfg" ||
    { diff "$tmp/first.cfg" "$src/scenes/first/first.cfg" >&2; fail "README's scene differs from scenes/first/first.cfg"; }
  cmp -s "$tmp/beam.geo" "$src/scenes/first/beam.geo" ||
    { diff "$tmp/beam.geo" "$src/scenes/first/beam.geo" >&2; fail "README's .geo differs from scenes/first/beam.geo"; }
  # the snippets of steps 2-4 are parts of the whole scene (same text, comments aside)
  awk '/^### 2\. / {f = 1} /^### 5\. / {f = 0} f' "$readme" |
    awk '/^```$/ {c = !c; next} c' >"$tmp/snippets"
  [ "$(wc -l <"$tmp/snippets")" -ge 10 ] || fail "found no scene snippets in the steps"
  sed 's/ *#.*//' "$tmp/first.cfg" >"$tmp/scene_nocomment"
  while IFS= read -r line; do
    line=$(printf '%s' "$line" | sed 's/ *#.*//; s/^ *//; s/ *$//')
    [ -z "$line" ] && continue
    grep -qF -- "$line" "$tmp/scene_nocomment" || fail "snippet line not in the whole scene: $line"
  done <"$tmp/snippets"
  # gmsh 4.8.4 (Debian 12's, which made the shipped mesh) meshes the .geo to the shipped .msh
  if command -v gmsh >/dev/null && [ "$(gmsh --version 2>&1 | tail -1)" = 4.8.4 ]; then
    (cd "$tmp" && gmsh beam.geo -3 -format msh22 -o gmsh_beam.msh >/dev/null 2>&1) || fail "gmsh failed on beam.geo"
    cmp -s "$tmp/gmsh_beam.msh" "$src/scenes/first/beam.msh" || fail "gmsh 4.8.4 meshes beam.geo differently from scenes/first/beam.msh"
  fi
  # the reader's layout: first/ next to build/sipd-run, the shipped mesh copied in
  mkdir -p "$tmp/repo/build" "$tmp/repo/first"
  ln -s "$arg" "$tmp/repo/build/sipd-run"
  cp "$tmp/first.cfg" "$src/scenes/first/beam.msh" "$tmp/repo/first/"
  block first-commands "$readme" >"$tmp/commands"
  [ "$(wc -l <"$tmp/commands")" = 2 ] || fail "expected two first-commands lines: $(cat "$tmp/commands")"
  i=0
  while IFS= read -r cmd; do
    i=$((i + 1))
    (cd "$tmp/repo/first" && OMP_NUM_THREADS=1 bash -e -c "$cmd") >"$tmp/out$i" 2>"$tmp/err$i" </dev/null ||
      { cat "$tmp/err$i" >&2; fail "'$cmd' failed"; }
  done <"$tmp/commands"
  grep -q "2 bodies, 220 vertices, 508 tets" "$tmp/out1" || fail "--dry-run summary differs from the README's: $(grep model "$tmp/out1")"
  out=$tmp/repo/first/first.h5
  [ -s "$out" ] && [ -s "$tmp/repo/first/first.xdmf" ] || fail "the run wrote no first.h5 / first.xdmf"
  h5dump -a solves_not_converged "$out" | grep -q '"0 of 120"' ||
    fail "the README says every one of 120 solves converges: $(h5dump -a solves_not_converged "$out" | grep '(0)')"
  # the Python snippet and the output the README shows (needs h5py)
  py=""
  for p in python3 /usr/bin/python3; do
    command -v "$p" >/dev/null && "$p" -c 'import h5py' 2>/dev/null && { py=$p; break; }
  done
  if [ -n "$py" ]; then
    block first-python "$readme" >"$tmp/snippet.py"
    block first-python-output "$readme" >"$tmp/want"
    (cd "$tmp/repo/first" && "$py" "$tmp/snippet.py") >"$tmp/got" 2>"$tmp/pyerr" || { cat "$tmp/pyerr" >&2; fail "the README's Python snippet failed"; }
    cmp -s "$tmp/got" "$tmp/want" || { diff "$tmp/want" "$tmp/got" >&2; fail "the Python snippet printed other than the README shows"; }
  else
    echo "no python3 with h5py: the README's Python snippet was not run" >&2
  fi
  ;;
man_help)
  man=$src/docs/sipd-run.1
  "$arg" --help >"$tmp/help" || fail "--help exited $?"
  grep -oE '^ +--[a-z][a-z-]*' "$tmp/help" | tr -d ' ' | sort -u >"$tmp/help_opts"
  grep -oE '\\-\\-[a-z][a-z\\-]*' "$man" | sed 's/\\-/-/g' | sort -u >"$tmp/man_opts"
  [ "$(wc -l <"$tmp/help_opts")" -ge 10 ] || fail "found only $(wc -l <"$tmp/help_opts") options in --help"
  cmp -s "$tmp/help_opts" "$tmp/man_opts" ||
    { diff "$tmp/help_opts" "$tmp/man_opts" >&2; fail "docs/sipd-run.1 and --help list different options (< --help, > man page)"; }
  # ... and each of them is in the SYNOPSIS and has its entry under OPTIONS
  for sec in SYNOPSIS OPTIONS; do
    awk -v s=".SH $sec" '/^\.SH / {f = ($0 == s)} f' "$man" | grep -oE '\\-\\-[a-z][a-z\\-]*' | sed 's/\\-/-/g' |
      sort -u >"$tmp/sec_opts"
    cmp -s "$tmp/help_opts" "$tmp/sec_opts" ||
      { diff "$tmp/help_opts" "$tmp/sec_opts" >&2; fail "the man page's $sec lists other options than --help (< --help, > $sec)"; }
  done
  rendered=0
  if command -v groff >/dev/null; then
    groff -man -Tutf8 -ww -z "$man" 2>"$tmp/groff" || fail "groff failed on the man page"
    [ -s "$tmp/groff" ] && { cat "$tmp/groff" >&2; fail "groff warns about the man page"; }
    rendered=1
  fi
  if command -v man >/dev/null; then
    MANWIDTH=80 man -l "$man" >"$tmp/page" 2>"$tmp/manerr" </dev/null || { cat "$tmp/manerr" >&2; fail "man -l failed"; }
    grep -q "simulate deformable solids, cloth and rods" "$tmp/page" || fail "man -l output lacks the NAME line"
    grep -q "EXIT STATUS" "$tmp/page" || fail "man -l output lacks EXIT STATUS"
    rendered=1
  fi
  [ $rendered = 1 ] || { echo "neither groff nor man installed: the page was compared, not rendered" >&2; exit 77; }
  ;;
version)
  v_cmake=$(sed -n 's/^project(sipd_run VERSION \([0-9][0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")
  v_bin=$("$arg" --version | awk 'NR == 1 {print $2}')
  v_log=$(grep -m1 -E '^## \[[0-9]+\.[0-9]+\.[0-9]+\]' "$src/CHANGELOG.md" | sed -E 's/^## \[([^]]*)\].*/\1/')
  v_cff=$(sed -n 's/^version: *//p' "$src/CITATION.cff" | tr -d '"'"'")
  v_man=$(sed -n 's/^\.TH .*"sipd-run \([0-9][0-9.]*\)".*/\1/p' "$src/docs/sipd-run.1")
  echo "CMakeLists.txt $v_cmake, --version $v_bin, CHANGELOG.md $v_log, CITATION.cff $v_cff, sipd-run.1 $v_man"
  [ -n "$v_cmake" ] || fail "no project(sipd_run VERSION x.y.z ...) in CMakeLists.txt"
  for v in "$v_bin" "$v_log" "$v_cff" "$v_man"; do
    [ "$v" = "$v_cmake" ] || fail "versions differ (above)"
  done
  grep -q "^MIT License" "$src/LICENSE" || fail "LICENSE is not the MIT licence"
  grep -q "the sipd-run authors" "$src/LICENSE" || fail "LICENSE: no copyright line for the sipd-run authors"
  for t in "Semi-Implicit Pairwise Descent for Nonlocal Continuum Mechanics" \
           "Mixed Variational Finite Elements for Implicit, General-Purpose Simulation of Deformables"; do
    grep -qF "title: $t" "$src/CITATION.cff" || fail "CITATION.cff does not cite \"$t\""
  done
  ;;
install)
  build=$arg; prefix=$tmp/prefix
  cmake --install "$build" --prefix "$prefix" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; fail "cmake --install failed"; }
  for f in bin/sipd-run share/man/man1/sipd-run.1 share/sipd-run/scenes/cantilever.cfg \
           share/sipd-run/scenes/meshes/beam.node share/sipd-run/scenes/first/first.cfg \
           share/sipd-run/scenes/first/beam.msh share/doc/sipd-run/README.md share/doc/sipd-run/LICENSE \
           share/doc/sipd-run/CHANGELOG.md; do
    [ -e "$prefix/$f" ] || fail "not installed: $f (installed: $(cd "$prefix" && find . -type f | head -20 | tr '\n' ' '))"
  done
  [ -x "$prefix/bin/sipd-run" ] || fail "bin/sipd-run is not executable"
  # every example scene is installed, and loads with the installed meshes (the 1.1M-tet
  # benchmark pile excepted: seconds to load)
  for s in "$src"/scenes/*.cfg; do
    n=$(basename "$s")
    [ -f "$prefix/share/sipd-run/scenes/$n" ] || fail "scene $n not installed"
    [ "$n" = noodles_bench.cfg ] && continue
    "$prefix/bin/sipd-run" --dry-run "$prefix/share/sipd-run/scenes/$n" >/dev/null 2>"$tmp/err" ||
      { cat "$tmp/err" >&2; fail "the installed sipd-run cannot load the installed $n"; }
  done
  OMP_NUM_THREADS=1 "$prefix/bin/sipd-run" "$prefix/share/sipd-run/scenes/first/first.cfg" --frames 3 --quiet \
    --output "$tmp/run.h5" 2>"$tmp/err" || { cat "$tmp/err" >&2; fail "the installed binary failed on the installed first scene"; }
  [ -s "$tmp/run.h5" ] || fail "the installed run wrote no output"
  "$prefix/bin/sipd-run" --version | grep -q "^sipd-run [0-9]" || fail "installed --version"
  if command -v man >/dev/null; then
    MANWIDTH=80 man -l "$prefix/share/man/man1/sipd-run.1" 2>/dev/null </dev/null | grep -q "EXIT STATUS" ||
      fail "the installed man page does not render with man -l"
  fi
  echo "installed into $prefix: $(cd "$prefix" && find . -type f | wc -l) files"
  ;;
*)
  fail "unknown case"
  ;;
esac
exit 0
