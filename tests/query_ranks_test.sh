#!/usr/bin/env bash
# QueryAll of a 4-rank revision, read-only on 1, 2, 3 and 4 ranks: every
# namespace is covered every time (issue 10, item 12). The 3-rank run also
# forces Gather to move its data in rounds of a few bytes (the path that
# keeps every MPI count under INT_MAX for results past 2 GiB).
#
# usage: query_ranks_test.sh QUERY_RANKS_TEST MPIEXEC
set -u
BIN=$1
MPIEXEC=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn_query_ranks.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
"$MPIEXEC" -n 4 "$BIN" write "$tmp/s" || { echo "FAIL: writing the 4-rank store"; exit 1; }
for n in 1 2 3 4; do
  if "$MPIEXEC" -n "$n" "$BIN" check "$tmp/s"; then echo "PASS: QueryAll on $n ranks"
  else echo "FAIL: QueryAll on $n ranks"; fail=1; fi
done
if CAIRN_TEST_MPI_MAX_COUNT=7 "$MPIEXEC" -n 3 "$BIN" check "$tmp/s"; then
  echo "PASS: QueryAll on 3 ranks with a gather in rounds of 7 bytes"
else
  echo "FAIL: QueryAll on 3 ranks with a gather in rounds of 7 bytes"; fail=1
fi
exit $fail
