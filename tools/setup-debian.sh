#!/usr/bin/env bash
# Install the Debian packages sipd-run needs to build and run its tests (Debian 12).
#   compilers + CMake, libconfig, HDF5 (C library + h5dump/h5diff, used by the tests), zlib,
#   and for the `slurm` tests a SLURM controller/daemon/client with munge, plus python3
#   (tools/slurm/sweep.py). The daemons are not started here: the test starts its own.
#   clang-14 + libclang-rt-14-dev: libFuzzer for `make fuzz` (tests/fuzz).
#   libsuitesparse-dev: CHOLMOD, the sparse Cholesky of src/sparse.c (newton, mixed-fem, the
#   coarse correction).
#   calculix-ccx: the independent FE code of the `external` tests (tools/ccx-compare.py).
#   g++ (C++17): the CUDA emulation build (`make gpu-emu`, tests/emu).
#   python3-paraview, xvfb, python3-meshio, python3-h5py: the `clients` test (the output read by
#   ParaView's XDMF readers under pvbatch and by meshio; tests/test_clients.sh).
#   python3-pip, python3-setuptools, python3-wheel and Pixar's usd-core (from PyPI: Debian has no
#   package of it; ~30 MB): the Python package python/sipdrun and its USD export (tests/test_python.sh).
#   usd-core goes into the system Python with --break-system-packages (PEP 668): it lands in
#   /usr/local/lib/python3.*/dist-packages, beside and not over Debian's packages, where the tests'
#   /usr/bin/python3 finds it.  Without network the USD test is skipped (77), not failed.
# The CUDA toolkit (nvcc) is optional and not installed here: when it is on PATH, CMake adds
# the nvcc compile checks of the shared physics headers.
set -euo pipefail
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential g++ cmake pkg-config git \
  libconfig-dev libhdf5-dev hdf5-tools zlib1g-dev libsuitesparse-dev \
  slurmctld slurmd slurm-client munge python3 \
  clang-14 libclang-rt-14-dev \
  python3-paraview xvfb xauth python3-meshio python3-h5py python3-numpy calculix-ccx \
  python3-pip python3-setuptools python3-wheel >/dev/null
if ! /usr/bin/python3 -c "import pxr.Usd" 2>/dev/null; then
  $SUDO /usr/bin/python3 -m pip install --quiet --break-system-packages --no-deps "usd-core==26.11" ||
    echo "warning: could not install usd-core from PyPI: the python_usd test will be skipped"
fi
echo "sipd-run build dependencies installed"
