#!/usr/bin/env bash
# run.sh BUILD_DIR SECONDS TARGET... — run each libFuzzer harness for SECONDS (make fuzz).
# Seeds come from tests/data (and tests/fuzz/corpus/<target>/ when present); the growing corpus
# is kept in BUILD_DIR/fuzz-corpus/<target>, crashes go to BUILD_DIR/fuzz-artifacts/.  Exit 1
# when any target finds a crash, a leak, a timeout or an out-of-memory.
set -u
build=$1; secs=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd); src=$(cd "$here/../.." && pwd)
data=$src/tests/data
seeds=$build/fuzz-seeds; corpus=$build/fuzz-corpus; art=$build/fuzz-artifacts
mkdir -p "$art"
export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

make_seeds() { # target -> $seeds/target
  local t=$1 d=$seeds/$1 f
  rm -rf "$d"; mkdir -p "$d"
  case $t in
  fuzz_gmsh) cp "$data"/meshes/*ascii*.msh "$data"/meshes/sparse_*.msh "$d"/ ;;
  fuzz_gmsh_binary)   # the header line replaced by the version byte the harness expects
    for f in "$data"/meshes/*_bin.msh; do
      case $f in *v22*) v='\x00' ;; *) v='\x01' ;; esac
      { printf "$v"; tail -n +3 "$f"; } >"$d/$(basename "$f")"
    done ;;
  fuzz_tetgen)
    for f in "$data"/meshes/*.node "$data"/scenes/*.node; do
      b=${f%.node}
      { cat "$f"; echo "#@ele"; cat "$b.ele" 2>/dev/null; [ -f "$b.face" ] && { echo "#@face"; cat "$b.face"; }; } \
        >"$d/$(basename "$b")"
    done ;;
  fuzz_obj) cp "$data"/meshes/*.obj "$d"/ ;;
  fuzz_scene) cp "$data"/scenes/*.cfg "$data"/scenes/bad/*.cfg "$d"/; cp "$src"/scenes/*.cfg "$d"/ 2>/dev/null ;;
  esac
  [ -d "$here/corpus/$t" ] && cp "$here/corpus/$t"/* "$d"/ 2>/dev/null
  return 0
}

status=0
for t in "$@"; do
  make_seeds "$t"
  mkdir -p "$corpus/$t"
  dict=""
  case $t in fuzz_gmsh|fuzz_gmsh_binary) dict="-dict=$here/gmsh.dict" ;; fuzz_scene) dict="-dict=$here/scene.dict" ;; fuzz_obj) dict="-dict=$here/obj.dict" ;; esac
  echo "fuzz: $t for ${secs}s (log $build/$t.log)"
  "$build/tests/fuzz/$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$art/$t-" $dict "$corpus/$t" "$seeds/$t" >"$build/$t.log" 2>&1 &
  pid=$!
  wait $pid; rc=$?
  rm -rf "/dev/shm/sipd_fuzz_$pid" "/tmp/sipd_fuzz_$pid"   # the harness's scratch directory
  grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$build/$t.log" | tr '\n' ' '; echo
  if [ $rc != 0 ]; then
    echo "fuzz: $t FAILED (exit $rc); the input is in $art/:" >&2
    grep -E "ERROR|SUMMARY|Test unit written" "$build/$t.log" | head -20 >&2
    status=1
  fi
done
exit $status
