#!/usr/bin/env python3
"""Restart on another rank count, from Python (tests/python_array_restart_test.sh):

    mpiexec -n 4 python array_restart.py save DIR
    mpiexec -n M python array_restart.py load DIR    (M = 2, 1, 3)

`save` puts a state with sharded arrays (cairn.Shard, an irregular
decomposition with an empty rank) and per-rank scalars, plus a global
array put directly; `load` opens the store read-only on M ranks, checks
that it was written by 4, loads the state with like= Shards of an M-rank
decomposition and compares every piece (and slices) with the data."""
import sys

import numpy as np
from mpi4py import MPI

import cairn

N, M3 = 37, 5


def field():
    return (np.arange(N * M3, dtype=np.float64) * 0.5).reshape(N, M3)


def temps():
    return np.arange(N, dtype=np.int32) * 3 - 40


def rows(n, size, rank):
    """Irregular: rank 1 gets no rows when there are 2+ ranks."""
    weights = [0 if (size > 1 and q == 1) else q + 1 for q in range(size)]
    cuts = np.concatenate([[0], np.cumsum(weights)]) * n // sum(weights)
    return int(cuts[rank]), int(cuts[rank + 1])


def main():
    mode, path = sys.argv[1], sys.argv[2]
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    f, t = field(), temps()
    lo, hi = rows(N, size, rank)
    if mode == "save":
        state = {"u": cairn.Shard(f[lo:hi], (lo, 0), f.shape),
                 "t": cairn.Shard(t[lo:hi], (lo,), t.shape),
                 "step": 42 + rank, "meta": {"name": "heat", "dt": 0.25}}
        with cairn.Store(path, comm) as st:
            st.put_array("direct", f[lo:hi].astype(np.float32), start=(lo, 0), global_shape=f.shape)
            cairn.save(st, state)
        return 0
    with cairn.Store(path, comm, mode="r") as st:
        assert st.writer_ranks == 4 and st.size == size, (st.writer_ranks, st.size)
        like = {"u": cairn.Shard(np.empty((hi - lo, M3)), (lo, 0), f.shape),
                "t": cairn.Shard(np.empty(hi - lo, np.int32), (lo,), t.shape)}
        got = cairn.load(st, like=like)
        np.testing.assert_array_equal(got["u"].local, f[lo:hi])
        np.testing.assert_array_equal(got["t"].local, t[lo:hi])
        # Not sharded: rank 0's values, on every rank of another rank count.
        assert got["step"] == 42 and got["meta"] == {"name": "heat", "dt": 0.25}, got["step"]
        a = st.array("direct")
        assert a.shape == f.shape and a.dtype == np.float32
        np.testing.assert_array_equal(a[rank::size, ::-2], f.astype(np.float32)[rank::size, ::-2])
        np.testing.assert_array_equal(cairn.load(st)["u"][N // 2:, 1], f[N // 2:, 1])
    comm.Barrier()
    if rank == 0:
        print(f"array_restart: loaded on {size} ranks what 4 saved: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
