# Global arrays from Python (Store.put_array, Store.array(name)[...]) and
# sharded state dicts, run by every rank under mpiexec -n 1, 2 and 4 (with
# test_store.py: python_test_np1/2/4). Restart on another rank count is
# python_array_restart (python/tests/array_restart.py).
import numpy as np
import pytest

import cairn

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64"]


def global_data(shape, dtype="float64"):
    """The same array on every rank: what the blocks of all ranks make up."""
    n = int(np.prod(shape))
    return (np.arange(n) % 251).astype(dtype).reshape(shape)


def row_blocks(nrows, size):
    """Irregular row ranges per rank: rank 0 has two, rank 1 none (when
    there are 2+ ranks), the others one each, of different lengths."""
    owners = [0, 0] + list(range(2, size))
    out, r = {q: [] for q in range(size)}, 0
    for i, q in enumerate(owners):
        n = 1 + (i * 3) % 4 if i < len(owners) - 1 else nrows - r
        out[q].append((r, r + n))
        r += n
    return out


def put_rows(st, name, g, size, rank, **kw):
    blocks = row_blocks(g.shape[0], size)
    for lo, hi in blocks[rank]:
        st.put_array(name, g[lo:hi], start=(lo,) + (0,) * (g.ndim - 1), global_shape=g.shape, **kw)
    return sum(len(b) for b in blocks.values())


def test_round_trip_irregular_blocks_and_empty_ranks(path, comm):
    g = global_data((23, 5, 4))
    with cairn.Store(path, comm) as st:
        nblocks = put_rows(st, "g", g, comm.size, comm.rank, tags={"step": np.int32(7), "who": "heat"})
        st.commit()
        a = st.array("g")
        assert (a.shape, a.dtype, a.ndim, a.size, a.nbytes) == ((23, 5, 4), np.float64, 3, g.size, g.nbytes)
        assert a.tags == {"step": 7, "who": "heat"} and type(a.tags["step"]) is np.int32
        assert a.block_count == nblocks == len(a.blocks)
        got = sorted((b.start, b.count) for b in a.blocks)
        want = sorted(((lo, 0, 0), (hi - lo, 5, 4)) for bl in row_blocks(23, comm.size).values()
                      for lo, hi in bl)
        assert got == want
        assert {b.rank for b in a.blocks} == ({0} if comm.size == 1 else {0} | set(range(2, comm.size)))
        whole = a[...]
        assert whole.flags.owndata and whole.base is None and whole.flags.c_contiguous
        np.testing.assert_array_equal(whole, g)
        np.testing.assert_array_equal(np.asarray(a), g)
        assert st.writer_ranks == comm.size


def test_block_statistics(path, comm):
    """Blocks put with statistics=True carry their min and max (Block's
    has_statistics, min, max); blocks put without have none."""
    g = global_data((23, 5, 4)) - 100.0
    with cairn.Store(path, comm) as st:
        put_rows(st, "s", g, comm.size, comm.rank, statistics=True)
        put_rows(st, "n", g, comm.size, comm.rank)
        st.commit()
        blocks = st.array("s").blocks
        assert blocks
        for b in blocks:
            part = g[b.start[0]:b.start[0] + b.count[0]]
            assert b.has_statistics is True and (b.min, b.max) == (part.min(), part.max())
            assert type(b.min) is float
        assert all(b.has_statistics is False and b.min is None and b.max is None for b in st.array("n").blocks)
        assert cairn.Block(0, (0,), (1,)) == (0, (0,), (1,), False, None, None)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "float32", "float64"])
def test_block_statistics_of_some_blocks_only(path, comm, dtype):
    """Statistics asked for some blocks only (the first block of each rank,
    not the others; on 1 rank, one of rank 0's two): those blocks carry
    them, the others have none, in a grid (one block per rank) and in
    irregular blocks. Before, the array kept none at all unless every block
    of every rank asked (sixth outside pass)."""
    g = global_data((23, 5, 4), dtype)
    rank, size = (0, 1) if comm is None else (comm.rank, comm.size)
    blocks = row_blocks(g.shape[0], size)
    grid = global_data((4 * size, 3), dtype)
    with cairn.Store(path, comm) as st:
        for k, (lo, hi) in enumerate(blocks[rank]):
            st.put_array("irr", g[lo:hi], start=(lo, 0, 0), global_shape=g.shape, statistics=(k == 0))
        st.put_array("grid", grid[4 * rank:4 * rank + 4], start=(4 * rank, 0), global_shape=grid.shape,
                     statistics=(rank == 0))
        st.commit()
        firsts = {q: b[0][0] for q, b in blocks.items() if b}
        for b in st.array("irr").blocks:
            part = g[b.start[0]:b.start[0] + b.count[0]]
            if firsts.get(b.rank) == b.start[0]:
                assert b.has_statistics is True and (b.min, b.max) == (part.min(), part.max()), b
            else:
                assert b.has_statistics is False and b.min is None and b.max is None, b
        for b in st.array("grid").blocks:
            part = grid[b.start[0]:b.start[0] + b.count[0]]
            if b.rank == 0:
                assert b.has_statistics is True and (b.min, b.max) == (part.min(), part.max()), b
            else:
                assert b.has_statistics is False, b
        assert np.array_equal(st.array("irr")[...], g) and np.array_equal(st.array("grid")[...], grid)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype(path, comm, dtype):
    g = global_data((11, 3), dtype)
    with cairn.Store(path, comm) as st:
        put_rows(st, "x", g, comm.size, comm.rank)
        # A byte-swapped block is converted; a Fortran-ordered one copied.
        if comm.rank == 0:
            st.put_array("swapped", g.astype(g.dtype.newbyteorder(">")), global_shape=g.shape)
        for lo, hi in row_blocks(g.shape[0], comm.size)[comm.rank]:
            st.put_array("fortran", np.asfortranarray(g[lo:hi]), start=(lo, 0), global_shape=g.shape)
        st.commit()
        for name in ["x", "swapped", "fortran"]:
            a = st.array(name)
            assert a.dtype == np.dtype(dtype) and a.dtype.isnative
            got = a[...]
            assert got.dtype == np.dtype(dtype)
            np.testing.assert_array_equal(got, g)
        assert st.array("x")[3, 2] == g[3, 2] and type(st.array("x")[3, 2]) is type(g[3, 2])


def test_slicing_matches_numpy(path, comm):
    g = global_data((9, 6, 7), "int32")
    rng = np.random.default_rng(13)
    keys = [0, -1, 8, -9, (slice(None),), (Ellipsis,), (Ellipsis, 3), (2, Ellipsis, -1),
            (slice(1, 8, 3), slice(None, None, -1), 4), (slice(None, None, -4), None, slice(2, 5)),
            (None, 1, None, slice(5, 0, -2), Ellipsis), (slice(6, 2), 0), (8, 5, 6), (-9, -6, -7),
            (slice(-100, 100, 4),), (slice(None, None, 20),), (slice(7, None, -10),),
            (slice(2, 3), slice(1, 2), slice(3, 4)), (np.int64(4), np.int8(-2))]
    for _ in range(60):
        k = []
        for n in g.shape:
            c = rng.integers(0, 4)
            if c == 0:
                k.append(int(rng.integers(-n, n)))
            elif c == 1:
                k.append(slice(None))
            else:
                lo, hi = [int(x) if rng.random() < 0.8 else None for x in rng.integers(-n - 2, n + 2, 2)]
                k.append(slice(lo, hi, int(rng.choice([1, 2, 3, -1, -2, 5]))))
        keys.append(tuple(k))
    with cairn.Store(path, comm) as st:
        # Columns of the middle dimension split over the ranks (2-D boxes).
        cols = np.array_split(np.arange(6), comm.size)[comm.rank]
        if cols.size:
            st.put_array("g", g[:, cols[0]:cols[-1] + 1], start=(0, int(cols[0]), 0), global_shape=g.shape)
        st.commit()
        a = st.array("g")
        for k in keys:
            want, got = g[k], a[k]
            assert np.shape(got) == np.shape(want), k
            np.testing.assert_array_equal(got, want, err_msg=str(k))
            if isinstance(want, np.ndarray):
                assert got.flags.owndata and got.flags.c_contiguous and got.dtype == want.dtype, k
            else:
                assert type(got) is type(want), k
        # An explicit box, into a caller's buffer.
        out = np.empty((2, 3, 4), np.int32)
        assert a.read((1, 2, 3), (2, 3, 4), out=out) is out
        np.testing.assert_array_equal(out, g[1:3, 2:5, 3:7])
        for bad in [(0, 0, 0, 0), 9, -10, [1, 2], np.array([True] * 9), (Ellipsis, Ellipsis), 1.5, True]:
            with pytest.raises(IndexError):
                a[bad]


def test_put_array_makes_no_copy(path, comm):
    """The C-contiguous block itself reaches the extension, whatever the
    layout of the global array; other layouts are copied first."""
    seen = []

    class Spy:
        def __init__(self, s):
            self._inner = s

        def put_array(self, name, data, *rest):
            seen.append(data)
            return self._inner.put_array(name, data, *rest)

        def __getattr__(self, n):
            return getattr(self._inner, n)

    local = np.full((4, 1000), comm.rank, np.float64)
    with cairn.Store(path, comm) as st:
        st._s = Spy(st._s)
        st.put_array("a", local, start=(4 * comm.rank, 0), global_shape=(4 * comm.size, 1000))
        assert seen[-1] is local
        f = np.asfortranarray(np.full((4, 3), comm.rank, np.int16))
        st.put_array("f", f, start=(4 * comm.rank, 0), global_shape=(4 * comm.size, 3))
        assert seen[-1] is not f and seen[-1].flags.c_contiguous
        st.put_array("fo", f, start=(4 * comm.rank, 0), global_shape=(4 * comm.size, 3), order="F")
        assert seen[-1] is f
        st.commit()
        np.testing.assert_array_equal(st.array("a")[4 * comm.rank:4 * comm.rank + 4], local)
        np.testing.assert_array_equal(st.array("f")[...], np.repeat(np.arange(comm.size), 4)[:, None]
                                      * np.ones((1, 3), np.int16))
        # order="F": the dimensions are a Fortran program's, the stored array its transpose.
        fo = st.array("fo")
        assert fo.shape == (3, 4 * comm.size)
        np.testing.assert_array_equal(fo[...].T, st.array("f")[...])


def test_listing_query_delete(path, comm):
    with cairn.Store(path, comm) as st:
        assert st.arrays() == [] and st.writer_ranks == comm.size
        if comm.rank == 0:
            st.put_array("b/u", np.zeros(3, np.float32), tags={"field": "u", "step": 1})
            st.put_array("a/v", np.ones((2, 2), np.uint16), tags={"field": "v", "step": 2})
        st.commit()
        arrs = st.arrays()
        assert [a.name for a in arrs] == ["a/v", "b/u"]
        assert arrs[0].shape == (2, 2) and arrs[0].dtype == np.uint16 and arrs[1].tags["field"] == "u"
        assert st.query_arrays(field="u") == ["b/u"]
        assert st.query_arrays(step=cairn.range(1, 3)) == ["a/v", "b/u"]
        assert st.query_arrays(field=cairn.prefix("x")) == []
        if comm.rank == comm.size - 1:
            st.delete_array("b/u")
        st.commit()
        assert [a.name for a in st.arrays()] == ["a/v"]
        with pytest.raises(cairn.NotFound):
            st.array("b/u")
        with pytest.raises(cairn.NotFound):
            st.delete_array("b/u")
        # Not put again: carried into the next revision as it was.
        st.put("k", b"v")
        st.commit()
        np.testing.assert_array_equal(st.array("a/v")[...], np.ones((2, 2), np.uint16))


def test_array_errors(path, comm):
    with cairn.Store(path, comm) as st:
        with pytest.raises(cairn.NotFound) as e:
            st.array("missing")
        assert isinstance(e.value, KeyError) and "missing" in str(e.value)
        with pytest.raises(cairn.InvalidArgument, match="complex128 is not supported"):
            st.put_array("c", np.zeros(3, complex))
        with pytest.raises(cairn.InvalidArgument, match="start has 1 dimensions, the block 2"):
            st.put_array("s", np.zeros((2, 2)), start=(0,), global_shape=(4, 4))
        with pytest.raises(cairn.InvalidArgument, match="negative"):
            st.put_array("s", np.zeros((2, 2)), start=(-1, 0), global_shape=(4, 4))
        with pytest.raises(cairn.InvalidArgument, match="order"):
            st.put_array("s", np.zeros((2, 2)), order="K")
        with pytest.raises(cairn.InvalidArgument, match="'s'"):  # the library's: outside the shape
            st.put_array("s", np.zeros((2, 2)), start=(3, 0), global_shape=(4, 4))
        with pytest.raises(cairn.InvalidArgument):  # the library's: 0 dimensions
            st.put_array("s", np.float64(1.0))
        # Two ranks' blocks (or one rank's two) overlap: the commit fails everywhere.
        st.put_array("o", np.zeros(4), start=(0,), global_shape=(8,))
        if comm.size == 1:
            st.put_array("o", np.zeros(4), start=(2,), global_shape=(8,))
        with pytest.raises(cairn.InvalidArgument, match="'o'"):
            st.commit()
    with cairn.Store(path, comm) as st:
        st.put_array("r", np.arange(4.0) + 4 * comm.rank, start=(4 * comm.rank,), global_shape=(4 * comm.size,))
        st.commit()
        a = st.array("r")
        with pytest.raises(cairn.InvalidArgument, match="out must be"):
            a.read((0,), (2,), out=np.empty(2, np.float32))
        with pytest.raises(cairn.InvalidArgument):  # the library's: past the shape
            a.read((4 * comm.size - 1,), (2,))
    with pytest.raises(cairn.InvalidArgument, match="closed"):
        a[0]


def test_reading_more_than_memory_names_the_array(path, comm):
    # A sparse array of 2**45 float64 (2**48 bytes, past any address space)
    # with no block written: reading it whole raised NumPy's MemoryError; it
    # is cairn.IOError naming the array, its shape and bytes, as the
    # library's own out-of-memory errors are.
    shape = (2**24, 2**21)
    with cairn.Store(path, comm) as st:
        st.put_array("huge", np.zeros((0, 0)), start=(0, 0), global_shape=shape)
        st.commit()
        a = st.array("huge")
        assert a.shape == shape and a.block_count == 0
        with pytest.raises(cairn.IOError, match="array 'huge'.*out of memory"):
            a[:, ::2]
        for read in (lambda: a[...], lambda: a.read((0, 0), shape), lambda: np.asarray(a)):
            with pytest.raises(cairn.IOError, match=r"array 'huge'.*\(16777216, 2097152\).*"
                                                    r"2814749767106\d+ bytes: out of memory"):
                read()
        assert a[5:7, 1:3].sum() == 0.0  # a part that fits still reads (as zeros)


def test_checksum_grain(path, comm):
    """put_array(checksum_grain=G): the block is checksummed in pieces cut at
    the file's multiples of G bytes, so a finer grain stores more pieces (a
    bigger index) and a one-element read reads less; the values are the
    same. A grain the library refuses (not a multiple of 4096), or one that
    is not a non-negative int, is InvalidArgument naming it."""
    n = 128 * 1024  # float64: 1 MiB per rank, above inline_value_limit
    mine = np.arange(n, dtype=np.float64) + 1e7 * comm.rank
    lo = comm.rank * n
    where = dict(start=(lo,), global_shape=(comm.size * n,))
    with cairn.Store(path, comm) as st:
        for bad in (1000, 6144, 4097):
            with pytest.raises(cairn.InvalidArgument, match=f"'g'.*checksum_grain {bad} is not a multiple of 4096"):
                st.put_array("g", mine, checksum_grain=bad, **where)
        for bad in (-4096, 4096.0, "4096", True):
            with pytest.raises(cairn.InvalidArgument, match="'g'.*checksum_grain"):
                st.put_array("g", mine, checksum_grain=bad, **where)
        assert st.commit() == 1 and "g" not in [a.name for a in st.arrays()]
        read = []
        for grain in (4096, 65536, 0, None):
            st.put_array("g", mine, checksum_grain=grain, **where)
            st.commit()
            a = st.array("g")
            a[lo]  # loads what the first read needs beyond the block's bytes
            before = st.stats()["read_bytes"]
            assert a[lo + n // 2] == mine[n // 2]
            read.append(st.stats()["read_bytes"] - before)
            np.testing.assert_array_equal(a[lo:lo + n], mine)
        ib = [r.index_bytes for r in st.revisions()][1:]
        # About 16 index bytes per piece: 256 pieces per rank at 4 KiB, 16
        # at 64 KiB, 1 or 2 at the chunk size; None is the default, 4 KiB.
        assert ib[0] > ib[1] + comm.size * 2400 and ib[1] > ib[2] + comm.size * 120, ib
        assert abs(ib[3] - ib[0]) < comm.size * 100, ib
        assert read[0] <= 8192 and read[1] >= 65536 and read[3] <= 8192, read


def test_save_load_shards(path, comm):
    """Sharded arrays as global arrays, on the same rank count (another one:
    array_restart.py); replicated leaves per rank."""
    n, size, rank = 10, comm.size, comm.rank
    g = global_data((n, 3))
    rows = np.array_split(np.arange(n), size)[rank]
    lo, hi = int(rows[0]) if rows.size else 0, int(rows[-1]) + 1 if rows.size else 0
    state = {"u": cairn.Shard(g[lo:hi], (lo, 0), g.shape), "step": 5 + rank,
             "opt": {"lr": np.float32(0.5), "v": cairn.Shard(g[lo:hi, 0].astype(np.int64), (lo,), (n,))}}
    with cairn.Store(path, comm) as st:
        assert cairn.save(st, state) == 1
        assert sorted(a.name for a in st.arrays()) == ["state/opt/v", "state/u"]
        # Without like: cairn.Array handles, any slice of which reads.
        got = cairn.load(st)
        assert isinstance(got["u"], cairn.Array) and got["step"] == 5 + rank
        np.testing.assert_array_equal(got["u"][...], g)
        np.testing.assert_array_equal(got["opt"]["v"][2:7], g[2:7, 0])
        # like: the piece each Shard asks for, filled in place; a whole array of the global shape.
        mine = np.empty((hi - lo, 3))
        like = {"u": cairn.Shard(mine, (lo, 0), (n, 3)), "opt": {"v": np.zeros(n, np.int64)}}
        out = cairn.load(st, like=like)
        assert out["u"] is like["u"] and out["u"].local is mine
        np.testing.assert_array_equal(mine, g[lo:hi])
        assert out["opt"]["v"] is like["opt"]["v"]
        np.testing.assert_array_equal(like["opt"]["v"], g[:, 0])
        # Another decomposition of the same array (every rank wants row 3..n).
        other = cairn.load(st, like={"u": cairn.Shard(np.empty((n - 3, 3), np.float32), (3, 0), (n, 3))})
        np.testing.assert_array_equal(other["u"].local, g[3:].astype(np.float32))
        with pytest.raises(cairn.InvalidArgument, match="global_shape"):
            cairn.load(st, like={"u": cairn.Shard(np.empty((1, 3)), (0, 0), (n + 1, 3))})
        # A later save without the shards removes their arrays.
        cairn.save(st, {"step": 1})
        assert st.arrays() == []


def test_save_load_torch(path, comm):
    torch = pytest.importorskip("torch", reason="torch is not installed (optional; never a dependency)")
    n, rank, size = 8, comm.rank, comm.size
    full = torch.arange(n * size, dtype=torch.float32).reshape(n * size, 1)
    state = {"w": torch.ones(3, dtype=torch.float64) * rank,
             "s": cairn.Shard(full[rank * n:(rank + 1) * n], (rank * n, 0), (n * size, 1))}
    with cairn.Store(path, comm) as st:
        cairn.save(st, state)
        like = {"w": torch.empty(3, dtype=torch.float64),
                "s": cairn.Shard(torch.empty(n, 1), (rank * n, 0), (n * size, 1))}
        got = cairn.load(st, like=like)
        assert got["w"] is like["w"] and torch.equal(got["w"], state["w"])
        assert got["s"] is like["s"] and torch.equal(like["s"].local, full[rank * n:(rank + 1) * n])


def test_stale_handle_after_the_array_changed_is_refused(path, comm):
    # A cairn.Array made before its array was put again with another dtype
    # or shape raises InvalidArgument at every read; before, it read the new
    # int64 bytes as float64 (denormals). A handle of the same dtype and
    # shape reads the new values.
    with cairn.Store(path, comm) as st:
        if comm.rank == 0:
            st.put_array("a", np.arange(4.0))
        st.commit()
        a = st.array("a")
        if comm.rank == 0:
            st.put_array("a", np.arange(4, dtype=np.int64) * 10)
        st.commit()
        for read in (lambda: a[...], lambda: a[1:3], lambda: a[::2], lambda: np.asarray(a),
                     lambda: a.read((0,), (4,)), lambda: a.read((0,), (4,), out=np.empty(4))):
            with pytest.raises(cairn.InvalidArgument, match="changed.*float64.*int64"):
                read()
        np.testing.assert_array_equal(st.array("a")[...], [0, 10, 20, 30])
        b = st.array("a")
        if comm.rank == 0:
            st.put_array("a", np.arange(5, dtype=np.int64))
        st.commit()
        with pytest.raises(cairn.InvalidArgument, match=r"shape \(4,\).*shape \(5,\)"):
            b[0]
        c = st.array("a")
        if comm.rank == 0:
            st.put_array("a", np.arange(5, dtype=np.int64) + 1)
        st.commit()
        np.testing.assert_array_equal(c[...], np.arange(5) + 1)


def test_read_into_a_read_only_buffer_names_it(path, comm):
    # An outside pass: a read-only C-contiguous out (np.frombuffer of bytes,
    # bytes, a read-only memoryview) was refused as "a Fortran-ordered or
    # strided array: pass numpy.ascontiguousarray(x)", which returns the
    # same read-only array. The error names the cause; nothing is written.
    with cairn.Store(path, comm) as st:
        if comm.rank == 0:
            st.put_array("a", np.arange(6.0))
        st.put("k", b"x" * 48)
        st.commit()
        raw = bytes(48)
        for out in (np.frombuffer(raw, dtype=np.float64), raw, memoryview(raw)):
            with pytest.raises(cairn.InvalidArgument, match="read-only"):
                st.array("a").read((0,), (6,), out=out)
            with pytest.raises(cairn.InvalidArgument, match="read-only"):
                st.get("k", out=out)
        assert raw == bytes(48)
