#!/usr/bin/env bash
# A store and the communicator it is given (found by an outside test of the
# Python package): MPI_COMM_NULL is refused on the ranks that pass it (it
# hung or crashed), and an MPI error in a store's collective ends the job
# with cairn's message even when the caller's communicator returns errors
# (MPI_ERRORS_RETURN, mpi4py's default; the store went on with a broken
# request and crashed in Commit).
# Usage: comm_errors_test.sh COMM_ERRORS_WRITER MPIEXEC
set -u
writer=$1 mpiexec=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-commerr-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }

for n in 1 2 4; do
  mkdir -p "$tmp/n$n"
  timeout 120 "$mpiexec" -n $n "$writer" "$tmp/n$n" null >"$tmp/null$n" 2>&1; rc=$?
  [ $rc -eq 0 ] || fail "np$n: MPI_COMM_NULL: exit $rc"
  [ "$(grep -c '^null ok' "$tmp/null$n")" -eq $n ] || { fail "np$n: MPI_COMM_NULL: not every rank ok"; cat "$tmp/null$n"; }
done

# At 3 ranks the two left wait for rank 1 (no MPI error): the collective
# timeout (5 s here) ends the job.
for n in 2 3; do
  for round in 1 2 3; do
    mkdir -p "$tmp/l$n$round"
    timeout 120 "$mpiexec" -n $n "$writer" "$tmp/l$n$round" leave >"$tmp/leave" 2>&1; rc=$?
    if [ $rc -eq 124 ]; then fail "np$n round $round: a rank leaving the store: hung"; continue; fi
    grep -q "commit returned" "$tmp/leave" && { fail "np$n round $round: rank 0's commit returned past a broken collective"; cat "$tmp/leave"; }
    grep -qiE "segmentation|signal 11|core dumped" "$tmp/leave" && { fail "np$n round $round: a crash"; cat "$tmp/leave"; }
    [ $rc -ne 0 ] || { fail "np$n round $round: the job ended with 0"; cat "$tmp/leave"; }
    grep -qE "cairn: rank [0-9]+(: MPI failed in a collective of a store call| waited .* in the collective)" "$tmp/leave" ||
      { fail "np$n round $round: no cairn message"; cat "$tmp/leave"; }
  done
done
[ $failures -eq 0 ] && echo "comm_errors_test: all checks passed"
exit $((failures > 0))
