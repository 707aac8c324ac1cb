"""The timed read of bench.py (a read-only Store, one get_many of 16 values
of 16 MiB into outs made beforehand, close) on a store bench_cairn wrote
(keys c0000/000000000000...), into memory of a chosen kind, printing per
rank the get_many's wall and process CPU time and the AnonHugePages of the
outs: read_memory.cc's read from Python (bench/python/README.md, 25 Nov 2026).

    PYTHONPATH=build/python mpiexec -n N build/venv/bin/python \\
        bench/python/probe/read_memory.py STORE_DIR KIND

KIND: numpy (16 np.empty arrays: NumPy madvises MADV_HUGEPAGE for them),
numpy4k (the same with NumPy's madvise off), 4k, 4k16, huge, huge16 (one
anonymous mapping as in read_memory.cc, cut into 16 views).
"""
import mmap
import os
import sys
import time

import mpi4py

mpi4py.rc.thread_level = "serialized"
from mpi4py import MPI  # noqa: E402
import numpy as np  # noqa: E402

import cairn  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from hugepages import anon_huge_kib  # noqa: E402  (bench/python/hugepages.py)

COUNT, SIZE = 16, 16 << 20


def make_outs(kind):
    if kind in ("numpy", "numpy4k"):
        np.core.multiarray._set_madvise_hugepage(kind == "numpy")
        outs = [np.empty(SIZE, dtype=np.uint8) for _ in range(COUNT)]
        for o in outs:
            o.fill(0)
        return outs, None
    m = mmap.mmap(-1, COUNT * SIZE + (4 << 20), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    m.madvise(mmap.MADV_HUGEPAGE if kind.startswith("huge") else mmap.MADV_NOHUGEPAGE)
    whole = np.frombuffer(m, dtype=np.uint8)
    start = (-whole.ctypes.data) % (2 << 20) + (16 if kind.endswith("16") else 0)
    big = whole[start:start + COUNT * SIZE]
    big.fill(0)
    return [big[i * SIZE:(i + 1) * SIZE] for i in range(COUNT)], m


def main():
    d, kind = sys.argv[1], sys.argv[2]
    comm = MPI.COMM_WORLD
    outs, keep = make_outs(kind)  # noqa: F841 (keep: the mapping stays alive)
    keys = [f"c0000/{i:012d}" for i in range(COUNT)]
    if comm.rank == 0:  # bench_cairn's EvictTree
        for dp, _, files in os.walk(d):
            for f in files:
                fd = os.open(os.path.join(dp, f), os.O_RDONLY)
                os.fdatasync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                os.close(fd)
    comm.Barrier()
    t0 = MPI.Wtime()
    with cairn.Store(d, comm, mode="r") as st:
        m0, c0 = MPI.Wtime(), time.process_time()
        st.get_many(keys, outs=outs)
        c1, m1 = time.process_time(), MPI.Wtime()
    t1 = MPI.Wtime()
    comm.Barrier()
    tmin, tmax = comm.reduce(t0, op=MPI.MIN), comm.reduce(t1, op=MPI.MAX)
    line = (f"  rank {comm.rank} multiget_s {m1 - m0:.3f} multiget_cpu_s {c1 - c0:.4f} "
            f"anon_huge_kib {anon_huge_kib(outs)} addr_mod_4096 {outs[0].ctypes.data % 4096}")
    lines = comm.gather(line)
    if comm.rank == 0:
        print(f"py-{kind} span {tmax - tmin:.3f}")
        print("\n".join(lines), flush=True)


if __name__ == "__main__":
    main()
