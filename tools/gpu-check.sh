#!/usr/bin/env bash
# gpu-check.sh — the GPU check on a GPU machine that also has this checkout's build dependencies
# (nvcc, cmake and the Debian -dev packages of tools/setup-debian.sh): builds the bundle
# (tools/gpu-bundle.sh gpu-bundle) and runs its check (gpu-bundle/gpu-check.sh), the report going
# to $OUT (default results/).  Arguments are the bundle check's (--selftest, --budget, --phases,
# --tests).  On a bare GPU machine, build the bundle elsewhere and run only gpu-bundle/gpu-check.sh:
# docs/gpu-check.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/gpu-bundle.sh gpu-bundle
OUT=${OUT:-results} exec gpu-bundle/gpu-check.sh "$@"
