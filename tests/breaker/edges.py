"""Resource edges through the Python package, under mpiexec (1-4 ranks).
Usage: mpiexec -n N python edges.py DIR CASE"""
import os
import sys

import numpy as np
from mpi4py import MPI

import cairn

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
d, case = sys.argv[1], sys.argv[2]
path = os.path.join(d, case)


def expect_err(fn, what):
    try:
        fn()
    except cairn.Error as e:  # noqa
        return e
    raise AssertionError("no error for " + what)


def say(*a):
    if rank == 0:
        print(*a, flush=True)


if case == "manykeys":
    n = int(os.environ.get("NKEYS", "100000"))
    klen = int(os.environ.get("KLEN", "300"))
    with cairn.Store(path, comm=comm) as st:
        for i in range(n):
            k = ("%08d" % i) * (klen // 8)
            st.put(k, b"" if i % 3 == 0 else (b"%d" % (i * 7 + rank)) * (i % 50))
        r = st.commit()
    with cairn.Store(path, comm=comm, mode="r") as st:
        ks = st.keys()
        assert len(ks) == n, len(ks)
        for i in range(0, n, 997):
            k = ("%08d" % i) * (klen // 8)
            v = st.get(k)
            assert v == (b"" if i % 3 == 0 else (b"%d" % (i * 7 + rank)) * (i % 50)), i
        other = (rank + 1) % size
        v = st.get(("%08d" % 5) * (klen // 8), rank=other)
        assert v == (b"%d" % (5 * 7 + other)) * 5
    say("manykeys ok", n, klen)

elif case == "bigkeys":
    with cairn.Store(path, comm=comm) as st:
        k = "k" * 65535
        st.put(k, b"v" * rank, tags={"t" * 1000: "x" * 100000})
        expect_err(lambda: st.put("k" * 65536, b"x"), "65536-byte key")
        expect_err(lambda: st.put("", b"x"), "empty key")
        st.put("zero", b"", tags={"z": b""})
        st.put("hugetag", b"1", tags={"h": "y" * (8 << 20)})
        st.commit()
    with cairn.Store(path, comm=comm, mode="r") as st:
        assert st.get("k" * 65535) == b"v" * rank
        assert st.tags("k" * 65535)["t" * 1000] == "x" * 100000
        assert st.get("zero") == b""
        t = st.tags("hugetag")["h"]
        assert t == "y" * (8 << 20), len(t)
        assert st.get("zero", rank=size - 1) == b""
    say("bigkeys ok")

elif case == "arrays8":
    with cairn.Store(path, comm=comm) as st:
        shape = (2, 3, 1, 2, 2, 1, 3, 2)
        full = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
        # rank r puts slab r of dim 0 if r < 2, else nothing
        if rank < 2:
            st.put_array("a8", full[rank:rank + 1], start=(rank, 0, 0, 0, 0, 0, 0, 0), global_shape=shape)
        # zero-sized global array: shape with a 0
        st.put_array("z", np.zeros((0, 5), dtype=np.float64), start=(0, 0), global_shape=(0, 5))
        # a 0-sized block of a non-empty array
        st.put_array("e", np.zeros((0, 4), dtype=np.uint8), start=(rank % 3, 0), global_shape=(3, 4))
        if rank == 0:
            st.put_array("e", np.ones((1, 4), dtype=np.uint8), start=(2, 0), global_shape=(3, 4))
        shape16 = (1,) * 15 + (3,)
        st.put_array("a16", np.full(shape16, rank, dtype=np.int64), start=(0,) * 16, global_shape=shape16) \
            if rank == 0 else None
        st.commit()
    for m in ("r", "a"):
        with cairn.Store(path, comm=comm, mode=m) as st:
            a = st.array("a8")
            got = a[...]
            want = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
            if size < 2:
                want[1:] = 0
            assert (got == want).all(), (got, want)
            assert a.shape == shape
            z = st.array("z")
            assert z.shape == (0, 5), z.shape
            zz = z[...]
            assert zz.shape == (0, 5)
            e = st.array("e")[...]
            assert (e[2] == 1).all() and (e[:2] == 0).all(), e
            assert (st.array("a16")[...] == 0).all()
            if m == "a":
                st.commit()
    say("arrays8 ok")

elif case == "norank":
    # rank 1 puts nothing ever; other ranks do; restart on other counts
    with cairn.Store(path, comm=comm, keep_revisions=2) as st:
        for i in range(5):
            if rank != 1:
                st.put("x", np.full(1000 + i, rank, dtype=np.int16))
            st.commit()
    with cairn.Store(path, comm=comm, mode="r") as st:
        for r in range(size):
            if r == 1:
                assert st.keys(rank=r) == []
            else:
                assert (st.get("x", rank=r, dtype=np.int16) == r).all()
    say("norank ok")
else:
    raise SystemExit("unknown case " + case)
