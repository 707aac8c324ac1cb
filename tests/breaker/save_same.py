"""Seventh pass: cairn.save of the same state dict again and again (keep 1),
with a Shard, then cairn.load at another rank count.
mpiexec -n N python save_same.py DIR write | mpiexec -n M ... DIR load"""
import sys

import numpy as np
from mpi4py import MPI

import cairn

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
d = sys.argv[1]
G = np.arange(30 * 8, dtype=np.float32).reshape(30, 8)


def state(nr, r, ver):
    rows = np.array_split(np.arange(30), nr)[r]
    return {"model": {"w": np.full(5, ver, np.float64), "b": ver * 2}, "lr": 0.1, "name": "net",
            "T": cairn.Shard(G[rows[0]:rows[-1] + 1] * ver, (int(rows[0]), 0), G.shape)}


if sys.argv[2] == "write":
    with cairn.Store(d, comm=comm, keep_revisions=1) as st:
        for i in range(30):
            ver = 1 + i // 10
            cairn.save(st, state(size, rank, ver))
        reused = st.stats()["index_tables_reused"]
    print(f"rank {rank}: 30 saves, tables reused {reused}", flush=True)
else:
    with cairn.Store(d, comm=comm, mode="r") as st:
        rows = np.array_split(np.arange(30), size)[rank]
        like = {"model": {"w": np.empty(5), "b": 0}, "lr": 0.0, "name": "",
                "T": cairn.Shard(np.empty((len(rows), 8), np.float32), (int(rows[0]), 0), G.shape)}
        got = cairn.load(st, like=like)
        ok = (np.array_equal(got["model"]["w"], np.full(5, 3.0)) and got["model"]["b"] == 6 and got["lr"] == 0.1
              and got["name"] == "net" and np.array_equal(got["T"].local if hasattr(got["T"], "local") else got["T"],
                                                          G[rows[0]:rows[-1] + 1] * 3))
        ok = comm.allreduce(0 if ok else 1)
        if rank == 0:
            print(f"load at {size}: {'ok' if not ok else 'BAD'}")
