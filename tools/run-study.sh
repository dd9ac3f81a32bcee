#!/usr/bin/env bash
# The whole convergence study (issue "comparison solvers ... convergence study"): every study
# scene x every method, first implicit step, 3000 iterations per method (Newton: 100 steps),
# writing PNGs + Markdown tables under results/convergence/ and results/convergence/summary.md.
#   make && pip install numpy h5py matplotlib && bash tools/run-study.sh
# About 7 minutes on 2 cores (AMD EPYC, CPU backend).  ITERATIONS=N or METHODS=a,b,c override.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/sipd-run ] && [ -x build/tools/sipd-genbox ] || { echo "build first: make" >&2; exit 1; }
its=${ITERATIONS:-3000}
methods=${METHODS:-sipd-jacobi-cheb,sipd-jacobi,sipd-jacobi-sign,sipd-gs,sipd-gs-expanded,vbd,vbd-sor,block-jacobi,block-jacobi-cheb,diag-jacobi-cheb,gd,newton,sipd-clamp,sipd-none}
out=results/convergence
# private copies of the binaries: a concurrent `make` must not swap them mid-study
bin=$(mktemp -d); trap 'rm -rf "$bin"' EXIT
cp build/sipd-run build/tools/sipd-genbox "$bin/"
exe=(--exe "$bin/sipd-run" --genbox "$bin/sipd-genbox")
mkdir -p "$out"
rm -f "$out"/*.json
export STUDY_COMMAND="bash tools/run-study.sh"
start=$(date +%s)
for case in bend stretch compress; do
  for nu in 0.3 0.45 0.49 0.499; do
    echo "== $case nu=$nu" >&2
    python3 tools/convergence_study.py "tools/study-scenes/$case.cfg" --nu "$nu" --iterations "$its" "${exe[@]}" \
      --methods "$methods" --out "$out/$case-nu$nu" >/dev/null
  done
done
for nu in 0.45 0.49; do
  echo "== release nu=$nu" >&2
  python3 tools/convergence_study.py tools/study-scenes/release.cfg --nu "$nu" --iterations "$its" "${exe[@]}" \
    --methods "$methods" --out "$out/release-nu$nu" >/dev/null
done
python3 tools/convergence_study.py --summarize "$out"
echo "run-study: $(( $(date +%s) - start )) s" >&2
