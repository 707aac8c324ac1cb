#!/usr/bin/env bash
# Benchmark only (bench/python/run.sh; never the test command): installs
# into the build's venv (scripts/install_python_deps.sh, default build/venv)
# an h5py with the mpio driver, built from source against Debian's parallel
# HDF5 (libhdf5-openmpi-dev, from scripts/install_bench_deps.sh): PyPI's
# h5py wheels have no MPI. Built without build isolation, so that it uses
# the venv's mpi4py and NumPy (Debian's, built against Debian's Open MPI)
# instead of building mpi4py from source; only Cython and pkgconfig (build
# tools) come from PyPI. h5py is pinned to a release that builds against
# HDF5 1.10 and NumPy 1.24. Idempotent; takes a few CPU-minutes once.
# usage: bench/python/setup_h5py.sh [VENV (default build/venv)]
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${1:-build/venv}
py=$venv/bin/python
if "$py" -c 'import h5py, sys; sys.exit(0 if h5py.get_config().mpi else 1)' 2>/dev/null; then
  echo "setup_h5py: $("$py" -c 'import h5py; print(h5py.__version__)') with MPI already in $venv"
  exit 0
fi
scripts/install_bench_deps.sh >&2
hdf5=/usr/lib/$(gcc -print-multiarch)/hdf5/openmpi
[ -f "$hdf5/include/H5pubconf.h" ] || { echo "setup_h5py: no parallel HDF5 in $hdf5" >&2; exit 1; }
"$py" -m pip install -q --disable-pip-version-check "Cython>=0.29.31,<4" pkgconfig setuptools wheel
HDF5_MPI=ON HDF5_DIR=$hdf5 CC=mpicc "$py" -m pip install -q --disable-pip-version-check \
  --no-binary=h5py --no-build-isolation --no-deps "h5py==3.11.0"
"$py" -c 'import h5py; assert h5py.get_config().mpi; print("setup_h5py: h5py", h5py.__version__, "with MPI, HDF5", h5py.version.hdf5_version)'
