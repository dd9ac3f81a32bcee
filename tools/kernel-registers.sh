#!/usr/bin/env bash
# kernel-registers.sh — registers, spills and stack frames of every CUDA kernel, read off ptxas.
#
# Usage: tools/kernel-registers.sh [--markdown] [--log FILE] [FILE.cu ...]
#   Compiles kernels/*.cu (or the files named) for sm_$SIPD_CUDA_ARCH (default 90) with the
#   device-code flags of the CUDA build (CMakeLists.txt, target sipd_cuda, Release:
#   -O3 -DNDEBUG -std=c++17 -DSIPD_REAL_FLOAT -Isrc -lineinfo) plus -Xptxas -v, device code only
#   (-cubin: the host compilation does not change the device code), and prints one line per
#   kernel instantiation, demangled:
#     kernel<TAB>registers<TAB>spill_stores<TAB>spill_loads<TAB>stack   (bytes; kernel = name<template args>)
#   sorted by file order then name.  --markdown prints a markdown table instead; --log keeps
#   ptxas's raw output.  NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc) picks the
#   compiler.  No GPU needed.  Exit 77 when no nvcc is found (CTest's skip code), 1 on a failed
#   compile or an empty listing.
#
# The register budget test (tests/gpu/regs.cmake, CTest label `regs`) runs this script and
# compares it with tests/gpu/register-budget.txt; docs/gpu.md#registers explains the numbers.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
arch=${SIPD_CUDA_ARCH:-90}
markdown=0
log=
files=()
while [ $# -gt 0 ]; do
  case $1 in
    --markdown) markdown=1 ;;
    --log) log=$2; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "kernel-registers.sh: unknown option $1" >&2; exit 2 ;;
    *) files+=("$1") ;;
  esac
  shift
done
[ ${#files[@]} -gt 0 ] || files=("$here"/kernels/*.cu)

nvcc=${NVCC:-}
if [ -z "$nvcc" ]; then
  nvcc=$(command -v nvcc || true)
  [ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; } || true
fi
if [ -z "$nvcc" ] || ! [ -x "$nvcc" ]; then
  echo "kernel-registers.sh: no nvcc (set NVCC or put it on PATH)" >&2
  exit 77
fi
filt=$(command -v c++filt || command -v cu++filt || true)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
raw=$tmp/ptxas.log
: >"$raw"
for f in "${files[@]}"; do
  echo "# file $(basename "$f")" >>"$raw"
  if ! "$nvcc" -DSIPD_REAL_FLOAT -I"$here/src" -O3 -DNDEBUG -std=c++17 -arch=sm_"$arch" -lineinfo \
      -Xptxas -v -cubin -o "$tmp/out.cubin" "$f" >>"$raw" 2>&1; then
    grep -v '^ptxas info' "$raw" | tail -30 >&2
    echo "kernel-registers.sh: nvcc failed on $f" >&2
    exit 1
  fi
done
[ -z "$log" ] || cp "$raw" "$log"

# ptxas -v prints, per entry function:
#   ptxas info    : Compiling entry function 'NAME' for 'sm_90'
#   ptxas info    : Function properties for NAME
#       S bytes stack frame, SS bytes spill stores, SL bytes spill loads
#   ptxas info    : Used R registers, ...
# and "Function properties" (no registers) for out-of-line device functions, which are skipped.
awk '
  /^# file / { file = $3; next }
  /Compiling entry function/ { s = $0; sub(/.*function .\047?/, "", s); sub(/\047 for .*/, "", s); entry[s] = 1; next }
  /Function properties for/ { cur = $0; sub(/.*properties for /, "", cur); props = 1; next }
  props && /bytes stack frame/ { st[cur] = $1; ss[cur] = $5; sl[cur] = $9; props = 0; next }
  /Used [0-9]+ registers/ {
    if (cur in entry) { r = $0; sub(/.*Used /, "", r); sub(/ registers.*/, "", r); reg[cur] = r; order[++n] = cur; fil[cur] = file }
    next
  }
  END { for (i = 1; i <= n; i++) { k = order[i]; print fil[k], k, reg[k], ss[k] + 0, sl[k] + 0, st[k] + 0 } }
' "$raw" >"$tmp/table"

[ -s "$tmp/table" ] || { echo "kernel-registers.sh: no kernels found in ptxas output" >&2; exit 1; }

# demangle without the parameter list (kernel<template args>), shorten CUB's versioned namespace,
# then sort for a stable listing
while read -r file sym r ss sl st; do
  name=$sym
  if [ -n "$filt" ]; then name=$(printf '%s\n' "$sym" | "$filt" -p 2>/dev/null || printf '%s' "$sym"); fi
  name=${name#void }
  name=${name//, /,}
  name=$(printf '%s' "$name" | sed -E 's/CUB_[0-9]+_SM_[0-9]+:://g')
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$file" "$name" "$r" "$ss" "$sl" "$st"
done <"$tmp/table" | sort -t$'\t' -k1,1 -k2,2 -s >"$tmp/sorted"

if [ $markdown = 1 ]; then
  echo "| file | kernel | registers | spill stores (B) | spill loads (B) | stack (B) |"
  echo "|---|---|---:|---:|---:|---:|"
  awk -F'\t' '{ printf "| %s | `%s` | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$tmp/sorted"
else
  printf '%s\t%s\t%s\t%s\t%s\n' kernel registers spill_stores spill_loads stack
  cut -f2- "$tmp/sorted"
fi
