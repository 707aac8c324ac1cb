"""Seventh pass: a failed array round in the middle of unchanged re-saves.

mpiexec -n N python failed_round.py DIR KEEP
Each round puts every object back unchanged and arrays G (chunked) and H
(inline) back identically; every third round G's re-put overlaps (the last
rank puts an extra block over rank 0's rows) so the commit (sync, or
commit_async's own return) fails; the objects stay pending, the array puts
are dropped, and the next commit must hold G and H as before and the
objects as put. Every revision is checked right after its commit, through
a read-only open at the same rank count of the revision just made, and
the store's own view.
"""
import sys

import numpy as np
from mpi4py import MPI

import cairn

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
d, keep = sys.argv[1], int(sys.argv[2])
G = np.arange(40 * 500, dtype=np.float64).reshape(40, 500)
H = np.arange(12, dtype=np.int16).reshape(3, 4)
objs = {f"o{i}": (bytes([rank, i]) * (10 + i * 40), {"i": i, "r": rank}) for i in range(20)}
objs["big"] = (bytes([rank]) * 9000, {"big": 1})


def put_all(st, gver, overlap):
    for k, (v, t) in objs.items():
        st.put(k, v, tags=t)
    rows = np.array_split(np.arange(40), size)[rank]
    g = G * gver
    st.put_array("G", g[rows[0]:rows[-1] + 1], start=(int(rows[0]), 0), global_shape=G.shape,
                 statistics=rank == 0)
    if overlap and rank == size - 1:
        st.put_array("G", g[0:2], start=(0, 0), global_shape=G.shape)
    if rank == 0:
        st.put_array("H", H * gver, global_shape=H.shape)


def check(st, gver, what):
    bad = 0
    for k, (v, t) in objs.items():
        if st.get(k) != v or st.tags(k) != t:
            bad += 1
    if not np.array_equal(st.array("G")[:, :], G * gver) or not np.array_equal(st.array("H")[:, :], H * gver):
        bad += 1
    b0 = [b for b in st.array("G").blocks if b.rank == 0][0]
    if not b0.has_statistics:
        bad += 1
    return bad


bad = 0
fails = 0
with cairn.Store(d, comm=comm, keep_revisions=keep, staging_bytes=(4 << 20) if keep == 2 else 0) as st:
    gver = 1
    put_all(st, gver, False)
    st.commit()
    for rnd in range(1, 31):
        newver = gver + (rnd % 2)   # G changes every other round
        overlap = rnd % 3 == 0
        put_all(st, newver, overlap)
        try:
            if rnd % 2:
                h = st.commit_async()
                rev = h.wait()
            else:
                rev = st.commit()
            if overlap:
                bad += 1
                print(f"rank {rank}: round {rnd}: overlapping commit succeeded", flush=True)
            gver = newver
        except cairn.InvalidArgument as e:
            if not overlap:
                raise
            fails += 1
            rev = st.commit()  # the objects still pending; the arrays carried as before
        bad += check(st, gver, f"round {rnd}")
        with cairn.Store(d, comm=comm, mode="r", revision=rev) as ro:
            bad += check(ro, gver, f"round {rnd} read-only")
bad = comm.allreduce(bad)
if rank == 0:
    print(f"failed_round np {size} keep {keep}: 30 rounds, {fails} refused commits, {bad} bad")
sys.exit(1 if bad else 0)
