#!/usr/bin/env bash
# The whole test suite: builds (installing what is missing) and runs every
# test with ctest: encodings, the store in one process, the collective tests
# under mpiexec with 1, 2 and 4 ranks, kill -9 crash tests, the cairn tool,
# and the heat example's kill/restart test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test_mpi_env.sh
scripts/build.sh
cd build
# Two tests at a time: most of the suite waits on process start-up, fsync
# and kill/restart cycles rather than on the CPU (CAIRN_TEST_JOBS=1: one).
ctest --output-on-failure --timeout 900 -j "${CAIRN_TEST_JOBS:-2}" "$@"
# The long form also builds and runs the collective tests against MPICH
# (a second build of the library: minutes; README "The two commands").
if [[ ${CAIRN_LONG_TESTS:-0} == 1 ]]; then
  ../scripts/test_mpich.sh
fi
