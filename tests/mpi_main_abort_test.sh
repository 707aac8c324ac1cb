#!/usr/bin/env bash
# tests/mpi_main.h: a fatal assertion on one rank of a collective test ends
# the job at once with a message naming the rank and the test, instead of
# leaving the other ranks in their next collective until ctest's timeout.
# Usage: mpi_main_abort_test.sh MPI_MAIN_PROBE MPIEXEC
set -u
probe=$1 mpiexec=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
out=$(mktemp "${TMPDIR:-/tmp}/cairn-probe-XXXXXX")
trap 'rm -f "$out"' EXIT
failures=0
fail() { echo "FAIL: $1"; cat "$out"; failures=$((failures + 1)); }

for n in 2 4; do
  timeout 100 "$mpiexec" -n $n "$probe" >"$out" 2>&1; rc=$?
  [ $rc -eq 0 ] || fail "np$n without the probe's failure: exit $rc"
  CAIRN_TEST_PROBE=fail timeout 100 "$mpiexec" -n $n "$probe" >"$out" 2>&1; rc=$?
  if [ $rc -eq 124 ]; then fail "np$n: the ranks waited for the failed one (timeout)"; continue; fi
  [ $rc -ne 0 ] || fail "np$n: a failed assertion ended with exit 0"
  grep -q "the probe's deliberate failure" "$out" || fail "np$n: the failed assertion's message is not printed"
  grep -q "\[rank 1\] a fatal assertion failed in Probe.AFatalFailureOnOneRankEndsTheJob" "$out" ||
    fail "np$n: no message naming the rank and the test"
done
# One rank: gtest's own report and exit code, no abort.
CAIRN_TEST_PROBE=fail timeout 100 "$mpiexec" -n 1 "$probe" >"$out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "np1: rank 0 does not run the failing branch, yet exit $rc"
[ $failures -eq 0 ] && echo "mpi_main_abort_test: all checks passed"
exit $((failures > 0))
