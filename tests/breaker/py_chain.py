"""The restart chain's writer through the Python package (tests/breaker/chain.sh;
the model is in bigcat.cc, "chain"):  mpiexec -n N python py_chain.py STORE ROUNDS"""
import os
import sys

import numpy as np
from mpi4py import MPI

import cairn

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
store, rounds = sys.argv[1], int(sys.argv[2])


def pattern(r, g, i, n):
    k = np.arange(n, dtype=np.uint64)
    return ((r * 131 + g * 31 + i * 7 + k * 13 + (k >> 8)) & 0xff).astype(np.uint8)


def vlen(r, g, i):
    return 100 + (r * 7 + i * 13 + g) % 3000


def rows(r, m):
    if m == 1:
        return 0, 64
    if r == m - 1:
        return 64, 64
    w, before = (m - 1) * m // 2, r * (r + 1) // 2
    return 64 * before // w, 64 * (before + r + 1) // w


with cairn.Store(store, comm=comm, keep_revisions=3) as st:
    g0 = 0
    if st.revision:
        g0 = st.tags("o0_0", rank=0)["g"]
        if st.revision % 4 == 0:
            st.pin(st.revision)
    for g in range(g0 + 1, g0 + rounds + 1):
        for i in range(20):
            st.put(f"o{rank}_{i}", pattern(rank, g, i, vlen(rank, g, i)), tags={"g": g, "r": rank})
        b = pattern(rank, g, 999, 5000).tobytes()
        with st.open_stream(f"s{rank}", "wb", tags={"g": g}) as f:
            for p in range(5):
                f.write(b[p * 1000:(p + 1) * 1000])
        lo, hi = rows(rank, size)
        a = (g * 1000 + np.arange(lo, hi)[:, None] * 5 + np.arange(5)[None, :]).astype(np.float64)
        if hi - lo >= 2:
            mid = lo + (hi - lo) // 2
            st.put_array("G", a[: mid - lo], start=(lo, 0), global_shape=(64, 5))
            st.put_array("G", a[mid - lo:], start=(mid, 0), global_shape=(64, 5))
        elif hi > lo:
            st.put_array("G", a, start=(lo, 0), global_shape=(64, 5))
        rev = st.commit() if g % 2 else st.commit_async().wait()
        if rank == 0:
            with open(store + ".acked", "a") as f:
                f.write(f"{rev} {g}\n")
                f.flush()
                os.fsync(f.fileno())
