#!/usr/bin/env bash
# A rank that cannot hold what rank 0 broadcasts or scatters takes the
# pieces into 1 MiB it took with the communicator (Comm::Bcast,
# ScatterSized); a rank that could not take even that (the test hook
# CAIRN_TEST_NO_COMM_SCRATCH) and cannot take it again when it needs it
# ends the job with cairn's message naming itself and what it was
# receiving. Before, it threw out of the collective with pieces still to
# come, and the others waited for it (an outside review).
# Usage: comm_scratch_test.sh COMM_ERRORS_WRITER MPIEXEC
set -u
writer=$1 mpiexec=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-scratch-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $1"; cat "$tmp/out"; failures=$((failures + 1)); }

# commit: rank 1 without room for the commit's plan, sent in 9-byte pieces
# (CAIRN_TEST_MPI_MAX_COUNT); open: rank 1 without room for its table at a
# read-only open (one round of the scatter).
for n in 2 4; do
  for mode in commit open; do
    rm -rf "$tmp/s"
    point=commit_plan what=commit_plan
    [ $mode = open ] && point=scatter what=scatter
    env CAIRN_TEST_NO_COMM_SCRATCH=1 CAIRN_TEST_BAD_ALLOC_POINT=$point CAIRN_TEST_BAD_ALLOC_RANK=1 \
      CAIRN_TEST_MPI_MAX_COUNT=$([ $mode = commit ] && echo 9 || echo 2147483647) \
      timeout 40 "$mpiexec" -n $n "$writer" "$tmp" $mode >"$tmp/out" 2>&1; rc=$?
    if [ $rc -eq 124 ]; then fail "np$n $mode: the other ranks waited for rank 1 (timeout)"; continue; fi
    [ $rc -ne 0 ] || fail "np$n $mode: the job ended with 0"
    grep -q "$mode returned" "$tmp/out" && fail "np$n $mode: a rank returned from the call"
    grep -q "cairn: rank 1: out of memory receiving '$what' .* from rank 0: no room for it, nor for the 1 MiB" "$tmp/out" ||
      fail "np$n $mode: no cairn message naming rank 1 and '$what'"
  done
done
# The same without the hook on the 1 MiB: the calls succeed (rank 1 takes
# the pieces into it and fails with the others).
for mode in commit open; do
  rm -rf "$tmp/s"
  point=commit_plan; [ $mode = open ] && point=scatter
  env CAIRN_TEST_BAD_ALLOC_POINT=$point CAIRN_TEST_BAD_ALLOC_RANK=1 CAIRN_TEST_MPI_MAX_COUNT=9 \
    timeout 40 "$mpiexec" -n 2 "$writer" "$tmp" $mode >"$tmp/out" 2>&1; rc=$?
  [ $rc -eq 0 ] || fail "np2 $mode with the 1 MiB: exit $rc"
  [ "$(grep -c "$mode returned IOError: rank 1: .*out of memory" "$tmp/out")" -eq 2 ] ||
    fail "np2 $mode with the 1 MiB: not every rank returned rank 1's failure"
done
[ $failures -eq 0 ] && echo "comm_scratch_test: all checks passed"
exit $((failures > 0))
