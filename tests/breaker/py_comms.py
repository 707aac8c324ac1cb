"""Stores on mpi4py sub-communicators, Dup, freed and inter-communicators.
Outside test, run at 4 ranks:  mpiexec -n 4 python py_comms.py WORKDIR CASE
CASE: reverse (Split with a reversing key; a Cartesian communicator), freed
(a freed Dup: InvalidArgument), split (halves write two stores at once, then each is read back at 4
ranks), three (a store on 3 of 4 ranks; rank 3 tries COMM_NULL), dup (the
user's Dup freed right after the open), inter (an inter-communicator: must
be a cairn error on every rank, not a hang or an MPI abort), leftopen (stores
on both halves left open at MPI_Finalize).
Prints "CASE ok" on rank 0 when all is well; "PYCOMM FAIL" otherwise."""
import os
import sys
import zlib

import numpy as np
from mpi4py import MPI

import cairn

world = MPI.COMM_WORLD
rank = world.Get_rank()
work, case = sys.argv[1], sys.argv[2]


def fail(msg):
    print(f"PYCOMM FAIL rank {rank}: {msg}", flush=True)
    world.Abort(3)


def val(store, r, g, i):
    rng = np.random.default_rng(zlib.crc32(f"{store}/{r}/{g}/{i}".encode()))
    return rng.integers(0, 255, size=100 + 37 * i + g, dtype=np.uint8)


def write_rounds(path, comm, rounds, tag):
    with cairn.Store(path, comm=comm, keep_revisions=2) as st:
        for g in range(1, rounds + 1):
            for i in range(5):
                st.put(f"k{i}", val(tag, comm.Get_rank(), g, i), tags={"g": g, "who": tag})
            if g % 2:
                st.commit()
            else:
                st.commit_async().wait()
            n = comm.Get_size()
            st.put_array("A", np.full((2, 3), g * 10 + comm.Get_rank(), dtype=np.int32),
                         start=(2 * comm.Get_rank(), 0), global_shape=(2 * n, 3))
        st.commit()
        return st.revision


def check(path, tag, writers, g):
    with cairn.Store(path, comm=world, mode="r") as st:
        if st.writer_ranks != writers:
            fail(f"{path}: writer_ranks {st.writer_ranks}, expected {writers}")
        for r in range(writers):
            for i in range(5):
                got = st.get(f"k{i}", rank=r, dtype=np.uint8)
                if not np.array_equal(got, val(tag, r, g, i)):
                    fail(f"{path}: k{i} of rank {r} differs")
                if st.tags(f"k{i}", rank=r) != {"g": g, "who": tag}:
                    fail(f"{path}: tags of k{i} of rank {r}: {st.tags(f'k{i}', rank=r)}")
        a = st.array("A")[:, :]
        want = np.concatenate([np.full((2, 3), g * 10 + r, dtype=np.int32) for r in range(writers)])
        if not np.array_equal(a, want):
            fail(f"{path}: array A {a} != {want}")


if case == "split":
    half = world.Split(rank % 2, rank)
    path = os.path.join(work, f"half{rank % 2}")
    write_rounds(path, half, 6, f"h{rank % 2}")
    world.Barrier()
    for c in (0, 1):
        check(os.path.join(work, f"half{c}"), f"h{c}", 2, 6)
    half.Free()
elif case == "reverse":
    # ranks in reverse order (a Split key), and a Cartesian communicator
    rev = world.Split(0, -rank)
    write_rounds(os.path.join(work, "rev"), rev, 3, "rv")
    cart = world.Create_cart([world.Get_size()], reorder=True)
    write_rounds(os.path.join(work, "cart"), cart, 3, "ca")
    world.Barrier()
    check(os.path.join(work, "rev"), "rv", world.Get_size(), 3)
    check(os.path.join(work, "cart"), "ca", world.Get_size(), 3)
elif case == "freed":
    d = world.Dup()
    d.Free()
    try:
        cairn.Store(os.path.join(work, "freed"), comm=d)
        fail("a freed communicator was accepted")
    except cairn.InvalidArgument:
        pass
elif case == "three":
    sub = world.Split(0 if rank < 3 else MPI.UNDEFINED, rank)
    path = os.path.join(work, "three")
    if rank < 3:
        write_rounds(path, sub, 4, "t")
        sub.Free()
    else:
        if sub != MPI.COMM_NULL:
            fail("rank 3 got a communicator")
        try:
            cairn.Store(path + "-null", comm=sub)
            fail("Store on COMM_NULL accepted")
        except cairn.Error as e:
            pass
    world.Barrier()
    check(path, "t", 3, 4)
elif case == "dup":
    d = world.Dup()
    st = cairn.Store(os.path.join(work, "dup"), comm=d)
    d.Free()  # the store must not depend on the caller's handle
    for g in range(1, 4):
        for i in range(5):
            st.put(f"k{i}", val("d", rank, g, i), tags={"g": g, "who": "d"})
        st.commit()
    st.put_array("A", np.full((2, 3), 30 + rank, dtype=np.int32), start=(2 * rank, 0), global_shape=(8, 3))
    st.commit()
    st.close()
    check(os.path.join(work, "dup"), "d", 4, 3)
elif case == "inter":
    half = world.Split(rank % 2, rank)
    inter = half.Create_intercomm(0, world, 1 - rank % 2, tag=7)
    try:
        st = cairn.Store(os.path.join(work, "inter"), comm=inter)
        # If it opened, a commit must work or fail cleanly, the same on every rank.
        st.put("k", np.arange(10))
        st.commit()
        st.close()
        fail("an inter-communicator was accepted (open and commit returned)")
    except cairn.Error as e:
        print(f"rank {rank}: {type(e).__name__}: {e}", flush=True)
elif case == "leftopen":
    half = world.Split(rank % 2, rank)
    st = cairn.Store(os.path.join(work, f"lo{rank % 2}"), comm=half)
    st.put("k0", val("lo", half.Get_rank(), 1, 0), tags={"g": 1, "who": "lo"})
    st.commit()
    st.put("k1", np.arange(5))  # not committed: discarded at Finalize
    # left open: MPI_Finalize must close both stores (two sub-communicators)
else:
    fail("unknown case")
world.Barrier()
if rank == 0:
    print(f"{case} ok", flush=True)
