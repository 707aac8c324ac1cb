#!/usr/bin/env bash
# An exception on one rank inside `with cairn.Store(...)` while the other
# ranks go on into a collective call (commit): __exit__'s collective close
# then meets their commit and the job aborts (as designed: mismatched
# collective calls), but the cause must be in the output. Before, the abort
# came before Python printed rank 0's traceback: the output had only the
# MPI errors ("another rank may have left the call"), never the NotFound.
# usage: python_one_rank_exception_test.sh PYTHON MPIEXEC NP
set -u
py=$1 mpiexec=$2 np=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-py-one-rank-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/prog.py" <<'PY'
import sys
from mpi4py import MPI
import cairn
comm = MPI.COMM_WORLD
with cairn.Store(sys.argv[1], comm=comm) as st:
    st.put("a", b"1")
    if comm.rank == 0:
        st.delete_tag("a", "no_such_tag")   # NotFound on rank 0 only
    st.commit()
PY
timeout 60 "$mpiexec" -n "$np" "$py" "$tmp/prog.py" "$tmp/s" >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then echo "FAIL: exit $rc (expected an abort, not success or a hang)"; cat "$tmp/out"; exit 1; fi
if ! grep -q "rank 0: leaving .with cairn.Store.* on NotFound: .*no_such_tag" "$tmp/out"; then
  echo "FAIL: rank 0's NotFound is not in the output of the aborted job:"; cat "$tmp/out"; exit 1
fi
echo "ok: $np ranks, exit $rc, rank 0's exception named"
