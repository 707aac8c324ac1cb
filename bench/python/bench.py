#!/usr/bin/env python3
"""A checkpoint of NumPy arrays per rank, written by cairn's Python package,
by h5py (the mpio driver when h5py was built with MPI, else one file per
rank, which is said in the output) and by numpy.save (one file per rank),
each made durable (commit / fsync) and read back after its files were
evicted from the page cache (as bench_cairn's harness does), min/median/max
of --reps repetitions. Run under mpiexec; see bench/python/README.md
(run.sh interleaves the systems one repetition at a time).

    mpiexec -n 4 python3 bench.py --dir /tmp/x --mib 256 --arrays 16 --reps 5
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import time

import mpi4py

# The memory the arrays live in, as bench_cairn's: 4 KiB pages. NumPy asks
# the kernel for transparent huge pages (madvise MADV_HUGEPAGE) for every
# array of 4 MiB or more, bench_cairn's std::vector gets 4 KiB pages, and
# reads into huge pages measured 0.73-0.92x on this machine in C++ and Python
# alike (bench/python/README.md). NumPy reads NUMPY_MADVISE_HUGEPAGE when it
# is imported; --numpy-hugepages keeps NumPy's default (reported as
# "cairn-python-thp").
NUMPY_HUGEPAGES = "--numpy-hugepages" in sys.argv
if not NUMPY_HUGEPAGES:
    os.environ["NUMPY_MADVISE_HUGEPAGE"] = "0"
import numpy as np  # noqa: E402

# MPI at the thread level bench_cairn asks for (MPI_THREAD_SERIALIZED; cairn
# needs FUNNELED), not mpi4py's default MULTIPLE, which makes Open MPI slower
# (bench/python/README.md). Set before `from mpi4py import MPI` initializes it.
mpi4py.rc.thread_level = "serialized"
from mpi4py import MPI  # noqa: E402

import cairn
from hugepages import anon_huge_kib  # bench/python/hugepages.py (beside this script)


def timed(comm, fn, extra):
    """The phase's time as bench_cairn measures it (IOR's way): every rank
    takes its own start, after a barrier, and its own end, before the
    closing barrier; the phase lasts from the earliest start to the latest
    end. Appends to `extra` the CPU time of the processes in the phase,
    summed over the ranks (bench_cairn's cpu_seconds), and rank 0's time
    from its start to its exit from the closing barrier (how bench.py
    measured before 25 Nov 2026, which adds the barrier's own latency)."""
    comm.Barrier()
    c0 = time.process_time()
    t0 = MPI.Wtime()
    fn()
    t1 = MPI.Wtime()
    c1 = time.process_time()
    comm.Barrier()
    to_barrier = MPI.Wtime() - t0
    extra.append((comm.allreduce(c1 - c0), to_barrier))
    return comm.allreduce(t1, op=MPI.MAX) - comm.allreduce(t0, op=MPI.MIN)


def fsync_path(p):
    fd = os.open(p, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def evict(comm, path):
    """Rank 0 writes back and drops every file under `path` from the page
    cache (the C++ harness's EvictTree), so that reads come from the disk."""
    if comm.rank == 0:
        for d, _, files in os.walk(path):
            for f in files:
                fd = os.open(os.path.join(d, f), os.O_RDONLY)
                try:
                    os.fdatasync(fd)
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                finally:
                    os.close(fd)
    comm.Barrier()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--mib", type=int, default=256, help="MiB per rank")
    ap.add_argument("--arrays", type=int, default=16, help="arrays per rank")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--systems", default="cairn,numpy,h5py")
    ap.add_argument("--same-buffer", action="store_true",
                    help="put one array --arrays times, as bench_cairn puts one buffer")
    ap.add_argument("--numpy-hugepages", action="store_true",
                    help="keep NumPy's transparent huge pages for the arrays (default: 4 KiB "
                         "pages, as bench_cairn's buffers; read at import, see the top)")
    ap.add_argument("--read", choices=("get_many", "get"), default="get_many",
                    help="cairn read: one get_many of all arrays (Store::MultiGet, as bench_cairn "
                         "reads with --read-batch of all of them) or one get(out=) per array")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    n = args.mib * (1 << 20) // 8 // args.arrays
    if args.same_buffer:
        arrays = [np.full(n, rank * 1000, dtype=np.float64)] * args.arrays
    else:
        arrays = [np.full(n, rank * 1000 + i, dtype=np.float64) for i in range(args.arrays)]
    total = args.mib * (1 << 20) * size
    base = os.path.join(args.dir, f"pybench-np{size}")
    results = []

    def record(system, phase, times, extra, note="", huge=None):
        if rank == 0:
            r = {"system": system + ("-thp" if args.numpy_hugepages else "")
                 + ("-same-buffer" if args.same_buffer else "")
                 + ("-get" if system == "cairn-python" and phase == "read" and args.read == "get" else ""), "phase": phase, "ranks": size, "mib_per_rank": args.mib,
                 "arrays": args.arrays, "min_s": min(times), "median_s": statistics.median(times),
                 "max_s": max(times), "median_gib_s": total / statistics.median(times) / 2**30,
                 "seconds": times, "note": note, "anon_huge_kib": huge,
                 "cpu_seconds": [c for c, _ in extra],
                 "seconds_to_barrier": [b for _, b in extra]}
            results.append(r)
            print("RESULT " + json.dumps(r), flush=True)

    def fresh(p):
        if rank == 0:
            shutil.rmtree(p, ignore_errors=True)
            os.makedirs(p)
        comm.Barrier()

    systems = args.systems.split(",")
    if "cairn" in systems:
        w, r, wb, rb = [], [], [], []
        for rep in range(args.reps):
            p = os.path.join(base, f"cairn{rep}")
            fresh(p)

            def write():
                with cairn.Store(p, comm) as st:
                    for i, a in enumerate(arrays):
                        st.put(f"a{i}", a)
                    st.commit()
            w.append(timed(comm, write, wb))
            # The arrays to read into, made and touched before the timed
            # phase, as bench_cairn's read buffer is (same work: no page
            # faults of new memory inside either timed read).
            out = [np.empty_like(a) for a in arrays]
            for o in out:
                o.fill(0)
            evict(comm, p)
            keys = [f"a{i}" for i in range(len(out))]

            def read():
                with cairn.Store(p, comm, mode="r") as st:
                    if args.read == "get":
                        for k, o in zip(keys, out):
                            st.get(k, out=o)
                    else:
                        st.get_many(keys, outs=out)
            r.append(timed(comm, read, rb))
            assert all((o == a).all() for o, a in zip(out, arrays))
            out_huge = anon_huge_kib(out)
        record("cairn-python", "write", w, wb, huge=anon_huge_kib(arrays))
        record("cairn-python", "read", r, rb, huge=out_huge)

    if "numpy" in systems:
        w, r, wb, rb = [], [], [], []
        for rep in range(args.reps):
            p = os.path.join(base, f"numpy{rep}")
            fresh(p)
            f = os.path.join(p, f"rank{rank}.npy")

            def write():
                with open(f, "wb") as fh:
                    for a in arrays:
                        np.save(fh, a)
                    fh.flush()
                    os.fsync(fh.fileno())
                fsync_path(p)
            w.append(timed(comm, write, wb))
            evict(comm, p)

            def read():
                with open(f, "rb") as fh:
                    got = [np.load(fh) for _ in arrays]
                assert got[-1][0] == arrays[-1][0]
            r.append(timed(comm, read, rb))
        record("numpy.save", "write", w, wb, "one file per rank, fsync")
        record("numpy.save", "read", r, rb, "one file per rank")

    if "h5py" in systems:
        try:
            import h5py
        except ImportError:
            h5py = None
            if rank == 0:
                print("h5py: not installed, not measured", flush=True)
        if h5py is not None:
            mpio = h5py.get_config().mpi
            note = "mpio driver, one shared file" if mpio else \
                "h5py without MPI: one file per rank (no mpio driver in this h5py)"
            w, r, wb, rb = [], [], [], []
            for rep in range(args.reps):
                p = os.path.join(base, f"h5py{rep}")
                fresh(p)

                def write():
                    if mpio:
                        with h5py.File(os.path.join(p, "ckpt.h5"), "w", driver="mpio", comm=comm) as h:
                            ds = [h.create_dataset(f"a{i}", (size, n), dtype="f8")
                                  for i in range(args.arrays)]
                            for d, a in zip(ds, arrays):
                                d[rank] = a
                        fsync_path(os.path.join(p, "ckpt.h5"))
                    else:
                        f = os.path.join(p, f"rank{rank}.h5")
                        with h5py.File(f, "w") as h:
                            for i, a in enumerate(arrays):
                                h.create_dataset(f"a{i}", data=a)
                        fsync_path(f)
                w.append(timed(comm, write, wb))
                out = np.empty(n)
                evict(comm, p)

                def read():
                    if mpio:
                        with h5py.File(os.path.join(p, "ckpt.h5"), "r", driver="mpio", comm=comm) as h:
                            for i in range(args.arrays):
                                h[f"a{i}"].read_direct(out, np.s_[rank])
                    else:
                        with h5py.File(os.path.join(p, f"rank{rank}.h5"), "r") as h:
                            for i in range(args.arrays):
                                h[f"a{i}"].read_direct(out)
                r.append(timed(comm, read, rb))
            record("h5py", "write", w, wb, note)
            record("h5py", "read", r, rb, note)

    comm.Barrier()
    if rank == 0:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
