"""cairn.save at N ranks (shards, nested dicts, empty shards), then cairn.load
at another rank count, read-only and read-write, and a second save there.
mpiexec -n N python state_cross.py DIR save|load|save2"""
import sys
import numpy as np
from mpi4py import MPI
import cairn
comm = MPI.COMM_WORLD
r, n = comm.rank, comm.size
d, mode = sys.argv[1], sys.argv[2]
G = (13, 7)


def rows(rank, size):
    a = G[0] * rank // size
    return a, G[0] * (rank + 1) // size


def full(gen):
    return (np.arange(G[0] * G[1], dtype=np.float32).reshape(G) + gen * 1000)


if mode in ("save", "save2"):
    gen = 1 if mode == "save" else 2
    with cairn.Store(d, comm=comm, keep_revisions=2) as st:
        a, b = rows(r, n)
        if n > 1 and r == n - 1:
            a = b  # the last rank holds an empty shard
        if n > 1 and r == n - 2:
            b = G[0]
        state = {"T": cairn.Shard(full(gen)[a:b], (a, 0), G), "opt": {"lr": 0.5 * gen, "step": gen,
                 "m": np.full(5, gen, dtype=np.int64)}, "name": "run%d" % gen}
        cairn.save(st, state)
else:
    gen = int(sys.argv[3])
    for m in ("r", "a"):
        with cairn.Store(d, comm=comm, mode=m) as st:
            a, b = rows(r, n)
            like = {"T": cairn.Shard(np.empty((b - a, G[1]), np.float32), (a, 0), G),
                    "opt": {"lr": 0.0, "step": 0, "m": np.zeros(5, np.int64)}, "name": ""}
            got = cairn.load(st, like=like)
            T = got["T"]
            T = T.local if isinstance(T, cairn.Shard) else T
            assert (np.asarray(T) == full(gen)[a:b]).all(), (r, m)
            assert got["opt"]["lr"] == 0.5 * gen and got["opt"]["step"] == gen, got["opt"]
            assert (got["opt"]["m"] == gen).all() and got["name"] == "run%d" % gen
            whole = st.array("state/T")[...]
            assert (whole == full(gen)).all()
    if r == 0:
        print("load ok at", n, "ranks, gen", gen, flush=True)
