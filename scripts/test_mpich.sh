#!/usr/bin/env bash
# The collective (mpiexec) tests built and run against Debian's MPICH
# instead of the default Open MPI, in build-mpich/ (Open MPI stays the
# system default: MPICH's alternatives have the lower priority). Installs
# libmpich-dev and mpich if missing. Not part of the default scripts/test.sh
# (a second build of the library and the MPI tests takes minutes:
# doc/dependencies.md); CAIRN_LONG_TESTS=1 scripts/test.sh runs it too.
# Usage: scripts/test_mpich.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
if ! command -v mpicc.mpich >/dev/null || ! command -v mpiexec.mpich >/dev/null; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get install -y -qq --no-install-recommends libmpich-dev mpich >/dev/null
fi
cmake -S . -B build-mpich -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAIRN_BUILD_BENCH=OFF -DCAIRN_FUZZ=OFF \
  -DMPI_C_COMPILER=mpicc.mpich -DMPI_Fortran_COMPILER=mpif90.mpich \
  -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.mpich)" >/dev/null
tests=(mpi_store_test stream_test capi_test capi_array_test fortran_test mpi_array_test async_commit_test
       mpi_retention_test mpi_bad_input_test)
cmake --build build-mpich -j "$(nproc)" --target "${tests[@]}" heat heat_f
readelf -d build-mpich/lib/libcairn.so | grep -q 'libmpich\.so' || { echo "libcairn.so does not link MPICH" >&2; exit 1; }
cd build-mpich
ctest --output-on-failure --timeout 300 -R "$(IFS='|'; echo "${tests[*]}")|heat_f_same_as_cpp" "$@"
