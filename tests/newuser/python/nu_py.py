"""A new user's tour of the Python package, under mpiexec with mpi4py.

    python nu_py.py all STORE       every feature (fresh STORE), any rank count
    python nu_py.py write STORE     restart test, first job (4 ranks in the script)
    python nu_py.py resume STORE    restart test, later jobs (3, then 2 ranks)
    python nu_py.py fread STORE     reads the array "fu" the Fortran program wrote

Prints "nu_py <mode>: passed" on rank 0, or each failed check (exit 1).
"""
import io
import pickle
import sys
import traceback

import mpi4py
mpi4py.rc.thread_level = "funneled"
from mpi4py import MPI  # noqa: E402
import numpy as np  # noqa: E402

import cairn  # noqa: E402

comm = MPI.COMM_WORLD
me, np_ = comm.rank, comm.size
fails = 0


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print(f"[rank {me}] FAIL: {what}", file=sys.stderr, flush=True)


def raises(exc, fn, what):
    name = getattr(exc, "__name__", str(exc))
    try:
        fn()
    except exc as e:
        check(len(str(e)) > 0, f"{what}: empty message")
        return str(e)
    except Exception as e:  # noqa: BLE001
        check(False, f"{what}: raised {type(e).__name__}: {e}, expected {name}")
        return None
    check(False, f"{what}: did not raise {name}")
    return None


def elem(shape):
    i, j = np.indices(shape)
    return ((i * 11 + j) % 100)


def run_all(path):
    raises(cairn.NotFound, lambda: cairn.Store(path, comm=comm, mode="r"), "open missing read-only")
    raises(cairn.InvalidArgument, lambda: cairn.Store(path, comm=comm, mode="w"), "bad mode")
    try:
        cairn.Store(path, comm=comm, no_such_option=1).close()
        check(False, "an unknown option is accepted")
    except (cairn.InvalidArgument, TypeError) as e:
        check("no_such_option" in str(e), f"unknown option message: {e}")
    st = cairn.Store(path, comm=comm, staging_bytes=8 << 20, chunk_size=64 << 10)
    check(st.rank == me and st.size == np_ and st.revision == 0 and st.writer_ranks == np_, "basics")

    # put/get with NumPy, without copies
    u = np.arange(30000, dtype=np.float64) + me * 1e6
    st.put("u", u, tags={"step": np.int32(7), "t": 0.5, "name": "u", "big": 2**63 + 5,
                         "i8": np.int8(-3), "i16": np.int16(-300), "u8": np.uint8(200),
                         "u16": np.uint16(60000), "u32": np.uint32(4000000000), "f32": np.float32(1.5),
                         "raw": b"a\x00b", "arr": np.array([1, 2, 3], dtype=np.uint16),
                         "lst": [1.5, 2.5], "rank": me})
    out = np.empty_like(u)
    got = st.get("u", out=out)
    check(got is out and np.array_equal(out, u), "get(out=) fills in place")
    v = st.get("u", dtype=np.float64, shape=(100, 300))
    check(v.shape == (100, 300) and v.flags.owndata and np.array_equal(v.ravel(), u), "get(dtype, shape)")
    check(st.get("u")[:8] == u[:1].tobytes(), "get bytes")
    check(st.value_size("u") == u.nbytes, "value_size")
    part = np.empty(10)
    st.read_range("u", 8 * 100, part)
    check(np.array_equal(part, u[100:110]), "read_range")
    raises(cairn.InvalidArgument, lambda: st.read_range("u", u.nbytes - 8, np.empty(2)), "read_range past end")
    raises(cairn.InvalidArgument, lambda: st.get("u", out=np.empty(5)), "get into wrong size")
    raises(cairn.InvalidArgument, lambda: st.get("u", out=np.empty((100, 300), order="F")), "get into F array")
    raises(cairn.NotFound, lambda: st.get("nope"), "get missing")
    raises(cairn.InvalidArgument, lambda: st.get("u", rank=np_ + 2), "get of a rank that is not")
    raises(cairn.InvalidArgument, lambda: st.put("", b"x"), "empty key")
    fo = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    st.put("fo", fo)
    check(np.array_equal(st.get("fo", dtype=np.float64, shape=(3, 4)), fo), "F-ordered put kept as C order")
    st.put("small", b"hello", tags={"kind": "field-b", "step": 7})
    st.put("gone", b"x")
    del st["gone"]
    raises(cairn.NotFound, lambda: st.delete("gone"), "delete twice")
    check("u" in st and "gone" not in st, "__contains__")

    # tag widths come back
    t = st.tags("u")
    want = {"step": np.int32, "i8": np.int8, "i16": np.int16, "u8": np.uint8, "u16": np.uint16,
            "u32": np.uint32, "f32": np.float32, "big": np.uint64}
    for k, ty in want.items():
        check(type(t[k]) is ty, f"tag {k} type {type(t[k]).__name__}, expected {ty.__name__}")
    check(t["t"] == 0.5 and type(t["t"]) is float and t["name"] == "u" and t["raw"] == b"a\x00b", "scalar tags")
    check(t["arr"].dtype == np.uint16 and list(t["arr"]) == [1, 2, 3], "array tag")
    check(t["lst"].dtype == np.float64 and list(t["lst"]) == [1.5, 2.5], "list tag")
    check(t["big"] == 2**63 + 5, "uint64 tag value")
    st.set_tag("small", "extra", np.float32(2.5))
    check(type(st.tags("small")["extra"]) is np.float32, "set_tag width")
    st.delete_tag("small", "extra")
    raises(cairn.NotFound, lambda: st.delete_tag("small", "extra"), "delete_tag twice")
    st.set_tags("fo", {"kind": "field-c"})
    check(st.tags("fo") == {"kind": "field-c"}, "set_tags")
    raises(cairn.InvalidArgument, lambda: st.set_tag("fo", "bad", object()), "bad tag value")
    raises(cairn.InvalidArgument, lambda: st.put("x", b"x", tags={"c": np.complex64(1)}), "complex tag")

    # get_many
    a, b = st.get_many(["u", "small"])
    check(a.view(np.float64)[5] == u[5] and bytes(b) == b"hello", "get_many")
    outs = [np.empty_like(u), bytearray(5)]
    res = st.get_many(["u", "small"], outs=outs)
    check(res[0] is outs[0] and np.array_equal(outs[0], u) and outs[1] == b"hello", "get_many outs")
    raises(cairn.NotFound, lambda: st.get_many(["u", "nope"]), "get_many missing")

    # list, keys, query
    check(st.keys() == ["fo", "small", "u"], f"keys {st.keys()}")
    objs = st.list()
    check([o.key for o in objs] == ["fo", "small", "u"] and objs[2].size == u.nbytes, "list")
    check(st.query(step=7) == ["small", "u"], "query equal across widths")
    check(st.query(step=cairn.range(5, 10), name=cairn.exists) == ["u"], "query range+exists")
    check(st.query(kind=cairn.prefix("field-")) == ["fo", "small"], "query prefix")
    check(st.query(kind=cairn.wildcard("*-?")) == ["fo", "small"], "query wildcard")
    check(st.query({"t": 0.5}) == ["u"], "query dict")

    # streams: np.save, pickle
    with st.open_stream("meta.npy", "wb", tags={"kind": "npy"}) as f:
        np.save(f, u[:1000])
    with st.open_stream("obj.pkl", "wb") as f:
        pickle.dump({"rank": me, "list": [1, 2, 3]}, f)
    raises(cairn.InvalidArgument, lambda: st.open_stream("x", "w"), "bad stream mode")

    rev = st.commit()
    check(rev == 1 and st.revision == 1, "commit")
    other = (me + 1) % np_
    with st.open_stream("meta.npy", "rb", rank=other) as f:
        check(np.array_equal(np.load(f), np.arange(1000.0) + other * 1e6), "np.load of another rank")
    with st.open_stream("obj.pkl") as f:
        check(pickle.load(f) == {"rank": me, "list": [1, 2, 3]}, "pickle")
    with st.open_stream("meta.npy") as f:
        f.seek(-8, io.SEEK_END)
        check(np.frombuffer(f.read(8), np.float64)[0] == 999 + me * 1e6, "stream seek end")
    check(st.query_all(name="u") == [(r, "u") for r in range(np_)], "query_all")
    check(st.query({"rank": other}, rank=other) == ["u"], "query of another namespace by tag 'rank'")

    # shared objects
    if me == 0:
        st.put_shared("cfg", np.array([1.0, 2.0]), tags={"k": 1})
    else:
        raises(cairn.InvalidArgument, lambda: st.put_shared("cfg", b"x"), "put_shared off rank 0")
    rev = st.commit()
    check(np.frombuffer(st.get_shared("cfg"), np.float64).tolist() == [1.0, 2.0], "get_shared")
    check(st.tags("cfg", rank=cairn.SHARED) == {"k": 1}, "shared tags")

    # async commit
    u2 = u + 1
    st.put("u", u2)
    h = st.commit_async()
    check(h.revision == 3, f"async revision {h.revision}")
    while not h.test():
        pass
    check(h.wait() == 3 and h.committed, "async wait")
    st.put("u", u2 + 1)
    st.flush()
    rev = st.commit()
    check(rev == 4, "commit after flush")
    stats = st.stats()
    check(stats["fsyncs"] > 0, "stats")

    # global arrays: irregular rows, rank 1 empty, several dtypes
    shape = (13, 11)
    bands = [(0, 5), (5, 6), (6, 13)]
    mine = [b for k, b in enumerate(bands) if (0 if np_ <= 2 else [0, 2][k % 2] if np_ == 3 else [0, 2, 3][k % 3]) == me]
    full = elem(shape)
    for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
               np.float32, np.float64):
        name = f"a_{np.dtype(dt).name}"
        for r0, r1 in mine:
            st.put_array(name, full[r0:r1].astype(dt), start=(r0, 0), global_shape=shape,
                         tags={"units": "K", "dtype": np.dtype(dt).name})
    for r0, r1 in mine:  # Fortran order: a (11, 13) block of columns
        st.put_array("fo", np.asfortranarray(full[r0:r1].T), start=(0, r0), global_shape=(11, 13), order="F",
                     statistics=True)
    if me == 0:
        st.put_array("grain", np.arange(5000.0), checksum_grain=8192)
    raises(cairn.InvalidArgument, lambda: st.put_array("g2", np.arange(10.0), checksum_grain=100), "bad grain")
    raises(cairn.InvalidArgument, lambda: st.put_array("c", np.zeros(3, np.complex64)), "complex array")
    raises(cairn.InvalidArgument, lambda: st.put_array("o", np.zeros((2, 2)), start=(1, 1), global_shape=(2, 2)),
           "block outside")
    st.commit()
    for dt in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"):
        A = st.array(f"a_{dt}")
        check(A.shape == shape and A.dtype == np.dtype(dt) and A.tags["units"] == "K", f"array {dt} info")
        check(np.array_equal(A[3:9, 4:10], full[3:9, 4:10].astype(dt)), f"slice crossing blocks {dt}")
        check(np.array_equal(A[::3, ::-2], full[::3, ::-2].astype(dt)), f"strided slice {dt}")
        check(A[12, 10] == full[12, 10], f"element {dt}")
        check(np.array_equal(np.asarray(A), full.astype(dt)), f"whole {dt}")
    FO = st.array("fo")
    check(FO.shape == (13, 11) and np.array_equal(FO[...], full), "order=F block read C-ordered")
    check(len(FO.blocks) == 3 and sorted(b.rank for b in FO.blocks) ==
          sorted(0 if np_ <= 2 else ([0, 2][k % 2] if np_ == 3 else [0, 2, 3][k % 3]) for k in range(3)),
          f"blocks {FO.blocks}")
    check(not FO.regular and FO.block_count == 3, "irregular")
    check(np.array_equal(st.array("grain")[4000:4100], np.arange(4000.0, 4100.0)), "grain array")
    out = np.empty((2, 3), np.float64)
    check(st.array("a_float64").read((1, 1), (2, 3), out=out) is out and np.array_equal(out, full[1:3, 1:4]),
          "Array.read out=")
    check(len(st.arrays()) == 12, f"arrays {len(st.arrays())}")
    check(st.query_arrays(dtype=cairn.prefix("uint")) == ["a_uint16", "a_uint32", "a_uint64", "a_uint8"],
          "query_arrays")
    raises(IndexError, lambda: st.array("fo")[[1, 2]], "advanced indexing")
    raises(IndexError, lambda: st.array("fo")[20], "index past the shape")
    raises(cairn.NotFound, lambda: st.array("nope"), "array missing")
    st.delete_array("grain")
    st.commit()
    raises(cairn.NotFound, lambda: st.array("grain"), "deleted array")

    # cairn.save / load of a nested state
    state = {"model": {"w": np.arange(6.0).reshape(2, 3) + me, "b": np.float32(0.5)},
             "opt": {"lr": 0.1, "step": 10, "name": "adam", "flags": [True, None, b"x"]}}
    rev = cairn.save(st, state)
    back = cairn.load(st)
    check(np.array_equal(back["model"]["w"], state["model"]["w"]) and back["opt"]["lr"] == 0.1 and
          back["opt"]["name"] == "adam" and back["opt"]["flags"] == [True, None, b"x"], "save/load")
    like = {"model": {"w": np.empty((2, 3)), "b": np.float32(0)}, "opt": state["opt"]}
    back = cairn.load(st, like=like)
    check(back["model"]["w"] is like["model"]["w"], "load fills like in place")

    # revisions, an older one, pin/unpin/drop
    revs = st.revisions()
    check([r.revision for r in revs] == list(range(1, rev + 1)), f"revisions {revs}")
    check(all(r.ranks == np_ for r in revs), "revision ranks")
    with cairn.Store(path, comm=comm, mode="r", revision=1) as old:
        check(old.revision == 1 and np.array_equal(old.get("u", dtype=np.float64), u), "old revision")
        raises(cairn.InvalidArgument, lambda: old.put("x", b"x"), "put read-only")
    st.pin(1)
    raises(cairn.InvalidArgument, lambda: st.drop(1), "drop pinned")
    st.unpin(1)
    st.drop(1)
    raises(cairn.NotFound, lambda: st.drop(1), "drop twice")
    st.close()
    raises(cairn.InvalidArgument, lambda: st.put("x", b"x"), "put after close")
    raises(cairn.InvalidArgument, lambda: cairn.Store(path, comm=comm, mode="x"), "mode x on an existing store")
    with cairn.Store(path, comm=comm, keep_revisions=2) as st:
        for k in range(3):
            st.put("u", u + k)
            last = st.commit()
        check([r.revision for r in st.revisions()] == [last - 1, last], "keep_revisions")


# ---- restart on other rank counts ----
N0 = 4
RSHAPE = (20, 7)


def rband(n, r):
    """Irregular row bands of RSHAPE for n ranks; rank 0 empty when n > 1."""
    a = max(n - 1, 1)
    rr = r - 1 if n > 1 else r
    if rr < 0:
        return 0, 0
    tot = a * (a + 1) // 2
    r0 = sum(RSHAPE[0] * (k + 1) // tot for k in range(rr))
    nr = RSHAPE[0] - r0 if rr == a - 1 else RSHAPE[0] * (rr + 1) // tot
    return r0, nr


RFULL = np.arange(RSHAPE[0] * RSHAPE[1], dtype=np.float64).reshape(RSHAPE)


def obj(k):
    return np.arange(100 + k, dtype=np.int16) * (k + 1)


def check_restart_state(st):
    hits = st.query_all(origin=cairn.exists)
    check(sorted(int(k[1:]) for _, k in hits) == list(range(N0)), f"objects {hits}")
    for r, k in hits:
        check(np.array_equal(st.get(k, rank=r, dtype=np.int16), obj(int(k[1:]))), f"object {k} of {r}")
    R = st.array("R")
    check(R.shape == RSHAPE and np.array_equal(R[1:-1, 2:], RFULL[1:-1, 2:]), "R")


def put_R(st):
    r0, nr = rband(st.size, st.rank)
    local = RFULL[r0:r0 + nr].copy()
    if nr:
        st.put_array("R", local, start=(r0, 0), global_shape=RSHAPE, tags={"writers": st.size})
    return cairn.Shard(local, (r0, 0), RSHAPE)


def run_write(path):
    with cairn.Store(path, comm=comm) as st:
        st.put(f"o{me}", obj(me), tags={"origin": me})
        put_R(st)
        st.commit()
        r0, nr = rband(np_, me)
        cairn.save(st, {"T": cairn.Shard(RFULL[r0:r0 + nr] * 2, (r0, 0), RSHAPE), "step": 5,
                        "per_rank": np.array([me])}, prefix="ckpt")
        check_restart_state(st)


def run_resume(path):
    with cairn.Store(path, comm=comm) as st:
        w = st.writer_ranks
        check(w != np_, f"restart on {np_} ranks of a {w}-rank revision")
        check_restart_state(st)
        # cairn.load on another rank count: the Shard I ask for now
        r0, nr = rband(np_, me)
        like = {"T": cairn.Shard(np.empty((nr, RSHAPE[1])), (r0, 0), RSHAPE), "step": 0,
                "per_rank": np.array([0])}
        got = cairn.load(st, like=like, prefix="ckpt")
        check(np.array_equal(got["T"].local if isinstance(got["T"], cairn.Shard) else got["T"],
                             RFULL[r0:r0 + nr] * 2), "load Shard on another rank count")
        check(got["step"] == 5, "load scalar")
        # whole array through like = a plain array of the global shape
        whole = cairn.load(st, like={"T": np.empty(RSHAPE), "step": 0, "per_rank": np.array([0])}, prefix="ckpt")
        check(np.array_equal(whole["T"], RFULL * 2), "load whole")
        for ns in range(me + np_, w, np_):
            for o in st.list(rank=ns):
                st.put(o.key, st.get(o.key, rank=ns), tags=o.tags)
        msg = raises(cairn.InvalidArgument, lambda: st.commit(), "commit with R in a namespace no rank owns")
        check(msg is None or "R" in msg, f"message names R: {msg}")
        put_R(st)
        cairn.save(st, {"T": cairn.Shard(RFULL[r0:r0 + nr] * 2, (r0, 0), RSHAPE), "step": 5,
                        "per_rank": np.array([me])}, prefix="ckpt", commit=False)
        st.commit()
        check(st.writer_ranks == np_, "writer_ranks after commit")
        check_restart_state(st)
    with cairn.Store(path, comm=comm, mode="r", revision=1) as old:
        check(old.writer_ranks == N0 and np.array_equal(old.get("o3", rank=3, dtype=np.int16), obj(3)), "revision 1")
        check_restart_state(old)


def run_fread(path):
    with cairn.Store(path, comm=comm, mode="r") as st:
        A = st.array("fu")   # Fortran wrote fu(11, 13): C order (13, 11)
        check(A.shape == (13, 11) and A.dtype == np.float64, f"fu {A.shape} {A.dtype}")
        check(np.array_equal(A[...], elem((13, 11)).astype(np.float64)), "fu values")
        check(A.tags.get("units") == "K" and A.tags.get("step") == 5, f"fu tags {A.tags}")


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    try:
        {"all": run_all, "write": run_write, "resume": run_resume, "fread": run_fread}[mode](path)
    except Exception:  # noqa: BLE001
        fails += 1
        traceback.print_exc()
        sys.stderr.flush()
    worst = comm.allreduce(fails, op=MPI.MAX)
    if me == 0:
        print(f"nu_py {mode}: {'FAILED' if worst else 'passed'}", flush=True)
    sys.exit(1 if worst else 0)
