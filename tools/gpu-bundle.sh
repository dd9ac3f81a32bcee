#!/usr/bin/env bash
# gpu-bundle.sh DIR — build the self-contained GPU bundle (docs/gpu-check.md).
#
#   tools/gpu-bundle.sh [--build BUILD] DIR         (default BUILD: build-bundle)
#
# On a development machine with nvcc (no GPU needed): configures BUILD with -DSIPD_BUNDLE=ON
# (CMakeLists.txt: shared libsipd_core / libsipd_cuda with the CUDA runtime inside, RPATH
# $ORIGIN/../lib) for SIPD_CUDA_ARCH (default 90: H100/H200), builds the programs of the GPU
# check, and writes DIR:
#   gpu-check.sh         the check (tools/gpu/bundle-check.sh): OUT=... DIR/gpu-check.sh [--selftest]
#   bin/                 sipd-run, sipd-genbox, sipd-bench-gpu, sipd-ttt-gpu, sipd-contact-bench-gpu,
#                        test_gpu, test_gpu_coarse, test_gpu_collide
#   lib/                 libsipd_core.so, libsipd_cuda.so and every library they need that a bare
#                        CUDA machine lacks (libconfig, HDF5 and what it pulls in, CHOLMOD, BLAS,
#                        LAPACK, gfortran, OpenMP, ...), copied from this machine
#   scenes/, tests/data/ the scenes and meshes the gpu tests read (the benchmark meshes are
#                        generated on the device)
#   share/               gpu-tests.tsv (the gpu tests: name, timeout, environment, command, from
#                        ctest), registers.md (ptxas -v of the build), coarse-bench.sh,
#                        manifest.txt (commit, date, nvcc, glibc needed, size)
# and checks it: at most 48 MiB; with an empty environment every library of every program
# resolves inside DIR, except the C/C++ runtimes (glibc's libraries, libstdc++,
# libgcc_s) and the CUDA driver (libcuda.so.1, loaded by the CUDA runtime at run time); the
# bundled sipd-run runs a scene with `env -i` from another directory.  Any failure: exit 1.
set -euo pipefail
build="build-bundle"
while [ $# -gt 1 ]; do
  case "$1" in
    --build) build=${2:?}; shift 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: tools/gpu-bundle.sh [--build BUILD] DIR" >&2; exit 2; }
dest=$1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
arch=${SIPD_CUDA_ARCH:-90}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
max_mib=48
fail() { echo "gpu-bundle: $*" >&2; exit 1; }
t0=$(date +%s)

# ---- build ----------------------------------------------------------------------------------------
echo "gpu-bundle: configure $build (SIPD_BUNDLE=ON, sm_$arch)" >&2
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSIPD_BUNDLE=ON -DSIPD_CUDA_ARCH="$arch" >"$build.configure.log" 2>&1 ||
  { tail -30 "$build.configure.log" >&2; fail "configure failed (nvcc on PATH? the CUDA backend is required)"; }
rm -f "$build.configure.log"
# no register table from an earlier build: compile the CUDA files again, so ptxas -v prints it
[ -s "$build/registers.rows" ] || rm -f "$build"/CMakeFiles/sipd_cuda.dir/kernels/*.o
targets="sipd-run sipd-genbox sipd-bench-gpu sipd-ttt-gpu sipd-contact-bench-gpu test_gpu test_gpu_coarse test_gpu_collide"
echo "gpu-bundle: build ($jobs jobs)" >&2
# shellcheck disable=SC2086
cmake --build "$build" -j "$jobs" --target $targets >"$build/bundle-build.log" 2>&1 ||
  { grep -E "error|Error" "$build/bundle-build.log" | head -30 >&2; fail "build failed ($build/bundle-build.log)"; }

# the register table: ptxas -v of the CUDA files as this build compiled them (kept from the last
# build that compiled them: an incremental build that did not recompile reuses it)
if grep -q "Compiling entry function" "$build/bundle-build.log"; then
  awk '
    /Compiling entry function/ { match($0, /'"'"'[^'"'"']*'"'"'/); fn = substr($0, RSTART + 1, RLENGTH - 2); sp = "" }
    /bytes stack frame/        { sp = $0; sub(/^[ \t]+/, "", sp) }
    /Used [0-9]+ registers/    { match($0, /Used [0-9]+ registers/); r = substr($0, RSTART + 5, RLENGTH - 15);
                                 printf "| `%s` | %s | %s |\n", fn, r, sp }' "$build/bundle-build.log" >"$build/registers.rows"
  if command -v c++filt >/dev/null; then c++filt <"$build/registers.rows" >"$build/registers.tmp" && mv "$build/registers.tmp" "$build/registers.rows"; fi
fi

# ---- install: programs, our libraries, then every other library they need ------------------------
rm -rf "$dest"
cmake --install "$build" --prefix "$dest" >/dev/null
dest=$(cd "$dest" && pwd)
# Allowed from the machine: glibc's libraries (the C runtime: they must match the machine's
# libc.so.6, so they are never bundled), the C++ runtime, and the CUDA driver.
allowed='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libmvec\.so\.1|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libresolv\.so\.2|libutil\.so\.1|libanl\.so\.1|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libcuda\.so\.1)$'
for f in "$dest"/bin/* "$dest"/lib/*.so; do
  ldd "$f" | awk '/=>/ && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  if ! printf '%s\n' "$name" | grep -Eq "$allowed" && [ ! -e "$dest/lib/$name" ]; then
    cp -L "$path" "$dest/lib/$name"
    chmod 644 "$dest/lib/$name"
  fi
done

# ---- data: scenes, meshes, the gpu test list ------------------------------------------------------
mkdir -p "$dest/share" "$dest/tests/data/gpu"
cp -r scenes "$dest/scenes"
cp tests/data/gpu/*.cfg "$dest/tests/data/gpu/"
# the kind conformance scene (gpu_kinds_every_kind) and the gmsh meshes it reads
mkdir -p "$dest/tests/data/conformance" "$dest/tests/data/meshes"
cp tests/data/conformance/every_kind.cfg "$dest/tests/data/conformance/"
cp tests/data/meshes/box_v41_ascii.msh tests/data/meshes/cloth_v41_ascii.msh tests/data/meshes/rod_v41_ascii.msh \
   "$dest/tests/data/meshes/"
cp tools/gpu/coarse-bench.sh "$dest/share/coarse-bench.sh"
cp tools/gpu/bundle-check.sh "$dest/gpu-check.sh"
chmod 755 "$dest/gpu-check.sh"
# the gpu-labelled tests of this build: the quick checks of single ops and kernels first, then
# the scenes, the expensive ones last (in this order),
# paths made relative to the bundle: name <TAB> timeout <TAB> environment (or -) <TAB> program <TAB> arguments
(cd "$build" && ctest -L gpu --show-only=json-v1) >"$build/gpu-tests.json"
python3 - "$build/gpu-tests.json" "$root" "$dest" >"$dest/share/gpu-tests.tsv" <<'PY'
import json, os, sys
tests = json.load(open(sys.argv[1]))["tests"]
root, dest = sys.argv[2], sys.argv[3]
first = ["gpu_profile", "gpu_energy", "gpu_methods", "gpu_splits", "gpu_fused", "gpu_collide", "gpu_coarse_ops"]
last = ["gpu_coarse_budget", "gpu_big", "gpu_scene_twisted_beams", "gpu_scene_noodles", "gpu_scene_bunny_kinds",
        "gpu_scene_noodles_bench"]
rows = []
for t in tests:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    if "gpu" not in props.get("LABELS", []):
        continue
    cmd = t["command"]
    args = []
    for a in cmd[1:]:
        if a.startswith(root + "/"):
            a = os.path.relpath(a, root)
            if not os.path.exists(os.path.join(dest, a)):
                sys.exit("gpu-bundle: test %s reads %s, which is not in the bundle" % (t["name"], a))
        if "\t" in a or " " in a:
            sys.exit("gpu-bundle: test %s: argument with a blank: %r" % (t["name"], a))
        args.append(a)
    exe = os.path.basename(cmd[0])
    if not os.path.exists(os.path.join(dest, "bin", exe)):
        sys.exit("gpu-bundle: test %s runs %s, which is not in the bundle" % (t["name"], exe))
    env = " ".join(props.get("ENVIRONMENT", [])) or "-"
    rank = (first.index(t["name"]) - len(first) if t["name"] in first else
            last.index(t["name"]) + 1 if t["name"] in last else 0)
    rows.append((rank, len(rows), "\t".join([t["name"], str(int(float(props.get("TIMEOUT", 300)))), env, exe,
                                                 " ".join(args)])))
if not rows:
    sys.exit("gpu-bundle: no gpu-labelled tests in the build")
for r in sorted(rows):
    print(r[2])
PY
if [ -s "$build/registers.rows" ]; then
  {
    echo "k_element<precond, split>: precond 0 split, 1 block, 2 diag, 3 mass, 4 newton; split 0 expanded, 1 sign, 2 none, 3 clamp, 4 abs"
    echo
    echo "| kernel | registers | stack / spills |"
    echo "|---|---:|---|"
    grep k_element "$build/registers.rows" || true
    grep -v k_element "$build/registers.rows" || true
  } >"$dest/share/registers.md"
fi

# ---- checks ---------------------------------------------------------------------------------------
# (the programs: ldd follows each one's dependencies as the loader does, the program's DT_RPATH
# serving the bundled libraries, which have no RPATH of their own)
bad=0
for f in "$dest"/bin/*; do
  out=$(env -i "$(command -v ldd)" "$f" 2>&1) || { echo "gpu-bundle: ldd $f failed: $out" >&2; bad=1; continue; }
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || continue
    if [ "$path" = "not" ]; then
      echo "gpu-bundle: $(basename "$f"): $name not found" >&2; bad=1
    elif [ "${path#"$dest"/}" = "$path" ] && ! printf '%s\n' "$name" | grep -Eq "$allowed"; then
      echo "gpu-bundle: $(basename "$f"): $name resolves outside the bundle ($path)" >&2; bad=1
    fi
  done <<<"$out"
done
[ $bad = 0 ] || fail "library check failed"
size=$(du -sb "$dest" | awk '{print $1}')
[ "$size" -le $((max_mib * 1048576)) ] || fail "the bundle is $((size / 1048576)) MiB, over $max_mib MiB"
# the bundled sipd-run, empty environment, from another directory (the CPU backend: no GPU here)
scratch=$(mktemp -d) jail=""
cleanup() {
  if [ -n "$jail" ]; then
    umount "$jail/proc" 2>/dev/null || true
    rm -rf --one-file-system "$jail" || true
  fi
  rm -rf "$scratch" || true
}
trap cleanup EXIT
(cd "$scratch" && env -i "$dest/bin/sipd-run" "$dest/scenes/cantilever.cfg" --device cpu --frames 1 --quiet \
   --output "$scratch/c.h5" >"$scratch/run.log" 2>&1) || { cat "$scratch/run.log" >&2; fail "the bundled sipd-run failed with env -i"; }
[ -s "$scratch/c.h5" ] || fail "the bundled sipd-run wrote no output"
# A bare machine, as far as this one can show it (root only): a chroot holding nothing but the
# bundle, glibc's libraries and the C++ runtime (and /proc, which $ORIGIN needs), where sipd-run
# must write a scene's HDF5 file and test_gpu pass a case with the CPU standing in.  This also
# catches what ldd cannot see (libraries opened at run time).  Skipped, with a note, where chroot
# or mounting /proc is refused.
chroot_check="not run (needs root, chroot and mount)"
if [ "$(id -u)" = 0 ] && command -v chroot >/dev/null; then
  jail=$(mktemp -d)
  for f in "$dest"/bin/*; do ldd "$f"; done | awk '/=>/ && $3 ~ /^\// {print $1, $3} $1 ~ /^\// {print $1, $1}' | sort -u |
    while read -r name path; do
      if printf '%s\n' "$(basename "$name")" | grep -Eq "$allowed"; then
        mkdir -p "$jail$(dirname "$path")"
        cp -L "$path" "$jail$path"
      fi
    done
  mkdir -p "$jail/proc" "$jail/tmp"
  cp -a "$dest" "$jail/b"
  if mount -t proc proc "$jail/proc" 2>/dev/null; then
    (cd / && env -i "$(command -v chroot)" "$jail" /b/bin/sipd-run /b/scenes/cantilever.cfg --device cpu --frames 1 --quiet \
       --output /tmp/c.h5 && env -i SIPD_TEST_GPU_SELFTEST=1 "$(command -v chroot)" "$jail" /b/bin/test_gpu methods) \
       >"$scratch/chroot.log" 2>&1 && [ -s "$jail/tmp/c.h5" ] ||
      { cat "$scratch/chroot.log" >&2; fail "the bundle does not run in a chroot of glibc, libstdc++ and itself"; }
    chroot_check="passed (sipd-run, test_gpu methods in a chroot of glibc, libstdc++, libgcc_s and the bundle)"
  else
    chroot_check="not run (mounting /proc in the chroot was refused)"
  fi
fi
echo "gpu-bundle: chroot check: $chroot_check" >&2

# ---- manifest -------------------------------------------------------------------------------------
glibc_needed=$(for f in "$dest"/bin/* "$dest"/lib/*.so*; do objdump -T "$f" 2>/dev/null; done |
               grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
glibcxx_needed=$(for f in "$dest"/bin/* "$dest"/lib/*.so*; do objdump -T "$f" 2>/dev/null; done |
                 grep -o 'GLIBCXX_[0-9][0-9.]*' | sed 's/GLIBCXX_//' | sort -V | tail -1)
{
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "describe: $(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname 2>/dev/null || echo unknown) ($(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"))"
  nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
  echo "nvcc: $("$nvcc" --version 2>/dev/null | tail -1)"
  echo "arch: $arch"
  echo "cmake_options: -DCMAKE_BUILD_TYPE=Release -DSIPD_BUNDLE=ON -DSIPD_CUDA_ARCH=$arch"
  echo "glibc_needed: $glibc_needed"
  echo "glibcxx_needed: $glibcxx_needed"
  echo "size: $((size / 1048576)) MiB"
  echo "files: $(find "$dest" -type f | wc -l)"
  echo "tests: $(wc -l <"$dest/share/gpu-tests.tsv")"
  echo "chroot_check: $chroot_check"
} >"$dest/share/manifest.txt"
echo "gpu-bundle: $dest: $((size / 1048576)) MiB, $(ls "$dest/lib" | wc -l) libraries, $(wc -l <"$dest/share/gpu-tests.tsv") gpu tests," \
     "commit $(sed -n 's/^describe: //p' "$dest/share/manifest.txt"), needs glibc >= $glibc_needed; $(( $(date +%s) - t0 )) s" >&2
