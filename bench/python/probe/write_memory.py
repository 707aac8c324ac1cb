"""One timed write of bench.py's checkpoint (16 arrays of 16 MiB per rank,
made and filled before the timed phase) by a chosen writer, from memory of
a chosen kind; one line per run: the span (earliest rank's start to latest
rank's end), the CPU time summed over the ranks, and the transparent huge
pages of the arrays (bench/python/README.md, 26 Nov 2026).

    PYTHONPATH=build/python mpiexec -n N build/venv/bin/python \\
        bench/python/probe/write_memory.py DIR KIND WRITER

KIND: 4k (NumPy's madvise off: 4 KiB pages, as bench.py), thp (NumPy's
default: MADV_HUGEPAGE), 4k+thp (4 KiB arrays, then 256 MiB of other
huge-page memory made and kept, not written: the huge-page allocation
without huge-page arrays), thp+cache (thp, but the file's page cache made,
by writing it once, before the arrays: the same arrays written into page
cache that already exists; with WRITER pwrite only).
WRITER: cairn (Store, one put per array, commit, close; as bench.py),
cairn-nowb (the same without early writeback: writeback_bytes=0),
npsave (numpy.save of each array into one file, fsync), pwrite (one
os.pwrite of 16 MiB per array at 16 MiB offsets, fsync), fpwrite (the
same after posix_fallocate of the 256 MiB),
pwrite1m (plain pwrite in pieces of 1 MiB: the page cache then takes 1 MiB
folios, not 2 MiB ones), fpwrite1m (both).
"""
import os
import sys
import time

import mpi4py

KIND, WRITER = sys.argv[2], sys.argv[3]
# NumPy reads this when it is imported.
os.environ["NUMPY_MADVISE_HUGEPAGE"] = "1" if KIND.startswith("thp") else "0"
mpi4py.rc.thread_level = "serialized"
from mpi4py import MPI  # noqa: E402
import numpy as np  # noqa: E402

import cairn  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from hugepages import anon_huge_kib  # noqa: E402  (bench/python/hugepages.py)

COUNT, SIZE = 16, 16 << 20


def main():
    comm = MPI.COMM_WORLD
    rank = comm.rank
    d = os.path.join(sys.argv[1], f"wm-np{comm.size}-{KIND}-{WRITER}")
    if rank == 0:
        os.makedirs(d, exist_ok=True)
    comm.Barrier()
    f = os.path.join(d, f"rank{rank}")
    fd = -1
    if KIND == "thp+cache":
        # The page cache of the file to write, made before the arrays exist.
        fd = os.open(f, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        z = np.full(SIZE, 7, dtype=np.uint8)
        for i in range(COUNT):
            os.pwrite(fd, z, i * SIZE)
        del z
    arrays = [np.full(SIZE // 8, rank * 1000 + i, dtype=np.float64) for i in range(COUNT)]
    other = None
    if KIND == "4k+thp":
        np.core.multiarray._set_madvise_hugepage(True)
        other = np.ones(COUNT * SIZE // 8)
        np.core.multiarray._set_madvise_hugepage(False)
    huge = anon_huge_kib(arrays)
    comm.Barrier()
    c0, t0 = time.process_time(), MPI.Wtime()
    if WRITER.startswith("cairn"):
        opts = {"writeback_bytes": 0} if WRITER == "cairn-nowb" else {}
        with cairn.Store(os.path.join(d, "store"), comm, **opts) as st:
            for i, a in enumerate(arrays):
                st.put(f"a{i}", a)
            st.commit()
    elif WRITER == "npsave":
        with open(f, "wb") as fh:
            for a in arrays:
                np.save(fh, a)
            fh.flush()
            os.fsync(fh.fileno())
    else:
        if fd < 0:
            fd = os.open(f, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        if WRITER.startswith("fpwrite"):  # the space first
            os.posix_fallocate(fd, 0, COUNT * SIZE)
        piece = (1 << 20) if WRITER.endswith("pwrite1m") else SIZE
        for i, a in enumerate(arrays):
            m = memoryview(a).cast("B")
            for o in range(0, SIZE, piece):
                os.pwrite(fd, m[o:o + piece], i * SIZE + o)
        os.fsync(fd)
    t1, c1 = MPI.Wtime(), time.process_time()
    if fd >= 0:
        os.close(fd)
    span = comm.allreduce(t1, op=MPI.MAX) - comm.allreduce(t0, op=MPI.MIN)
    cpu = comm.allreduce(c1 - c0)
    other_kib = anon_huge_kib([other]) if other is not None else 0
    comm.Barrier()
    if rank == 0:
        print(f"{KIND} {WRITER} ranks {comm.size} span {span:.3f} cpu {cpu:.3f} "
              f"anon_huge_kib {huge} other_huge_kib {other_kib}", flush=True)
        os.system(f"rm -rf '{d}'")


if __name__ == "__main__":
    main()
