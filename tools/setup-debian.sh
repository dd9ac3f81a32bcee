#!/usr/bin/env bash
# Install the Debian packages sipd-run needs (Debian 12).
#
#   bash tools/setup-debian.sh             everything `make test` and CI (.ci/run) use
#   bash tools/setup-debian.sh --minimal   only what building and running sipd-run need
#
# --minimal: compilers + CMake + pkg-config, libconfig, HDF5 (C library; hdf5-tools for h5dump
#   and h5ls, to look at results), zlib, SuiteSparse (CHOLMOD: the sparse Cholesky of
#   src/sparse.c for newton, mixed-fem and the coarse correction).  Enough for `make` and
#   `make install`; not for the whole test suite.
# The full set adds, for the tests and CI:
#   a SLURM controller/daemon/client with munge and python3 (tools/slurm/sweep.py) for the
#   `slurm` tests (the daemons are not started here: the test starts its own);
#   clang-14 + libclang-rt-14-dev: libFuzzer for `make fuzz` (tests/fuzz);
#   g++ (C++17): the CUDA emulation build (`make gpu-emu`, tests/emu);
#   calculix-ccx: the independent FE code of the `external` tests (tools/ccx-compare.py);
#   python3-paraview, xvfb, python3-meshio, python3-h5py, python3-numpy: the `clients` test (the
#   output read by ParaView's XDMF readers under pvbatch and by meshio) and the README's
#   Python snippet (docs_readme_first_scene);
#   groff-base, man-db: the manual page rendered by `docs_man_help` (man -l);
#   python3-pip, python3-setuptools, python3-wheel and Pixar's usd-core (from PyPI: Debian has no
#   package of it; ~30 MB): the Python package python/sipdrun and its USD export
#   (tests/cli/test_python.sh).  usd-core goes into the system Python with --break-system-packages
#   (PEP 668): it lands in /usr/local/lib/python3.*/dist-packages, beside and not over Debian's
#   packages, where the tests' /usr/bin/python3 finds it.  Without network the USD test is
#   skipped (77), not failed; CI (.ci/run) checks that it is installed.
# The CUDA toolkit (nvcc) is optional and not installed here: when it is on PATH, CMake builds
# the CUDA backend and adds the nvcc compile checks of the shared physics headers.
set -euo pipefail
minimal=0
case "${1:-}" in
  --minimal) minimal=1 ;;
  "") ;;
  -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
  *) echo "setup-debian.sh: unknown option '$1' (use --minimal or nothing)" >&2; exit 2 ;;
esac
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
packages="build-essential cmake pkg-config libconfig-dev libhdf5-dev hdf5-tools zlib1g-dev libsuitesparse-dev"
if [ $minimal = 0 ]; then
  packages="$packages g++ git slurmctld slurmd slurm-client munge python3
    clang-14 libclang-rt-14-dev
    python3-paraview xvfb xauth python3-meshio python3-h5py python3-numpy calculix-ccx
    groff-base man-db python3-pip python3-setuptools python3-wheel"
fi
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $packages >/dev/null
if [ $minimal = 0 ] && ! /usr/bin/python3 -c "import pxr.Usd" 2>/dev/null; then
  $SUDO /usr/bin/python3 -m pip install --quiet --break-system-packages --no-deps "usd-core==26.11" ||
    echo "warning: could not install usd-core from PyPI: the python_usd test will be skipped"
fi
if [ $minimal = 1 ]; then
  echo "sipd-run build and run dependencies installed (--minimal): now run make"
else
  echo "sipd-run build and test dependencies installed"
fi
