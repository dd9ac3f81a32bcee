#!/usr/bin/env bash
# CPU iteration throughput of SIPD (tools/sipd-bench.c) → results/cpu-bench.md
#   bash tools/bench-cpu.sh [TETS ...]     (after `make`; default sizes 10k, 100k, 1M tets)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/tools/sipd-bench
[ -x "$bin" ] || { echo "build first: make" >&2; exit 1; }
out=results/cpu-bench.md
{
  echo "# CPU SIPD iteration throughput"
  echo
  echo "- date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
  echo "- command: \`bash tools/bench-cpu.sh $*\`"
  echo
  echo "## 1 thread"
  echo
  "$bin" --threads 1 "$@"
  echo
  echo "## all cores"
  echo
  "$bin" "$@"
} | tee "$out"
