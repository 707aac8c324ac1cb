#!/usr/bin/env python3
"""The TensorStore/zarr peer of array_bench: the same array, process grids,
read patterns and random boxes (the same 64-bit Mersenne Twister stream as
array_bench's std::mt19937_64) and the same RESULT lines, written as a zarr
v2 array (64^3 chunks, no compressor, file kvstore; rank 0 creates it, each
rank writes its block, whose edges are multiples of 64, so ranks never
share a chunk). Durability: every rank fsyncs the chunk files it wrote
(TensorStore does not), inside the timed phase.

Bytes read and read requests come from /proc/self/io (rchar, syscr) around
the read, summed over ranks: every read system call of the process, not
only of the array's files (TensorStore's own thread pool has no hook to
count its file reads), so a small overcount.

Run under mpiexec with a Python that has tensorstore, numpy and mpi4py:
  ts_peer.py --phase=write|read --dir=D --mib=M [--writers=N] [--seed=S]
"""
import os
import sys
import time

import numpy as np
import tensorstore as ts
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
args = dict(a[2:].split("=", 1) for a in sys.argv[1:])


def grid(n):
    return {1: (1, 1, 1), 2: (2, 1, 1), 4: (2, 2, 1), 8: (2, 2, 2)}.get(n, (n, 1, 1))


def block_shape(mib):
    elems = mib * (1 << 20) // 8
    e = elems.bit_length() - 1
    a = e // 3
    return (1 << (e - 2 * a), 1 << a, 1 << a)


def piece(start, count, g, p):
    idx = (p // (g[1] * g[2]), p // g[2] % g[1], p % g[2])
    s, c = list(start), list(count)
    for d in range(3):
        lo, hi = count[d] * idx[d] // g[d], count[d] * (idx[d] + 1) // g[d]
        s[d], c[d] = start[d] + lo, hi - lo
    return s, c


class MT64:
    """std::mt19937_64."""
    def __init__(self, seed):
        self.mt = [0] * 312
        self.mt[0] = seed & 0xFFFFFFFFFFFFFFFF
        for i in range(1, 312):
            self.mt[i] = (6364136223846793005 * (self.mt[i - 1] ^ (self.mt[i - 1] >> 62)) + i) & 0xFFFFFFFFFFFFFFFF
        self.i = 312

    def __call__(self):
        if self.i >= 312:
            for k in range(312):
                x = (self.mt[k] & 0xFFFFFFFF80000000) | (self.mt[(k + 1) % 312] & 0x7FFFFFFF)
                xa = x >> 1
                if x & 1:
                    xa ^= 0xB5026F5AA96619E9
                self.mt[k] = self.mt[(k + 156) % 312] ^ xa
            self.i = 0
        y = self.mt[self.i]
        self.i += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & 0xFFFFFFFFFFFFFFFF


def pattern(pat, G, m, r, seed):
    if pat == "full":
        return [piece((0, 0, 0), G, grid(m), r)]
    if pat.startswith("slab"):
        axis = int(pat[4])
        s, c = [0, 0, 0], list(G)
        c[axis] = max(1, G[axis] // 16)
        s[axis] = G[axis] // 2
        g = [1, 1, 1]
        g[1 if axis == 0 else 0] = m
        return [piece(s, c, g, r)]
    edge = [max(1, x // 16) for x in G]
    nbox = max(1, round(0.01 * G[0] * G[1] * G[2] / (edge[0] * edge[1] * edge[2])))
    rng = MT64(seed)
    out = []
    for b in range(nbox):
        s = [rng() % (G[d] - edge[d] + 1) for d in range(3)]
        if b % m == r:
            out.append((s, list(edge)))
    return out


def values(G, s, c):
    i = np.arange(s[0], s[0] + c[0], dtype=np.float64)[:, None, None]
    j = np.arange(s[1], s[1] + c[1], dtype=np.float64)[None, :, None]
    k = np.arange(s[2], s[2] + c[2], dtype=np.float64)[None, None, :]
    return (i * G[1] + j) * G[2] + k


def io_counters():
    d = {}
    with open("/proc/self/io") as f:
        for line in f:
            k, v = line.split(":")
            d[k] = int(v)
    return d["rchar"], d["syscr"]


def timed(f):
    comm.Barrier()
    t0 = time.time()
    f()
    t1 = time.time()
    return comm.allreduce(t1, MPI.MAX) - comm.allreduce(t0, MPI.MIN)


def spec(path, G=None):
    s = {"driver": "zarr", "kvstore": {"driver": "file", "path": path}}
    if G is not None:
        s["metadata"] = {"shape": list(G), "chunks": [min(64, x) for x in G], "dtype": "<f8", "compressor": None}
    return s


def evict(d):
    if rank == 0:
        for root, _, files in os.walk(d):
            for f in files:
                fd = os.open(os.path.join(root, f), os.O_RDONLY)
                os.fdatasync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                os.close(fd)
    comm.Barrier()


def main():
    d, mib = args["dir"], int(args.get("mib", 256))
    path = os.path.join(d, "a.zarr")
    blk = block_shape(mib)
    if args["phase"] == "write":
        g = grid(size)
        G = tuple(blk[x] * g[x] for x in range(3))
        s, c = piece((0, 0, 0), G, g, rank)
        data = values(G, s, c)
        if rank == 0:
            os.makedirs(d, exist_ok=True)
        comm.Barrier()

        def write():
            if rank == 0:
                ts.open(spec(path, G), create=True, delete_existing=True).result()
            comm.Barrier()
            a = ts.open(spec(path), open=True).result()
            a[s[0]:s[0] + c[0], s[1]:s[1] + c[1], s[2]:s[2] + c[2]].write(data).result()
            # Durable: fsync what this rank wrote (its chunks) and, on rank 0, the metadata.
            for root, _, files in os.walk(path):
                for f in files:
                    fd = os.open(os.path.join(root, f), os.O_RDONLY)
                    os.fsync(fd)
                    os.close(fd)
        t = timed(write)
        total = comm.allreduce(data.nbytes)
        if rank == 0:
            print('RESULT {"system": "tensorstore-zarr", "phase": "write", "writers": %d, "shape": [%d, %d, %d], '
                  '"bytes": %d, "seconds": %.6f, "mib_s": %.1f}' % (size, *G, total, t, total / t / 1048576),
                  flush=True)
        return
    n = int(args["writers"])
    g = grid(n)
    G = tuple(blk[x] * g[x] for x in range(3))
    for pat in ["full", "slab0", "slab1", "slab2", "boxes"]:
        boxes = pattern(pat, G, size, rank, int(args.get("seed", 1)))
        out = [None] * len(boxes)
        evict(d)
        before = io_counters()

        def read():
            a = ts.open(spec(path), open=True).result()
            for x, (s, c) in enumerate(boxes):
                out[x] = a[s[0]:s[0] + c[0], s[1]:s[1] + c[1], s[2]:s[2] + c[2]].read().result()
        t = timed(read)
        after = io_counters()
        bad = sum(0 if np.array_equal(out[x], values(G, s, c)) else 1 for x, (s, c) in enumerate(boxes))
        wanted = comm.allreduce(sum(c[0] * c[1] * c[2] * 8 for _, c in boxes))
        rb = comm.allreduce(after[0] - before[0])
        rq = comm.allreduce(after[1] - before[1])
        nb = comm.allreduce(len(boxes))
        if comm.allreduce(bad):
            sys.exit(f"tensorstore {pat}: wrong data")
        if rank == 0:
            print('RESULT {"system": "tensorstore-zarr", "phase": "read", "pattern": "%s", "writers": %d, '
                  '"readers": %d, "boxes": %d, "bytes_wanted": %d, "seconds": %.6f, "mib_s": %.1f, '
                  '"read_requests": %d, "bytes_read": %d, "cairn_read_requests": 0, "cairn_bytes_read": 0}'
                  % (pat, n, size, nb, wanted, t, wanted / t / 1048576, rq, rb), flush=True)


if __name__ == "__main__":
    main()
