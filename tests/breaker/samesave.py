"""Seventh pass: saving unchanged state again, mixed with small changes.

mpiexec -n N python samesave.py DIR write ROUNDS KEEP [STAGING]
    continues (or creates) DIR at N ranks. Every round each rank puts
    every object of its namespace again with identical bytes and tags
    (small inline values and values of 3-20 KB), re-puts arrays G (chunked
    blocks, irregular, the last rank none) and H (inline blocks) with
    identical data, and then mixes in, at random: one changed tag, a put
    then delete of a new key, a delete then put back of an existing one,
    DeleteTag + SetTag back to the same value, SetTag to the same value,
    SetTags with the same tags in another order, a value that changes size
    across the inline limit, a stream opened before the commit and closed
    after it, an array element changed, statistics on some puts of G only.
    Commits alternate sync and async (the next round's re-puts made while
    one is in flight). Pins: every 7th revision, at most two kept.
    Rank 0 writes each revision's model to DIR.model/REV.pkl and the size
    of the data files after each commit to DIR.sizes.
mpiexec -n M python samesave.py DIR check [REV]
    every retained revision with a model opened read-only at M ranks, each
    namespace (list, get, tags, get_many, read_range, query_all) and both
    arrays (whole, a box, blocks' statistics) checked against the model.
mpiexec -n M python samesave.py DIR hold REV
    opens REV read-only, waits for DIR.go, checks it: pinned must be exact,
    others exact or Corruption.
"""
import copy
import os
import pickle
import sys
import time

import numpy as np
from mpi4py import MPI

import cairn

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
# SAMESAVE_INLINE=1: every value, stream and array block inline (<= 2 KiB),
# so that a round with no change reuses the namespace's table
# (remembered by DIR.inline, so that check, hold and tools jobs see it too)
INLINE = os.environ.get("SAMESAVE_INLINE") == "1" or (
    len(sys.argv) > 1 and os.path.exists(sys.argv[1] + ".inline"))
GSHAPE = (7, 30) if INLINE else (61, 700)  # float64: 341 KB, blocks of several chunks
HSHAPE = (6, 5)           # int32: inline blocks


def val(key, ver, n=None):
    rng = np.random.default_rng(abs(hash((key, ver))) % (1 << 32))
    if n is None:
        n = int(rng.integers(3000, 20000)) if key.startswith("big") and not INLINE else int(rng.integers(0, 300))
    return rng.integers(0, 256, size=n, dtype=np.uint8).tobytes()


def mpath(d, rev):
    return f"{d}.model/{rev}.pkl"


def gdata(ver):
    return np.random.default_rng(ver).standard_normal(GSHAPE)


def hdata(ver):
    return np.random.default_rng(ver + 7).integers(-99, 99, size=HSHAPE).astype(np.int32)


def grow_rows(n):
    """Irregular row blocks of G over n ranks, the last rank none."""
    cuts = [0] + sorted(set(int(x) for x in np.linspace(0, GSHAPE[0], max(n, 2))[1:-1])) + [GSHAPE[0]]
    blocks = [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]
    mine = [b for i, b in enumerate(blocks) if i % n == rank and (n == 1 or rank != n - 1)]
    if n == 1:
        mine = blocks
    return mine


def data_bytes(d):
    tot = 0
    for f in os.listdir(d):
        if f.startswith("data") or f.endswith(".dat"):
            tot += os.path.getsize(os.path.join(d, f))
    return tot


def write(d, rounds, keep, staging):
    os.makedirs(f"{d}.model", exist_ok=True)
    st = cairn.Store(d, comm=comm, keep_revisions=keep, staging_bytes=staging)
    rev0 = st.revision
    if INLINE and rank == 0:
        open(f"{d}.inline", "w").close()
    if rev0:
        p = mpath(d, rev0)
        if not os.path.exists(p):  # killed between the commit and finish()
            p = f"{d}.model/pending-{rev0}.pkl"
        prev = pickle.load(open(p, "rb"))
        comm.Barrier()
        if rank == 0 and not os.path.exists(mpath(d, rev0)):
            os.replace(p, mpath(d, rev0))
        ns = copy.deepcopy(prev["ns"][rank]) if rank < len(prev["ns"]) else {}
        gver, hver, pins = prev["gver"], prev["hver"], prev["pins"]
        gstats = prev["gstats"]
    else:
        ns, gver, hver, pins, gstats = {}, 1, 1, [], {}
    # a fresh base for a new rank (or the first job)
    for i in range(25):
        k = f"small{i:02d}"
        if k not in ns:
            ns[k] = (val(k, 0), {"i": i, "name": k, "f": i / 3.0})
    for i in range(3):
        k = f"big{i}"
        if k not in ns:
            ns[k] = (val(k, 0), {"i": i, "b": b"\x00\x01" * i})
    rng = np.random.default_rng(rev0 * 1000 + rank * 7 + size)
    strm = None
    pending = None
    pend_snapshot = None
    sizes = []
    for rnd in range(rounds):
        # 1. put everything back, identical bytes and tags
        for k in sorted(ns):
            v, t = ns[k]
            st.put(k, v, tags=t)
        # 2. small changes, at random
        r = rng.random
        if r() < (0.05 if INLINE else 0.3):  # one changed tag
            k = f"small{int(rng.integers(25)):02d}"
            v, t = ns[k]
            t = dict(t); t["i"] = int(t["i"]) + 1
            st.put(k, v, tags=t); ns[k] = (v, t)
        if r() < 0.3:  # put then delete of a new key
            st.put("tmp", b"x" * int(rng.integers(0, 5000)), tags={"t": 1})
            st.delete("tmp")
        if r() < 0.3:  # delete then put back identically
            k = f"small{int(rng.integers(25)):02d}"
            st.delete(k); st.put(k, ns[k][0], tags=ns[k][1])
        if r() < 0.3:  # delete tag then set it back
            k = f"small{int(rng.integers(25)):02d}"
            st.delete_tag(k, "f"); st.set_tag(k, "f", ns[k][1]["f"])
        if r() < 0.3:  # set tag to the same value
            k = f"big{int(rng.integers(3))}"
            st.set_tag(k, "i", ns[k][1]["i"])
        if r() < 0.3:  # same tags, other order
            k = f"small{int(rng.integers(25)):02d}"
            st.set_tags(k, dict(reversed(list(ns[k][1].items()))))
        if r() < (0.03 if INLINE else 0.2):  # a big value changes
            k = f"big{int(rng.integers(3))}"
            v = val(k, rev0 + rnd + 1); st.put(k, v, tags=ns[k][1]); ns[k] = (v, ns[k][1])
        if r() < (0.05 if INLINE else 0.4):  # size across the inline limit
            n = int(rng.choice([0, 100, 2048] if INLINE else [0, 100, 2048, 2049, 5000]))
            v = val("grow", rev0 + rnd, n); st.put("grow", v, tags={"n": n}); ns["grow"] = (v, {"n": n})
        if r() < 0.15 and "grow" in ns:
            st.delete("grow"); del ns["grow"]
        # arrays: G and H put again every round (agreed on rank 0)
        gchange, hchange = comm.bcast((rng.random() < 0.2, rng.random() < 0.2) if rank == 0 else None)
        gstat_round = comm.bcast(int(rng.integers(3)) if rank == 0 else None)
        if INLINE:  # fewer changes, so that whole rounds are unchanged (rank 0 decides)
            gchange, hchange = comm.bcast((gchange and rng.random() < 0.2, hchange and rng.random() < 0.2)
                                          if rank == 0 else None)
            gstat_round = 2
        if gchange:
            gver += 1
        if hchange:
            hver += 1
        g = gdata(gver)
        for bi, (a, b) in enumerate(grow_rows(size)):
            stats = gstat_round == 2 or (gstat_round == 1 and rank == 0 and bi == 0)
            st.put_array("G", g[a:b], start=(a, 0), global_shape=GSHAPE, tags={"v": gver}, statistics=stats)
            gstats[(a, b)] = stats
        # gstats: the blocks of this round only
        allb = comm.allgather({k: v for k, v in gstats.items() if k in grow_rows(size)})
        gstats = {}
        for x in allb:
            gstats.update(x)
        if rank == 0:
            st.put_array("H", hdata(hver), global_shape=HSHAPE, tags={"v": hver})
        # a stream open across the commit
        if strm is None and r() < (0.1 if INLINE else 0.5):
            strm_tag = {"r": rev0 + rnd}
            strm = st.open_stream("strm", "wb", tags=strm_tag)
            strm_v = val("strm", rev0 + rnd, int(rng.integers(0, 2000 if INLINE else 9000)))
            strm.write(strm_v[: len(strm_v) // 2])
        # the commit in flight before: finish it now (its snapshot was taken)
        if pending is not None:
            got = pending.wait()
            assert got == pend_snapshot["rev"], (got, pend_snapshot["rev"])
            finish(d, st, pend_snapshot, pins, sizes)
            pending = None
        snap = {"ns": ns, "gver": gver, "hver": hver, "gstats": dict(gstats)}
        # the model of the revision this commit makes, written before it: a
        # kill between the commit and finish() leaves it for the next job
        allns_p = comm.gather(ns)
        if rank == 0:
            pp = f"{d}.model/pending-{st.revision + 1}.pkl"
            with open(pp + ".tmp", "wb") as f:
                pickle.dump({"ns": allns_p, "gver": gver, "hver": hver, "pins": list(pins),
                             "gstats": dict(gstats), "ranks": size}, f)
            os.replace(pp + ".tmp", pp)
        comm.Barrier()
        use_async = rnd % 2 == 1
        if use_async:
            pending = st.commit_async()
            snap["rev"] = pending.revision
            pend_snapshot = snap
            ns = copy.deepcopy(ns)
        else:
            snap["rev"] = st.commit()
            finish(d, st, snap, pins, sizes)
        if strm is not None and r() < 0.7:
            strm.write(strm_v[len(strm_v) // 2:])
            strm.close()
            ns["strm"] = (strm_v, strm_tag)
            strm = None
    if pending is not None:
        pending.wait()
        finish(d, st, pend_snapshot, pins, sizes)
    if strm is not None:
        strm.close()  # not committed: the store closes below
    reused = comm.gather(st.stats().get("index_tables_reused"))
    if rank == 0:
        print(f"write at {size}: {rounds} commits, tables reused per rank: {reused}", flush=True)
        if EACH[0]:
            print(f"each-commit check: {EACH[0]} revisions, {EACH[1]} checks, {EACH[2]} bad", flush=True)
    st.close()


EACH = [0, 0, 0]  # revisions, checks, bad of SAMESAVE_CHECK_EACH


def finish(d, st, snap, pins, sizes):
    rev = snap["rev"]
    allns = comm.gather(snap["ns"])
    if rev % 7 == 0:
        st.pin(rev)
        pins.append(rev)
        if len(pins) > 2:
            st.unpin(pins.pop(0))
    if os.environ.get("SAMESAVE_CHECK_EACH") == "1":
        # every revision read back right after its commit (read-only, same ranks)
        comm.gather(None)
        if rank == 0:
            model0 = {"ns": allns, "gver": snap["gver"], "hver": snap["hver"], "gstats": snap["gstats"]}
            with open(mpath(d, rev) + ".tmp", "wb") as f:
                pickle.dump(model0, f)
            os.replace(mpath(d, rev) + ".tmp", mpath(d, rev))
        comm.Barrier()
        bad = []
        with cairn.Store(d, comm=comm, mode="r", revision=rev) as ro:
            n = check_rev(d, rev, ro, bad)
        allbad = comm.allreduce(len(bad))
        EACH[0] += 1
        EACH[1] += comm.allreduce(n)
        EACH[2] += allbad
        if bad:
            print("EACH BAD", rev, bad[:3], flush=True)
    if rank == 0:
        model = {"ns": allns, "gver": snap["gver"], "hver": snap["hver"], "pins": list(pins),
                 "gstats": snap["gstats"], "ranks": size}
        with open(mpath(d, rev) + ".tmp", "wb") as f:
            pickle.dump(model, f)
        os.replace(mpath(d, rev) + ".tmp", mpath(d, rev))
        with open(f"{d}.sizes", "a") as f:
            f.write(f"{rev} {data_bytes(d)}\n")


def check_rev(d, rev, st, bad):
    m = pickle.load(open(mpath(d, rev), "rb"))
    checks = 0
    for ns in range(rank, len(m["ns"]), size):
        want = m["ns"][ns]
        got = {o.key: o for o in st.list(rank=ns)}
        if sorted(got) != sorted(want):
            bad.append((rev, ns, "keys", sorted(set(got) ^ set(want))))
            continue
        keys = sorted(want)
        vals = st.get_many(keys, rank=ns) if keys else []
        for k, v in zip(keys, vals):
            wv, wt = want[k]
            if bytes(v) != wv:
                bad.append((rev, ns, k, "value", len(v), len(wv)))
            if st.tags(k, rank=ns) != wt or got[k].tags != wt:
                bad.append((rev, ns, k, "tags", st.tags(k, rank=ns), wt))
            if len(wv) > 10:
                out = bytearray(5)
                st.read_range(k, len(wv) - 5, out, rank=ns)
                if bytes(out) != wv[-5:]:
                    bad.append((rev, ns, k, "range"))
            checks += 1
    # query_all by a tag every small key has
    hits = st.query_all(i=cairn.range(0, 10))
    want_hits = sorted((ns, k) for ns in range(len(m["ns"])) for k, (v, t) in m["ns"][ns].items()
                       if isinstance(t.get("i"), int) and 0 <= t["i"] <= 10)
    if sorted(hits) != want_hits:
        bad.append((rev, "query_all", len(hits), len(want_hits)))
    g = st.array("G")
    if not np.array_equal(g[:, :], gdata(m["gver"])) or g.tags != {"v": m["gver"]}:
        bad.append((rev, "G"))
    if not np.array_equal(g[5:40, 100:333], gdata(m["gver"])[5:40, 100:333]):
        bad.append((rev, "G box"))
    for b in g.blocks:
        a = b.start[0]
        e = a + b.count[0]
        want_s = m["gstats"].get((a, e))
        if want_s is None or b.has_statistics != want_s:
            bad.append((rev, "G stats flag", (a, e), b.has_statistics, want_s))
        elif want_s:
            blk = gdata(m["gver"])[a:e]
            if b.min != blk.min() or b.max != blk.max():
                bad.append((rev, "G stats", (a, e), b.min, b.max))
    h = st.array("H")
    if not np.array_equal(h[:, :], hdata(m["hver"])) or h.tags != {"v": m["hver"]}:
        bad.append((rev, "H"))
    return checks + 6


def check(d, only=None):
    st0 = cairn.Store(d, comm=comm, mode="r")
    revs = [r.revision for r in st0.revisions()]
    st0.close()
    bad, checks, n = [], 0, 0
    for rev in revs:
        if only and rev != only:
            continue
        if not os.path.exists(mpath(d, rev)):
            continue
        with cairn.Store(d, comm=comm, mode="r", revision=rev) as st:
            checks += check_rev(d, rev, st, bad)
        n += 1
    tot = comm.reduce(checks)
    allbad = comm.gather(bad)
    if rank == 0:
        allbad = [b for x in allbad for b in x]
        print(f"check at {size} ranks: {n} revisions {revs[:3]}..{revs[-3:]}, {tot} checks, {len(allbad)} bad")
        for b in allbad[:20]:
            print("  BAD", b)
    return 1 if comm.bcast(len(allbad) if rank == 0 else None) else 0


def hold(d, rev):
    st = cairn.Store(d, comm=comm, mode="r", revision=rev)
    pinned = any(r.revision == rev and r.pinned for r in st.revisions())
    while not os.path.exists(f"{d}.go"):
        time.sleep(0.2)
    bad = []
    try:
        c = check_rev(d, rev, st, bad)
        res = "exact" if not bad else "BAD"
    except cairn.Corruption as e:
        res = "corruption" + ("" if not bad else "+BAD")
        c = 0
        if pinned:
            bad.append(("pinned corruption", str(e)[:200]))
    st.close()
    allbad = comm.gather(bad)
    if rank == 0:
        allbad = [b for x in allbad for b in x]
        print(f"hold {rev} (pinned {pinned}) at {size}: {res}, {len(allbad)} bad", allbad[:5])
    return 1 if comm.bcast(len(allbad) if rank == 0 else None) else 0


def tools(d, cairn_bin, reader_py):
    """The tool and the reader on every retained revision with a model:
    verify --all, ls, keys/get of some keys, arrays, get --select --npy and
    the reader's array and get, all against the model."""
    import io
    import json
    import subprocess as sp

    def run(*a, ok=(0,)):
        r = sp.run(list(a), capture_output=True)
        if r.returncode not in ok:
            bad.append(("rc", r.returncode, a, r.stderr[:200]))
        return r.stdout
    bad, n = [], 0
    run(cairn_bin, "verify", d, "--all")
    ls = json.loads(run(cairn_bin, "ls", d, "--json"))
    with cairn.Store(d, mode="r") as st:
        if [x["revision"] for x in ls] != [r.revision for r in st.revisions()]:
            bad.append(("ls", ls))
    rl = json.loads(run(reader_py[0], reader_py[1], d, "ls"))
    rng = np.random.default_rng(len(ls))
    for x in ls:
        rev = x["revision"]
        if not os.path.exists(mpath(d, rev)):
            continue
        m = pickle.load(open(mpath(d, rev), "rb"))
        for ns, want in enumerate(m["ns"]):
            keys = json.loads(run(cairn_bin, "keys", d, "-r", str(rev), "--rank", str(ns), "--json"))
            got = {k["key"]: k["size"] for k in keys}
            if got != {k: len(v) for k, (v, t) in want.items()}:
                bad.append((rev, ns, "keys"))
            for k in list(want)[:: max(1, len(want) // 4)]:
                v = run(cairn_bin, "get", d, k, "-r", str(rev), "--rank", str(ns))
                rv = run(reader_py[0], reader_py[1], d, "get", k, "-r", str(rev), "--rank", str(ns))
                n += 2
                if v != want[k][0] or rv != want[k][0]:
                    bad.append((rev, ns, k, "get", len(v), len(rv), len(want[k][0])))
        arrs = {a["name"]: a for a in json.loads(run(cairn_bin, "arrays", d, "-r", str(rev), "--json", "--blocks"))}
        rarrs = {a["name"]: a for a in json.loads(run(reader_py[0], reader_py[1], d, "arrays", "-r", str(rev)))}
        for name, shape, data in (("G", GSHAPE, gdata(m["gver"])), ("H", HSHAPE, hdata(m["hver"]))):
            if arrs[name]["shape"] != list(shape) or arrs[name]["tags"] != {"v": m["gver" if name == "G" else "hver"]}:
                bad.append((rev, name, "arrays", arrs[name]))
            if rarrs[name]["shape"] != list(shape) or rarrs[name]["tags"] != arrs[name]["tags"]:
                bad.append((rev, name, "reader arrays", rarrs[name]))
            for _ in range(3):
                a0 = int(rng.integers(0, shape[0])); a1 = int(rng.integers(a0, shape[0] + 1))
                sel = f"{a0}:{a1},{int(rng.integers(-shape[1], 0))}"
                want_box = data[a0:a1, int(sel.split(",")[1])]
                npy = run(cairn_bin, "get", d, name, "--select", sel, "--npy", "-r", str(rev))
                raw = run(reader_py[0], reader_py[1], d, "array", name, "--select=" + sel, "-r", str(rev))
                n += 2
                try:
                    got = np.load(io.BytesIO(npy))
                except Exception as e:  # noqa: BLE001
                    bad.append((rev, name, sel, "npy", str(e)[:100]))
                    continue
                if not np.array_equal(got, want_box):
                    bad.append((rev, name, sel, "npy data"))
                if np.frombuffer(raw, dtype=data.dtype).tobytes() != np.ascontiguousarray(want_box).tobytes():
                    bad.append((rev, name, sel, "reader data", len(raw)))
    print(f"tools: {len(ls)} revisions listed, {n} tool/reader reads, {len(bad)} bad")
    for b in bad[:10]:
        print("  BAD", b)
    return 1 if bad else 0


if __name__ == "__main__":
    d, cmd = sys.argv[1], sys.argv[2]
    if cmd == "write":
        write(d, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) > 5 else 0)
        rc = 0
    elif cmd == "tools":
        rc = tools(d, sys.argv[3], sys.argv[4:6])
    elif cmd == "check":
        rc = check(d, int(sys.argv[3]) if len(sys.argv) > 3 else None)
    else:
        rc = hold(d, int(sys.argv[3]))
    sys.exit(rc)
