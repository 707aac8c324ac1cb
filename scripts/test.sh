#!/usr/bin/env bash
# The whole test suite: builds (installing what is missing) and runs every
# test with ctest: encodings, the store in one process, the collective tests
# under mpiexec with 1, 2 and 4 ranks, kill -9 crash tests, the cairn tool,
# and the heat example's kill/restart test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/mpi_env.sh
scripts/build.sh
cd build
ctest --output-on-failure --timeout 900 "$@"
# The long form also builds and runs the collective tests against MPICH
# (a second build of the library: minutes; README "The two commands").
if [[ ${CAIRN_LONG_TESTS:-0} == 1 ]]; then
  ../scripts/test_mpich.sh
fi
