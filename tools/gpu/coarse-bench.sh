#!/usr/bin/env bash
# coarse-bench.sh BUILD [N ...] — plain vs two-level SIPD (solver.coarse) on the CPU and the CUDA
# backend, for the GPU check (tools/gpu-check.sh, the bundle's gpu-check.sh): one implicit step (dt = 1/60, from rest, gravity) of the clamped
# beam of tools/coarse-scaling.sh (1 x 0.2 x 0.2 m, E = 1e6, nu = 0.45) at n x n/5 x n/5 cells,
# tolerance 1e-5, at most CAP (default 3000) iterations.  Each cell: iterations, the time of the
# frame loop (sipd-run's "done: ... in T s": after the backend is created, output included) and
# the final relative residual.  float32 (CUDA) floors above 1e-5 on this beam (docs/gpu.md), so
# the CUDA runs end stalled at round-off; the time to that floor and the residual are the
# numbers to read.  Markdown on stdout.  Default N: 40 80.
# BUILD is a build tree (BUILD/sipd-run, BUILD/tools/sipd-genbox) or a GPU bundle (BUILD/bin/...,
# tools/gpu-bundle.sh).  DEVICES (default "cpu cuda"): the --device values to run; the GPU check
# runs "cuda" alone (no CPU reference on the device), its self-test "cpu" alone.
set -uo pipefail
build=${1:?usage: coarse-bench.sh BUILD [N ...]}
shift
ns=${*:-40 80}
cap=${CAP:-3000}
devices=${DEVICES:-cpu cuda}
if [ -x "$build/bin/sipd-run" ]; then
  bin=$build/bin/sipd-run genbox=$build/bin/sipd-genbox
else
  bin=$build/sipd-run genbox=$build/tools/sipd-genbox
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
one() { # n device keys → "iterations time residual"
  cat >"$tmp/s.cfg" <<CFG
time = { dt = 0.0166667; frames = 1; };
solver = { $3 iterations = $cap; tolerance = 1.0e-5; };
gravity = [0.0, -9.81, 0.0];
materials = ( { name = "rubber"; youngs = 1.0e6; poisson = 0.45; density = 1000.0; } );
bodies = ( { mesh = "beam$1"; material = "rubber";
             pin = { box_min = [-0.001, -1.0, -1.0]; box_max = [0.001, 1.0, 1.0]; }; } );
CFG
  out=$("$bin" "$tmp/s.cfg" --device "$2" --overwrite --output "$tmp/o.h5" 2>&1)
  it=$(printf '%s\n' "$out" | sed -n 's/.*iters\/step \([0-9.]*\).*/\1/p' | tail -1)
  res=$(printf '%s\n' "$out" | sed -n 's/.*residual \([0-9.e+-]*\).*/\1/p' | tail -1)
  t=$(printf '%s\n' "$out" | sed -n 's/.*done: [0-9]* frames in \([0-9.]*\) s.*/\1/p' | tail -1)
  echo "${it:-?} ${t:-?} ${res:-failed}"
}
echo "| cells | tets | device | plain: iterations, s, residual | two-level (size 2n/5, every 20): iterations, s, residual |"
echo "|---|---:|---|---|---|"
for n in $ns; do
  m=$((n / 5))
  "$genbox" "$n" "$m" "$m" 1.0 0.2 0.2 "$tmp/beam$n" >/dev/null || { echo "coarse-bench: sipd-genbox failed" >&2; exit 1; }
  for dev in $devices; do
    read -r ip tp rp <<<"$(one "$n" "$dev" 'chebyshev = true;')"
    read -r i2 t2 r2 <<<"$(one "$n" "$dev" "chebyshev = true; coarse = { levels = 2; size = $((2 * n / 5)); every = 20; };")"
    echo "| ${n}x${m}x${m} | $((6 * n * m * m)) | $dev | $ip, $tp s, $rp | $i2, $t2 s, $r2 |"
    [ "$rp" != failed ] && [ "$r2" != failed ] || status=1
  done
done
[ $status = 0 ] || echo "coarse-bench: a sipd-run failed (the cells that read \"failed\")" >&2
exit $status
