"""Sixth pass: global arrays, catalogue and streams across rank-count changes.

mpiexec -n N python resize_mix.py DIR write ROUNDS KEEP [BIG]
    continues (or creates) the store DIR at N ranks for ROUNDS commits with
    keep_revisions KEEP: arrays A (re-put every round, irregular blocks, the
    last rank none), B (every third round, blocks on every rank), C (rank 0
    only, put once and carried), per-rank objects with tags (puts, deletes,
    tag edits without puts), a write stream open across each commit, sync and
    async commits in turn (the next round's puts made while one is in
    flight), a pin of every fourth revision; BIG keys on rank 0 put once
    (a > 4 MiB table), then 5 values and 5 tags changed per round. After a
    rank-count change to fewer ranks, a commit that leaves B's blocks of the
    dropped namespaces must fail naming B, keep the object puts pending, and
    the next (with B put again) must succeed. Rank 0 writes the model of each
    revision to DIR.model/REV.pkl.
mpiexec -n M python resize_mix.py DIR check [REV]
    every retained revision with a model (or REV) opened read-only at M
    ranks, every namespace, array and query checked against the model.
mpiexec -n M python resize_mix.py DIR hold REV
    opens REV read-only, waits for DIR.go, then checks it: a pinned REV must
    read back exactly; another may also raise Corruption (its space reused),
    never other bytes.
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
ARR = {"A": ((37, 23), np.float64), "B": ((5, 11, 7), np.int32), "C": ((9,), np.int16)}


def adata(name, seed):
    shape, dt = ARR[name]
    return np.random.default_rng(seed).integers(-1000, 1000, size=shape).astype(dt)


def objval(key, ver):
    n = (hash((key, ver)) % 3000) if ver % 4 else 0
    rng = np.random.default_rng(abs(hash((key, ver))) % (1 << 32))
    return rng.integers(0, 256, size=n, dtype=np.uint8).tobytes()


def bigval(i, v):
    return f"{i}:{v}".encode()


def mpath(d, rev):
    return f"{d}.model/{rev}.pkl"


def put_arrays(st, model, rnd, which):
    for name in which:
        seed = rnd * 100 + ord(name)
        full = adata(name, seed)
        shape = ARR[name][0]
        if name == "A":
            cuts = sorted(set([0, shape[0]] + list(np.random.default_rng(seed).integers(1, shape[0], size=size))))
            pieces = list(zip(cuts[:-1], cuts[1:]))
            owners = [k % max(1, size - 1) for k in range(len(pieces))]
            for (a, b), o in zip(pieces, owners):
                if o == rank:
                    st.put_array("A", full[a:b], start=(a, 0), global_shape=shape,
                                 tags={"step": rnd, "who": "A"}, statistics=bool(rnd % 2))
        elif name == "B":
            cuts = np.linspace(0, shape[1], size + 1).astype(int)
            a, b = cuts[rank], cuts[rank + 1]
            st.put_array("B", full[:, a:b, :], start=(0, a, 0), global_shape=shape,
                         tags={"step": rnd, "kind": "b"}, checksum_grain=0 if rnd % 2 else None)
        else:
            if rank == 0:
                st.put_array("C", full, tags={"step": rnd})
        model["arrays"][name] = (seed, {"step": rnd, "who": "A"} if name == "A" else
                                 {"step": rnd, "kind": "b"} if name == "B" else {"step": rnd})


def write(d, rounds, keep, big):
    os.makedirs(d + ".model", exist_ok=True)
    st = cairn.Store(d, comm=comm, keep_revisions=keep, staging_bytes=(4 << 20) if keep == 1 else 0)
    rev0 = st.revision
    if rev0:
        model = pickle.load(open(mpath(d, rev0), "rb"))
        n_old = len(model["ns"])
        assert n_old == st.writer_ranks, (n_old, st.writer_ranks)
        ns = model["ns"][rank] if rank < n_old else {}
        start = model["round"] + 1
    else:
        model = {"ns": None, "big": [{}, {}], "arrays": {}, "round": 0}
        n_old = size
        ns = {}
        start = 1
    bigv, bigt = model["big"]
    rng = np.random.default_rng(rank * 7919 + start)
    if rev0 == 0 and rank == 0 and big:
        for i in range(big):
            st.put(f"big{i:06d}", bigval(i, 0), tags={"i": i, "v": 0, "name": f"n{i:08d}"})
    bigsize = model.get("bigsize", big if rank == 0 else 0) if rev0 else big
    # a shrink: B has blocks in dropped namespaces; a commit without B fails
    if rev0 and size < n_old and "B" in model["arrays"]:
        ns["after_shrink"] = (objval("after_shrink", start), {"t": start})
        st.put("after_shrink", objval("after_shrink", start), tags={"t": start})
        try:
            st.commit()
            raise SystemExit(f"rank {rank}: commit after shrink without B succeeded")
        except cairn.InvalidArgument as e:
            assert "'B'" in str(e) or "B" in str(e), str(e)
            if rank == 0:
                print("shrink refusal:", str(e)[:200], flush=True)
        put_arrays(st, model, start - 1 + 1000, ["B"])  # again, as the refusal says
        reput_b = True
    else:
        reput_b = False
    stream = None
    pinned = [r.revision for r in st.revisions() if r.pinned]
    for rnd in range(start, start + rounds):
        # objects: puts, a delete, a tag edit without a put
        for _ in range(3):
            k = f"r{rank}k{int(rng.integers(0, 30))}"
            v = objval(k, rnd)
            tg = {"t": rnd, "s": f"x{rnd}"}
            st.put(k, v, tags=tg)
            ns[k] = (v, tg)
        keys = sorted(k for k in ns if k.startswith("r"))
        if keys and rnd % 2:
            k = keys[int(rng.integers(0, len(keys)))]
            st.delete(k)
            del ns[k]
            keys.remove(k)
        if keys:
            k = keys[int(rng.integers(0, len(keys)))]
            st.set_tag(k, "t", rnd)
            ns[k] = (ns[k][0], dict(ns[k][1], t=rnd))
        if rank == 0 and bigsize:
            for _ in range(5):
                i = int(rng.integers(0, bigsize))
                bigv[i] = rnd
                st.put(f"big{i:06d}", bigval(i, rnd), tags={"i": i, "v": bigt.get(i, 0), "name": f"n{i:08d}"})
            for _ in range(5):
                i = int(rng.integers(0, bigsize))
                bigt[i] = rnd
                st.set_tag(f"big{i:06d}", "v", rnd)
        which = ["A"] + (["B"] if rnd % 3 == 0 and not (reput_b and rnd == start) else []) + (["C"] if "C" not in model["arrays"] else [])
        put_arrays(st, model, rnd, which)
        if stream is not None:  # the second half of the stream opened last round
            stream[0].write(stream[2][len(stream[2]) // 2:])
            stream[0].close()
            ns["stream"] = (stream[2], stream[1])
            stream = None
        model["ns"] = comm.gather(ns, root=0)
        model["round"] = rnd
        model["bigsize"] = bigsize
        snap = copy.deepcopy(model) if rank == 0 else None
        sdata = objval("stream", rnd * 3 + 1)
        stags = {"t": rnd}
        f = st.open_stream("stream", "wb", tags=stags)
        f.write(sdata[:len(sdata) // 2])
        stream = (f, stags, sdata)
        if rnd % 2:
            h = st.commit_async()
            # the next round's puts while it is in flight (into the next revision)
            k = f"r{rank}k{int(rng.integers(0, 30))}"
            v = objval(k, rnd * 1000)
            st.put(k, v, tags={"t": rnd, "s": "inflight"})
            ns[k] = (v, {"t": rnd, "s": "inflight"})
            rev = h.wait()
        else:
            rev = st.commit()
        if rank == 0:
            with open(mpath(d, rev) + ".tmp", "wb") as fo:
                pickle.dump(snap, fo)
                fo.flush()
                os.fsync(fo.fileno())
            os.replace(mpath(d, rev) + ".tmp", mpath(d, rev))
        comm.Barrier()
        if rev % 4 == 0:
            st.pin(rev)
            pinned.append(rev)
            if len(pinned) > 2:
                st.unpin(pinned.pop(0))
    if stream is not None:
        stream[0].write(stream[2][len(stream[2]) // 2:])
        stream[0].close()
        ns["stream"] = (stream[2], stream[1])
        model["ns"] = comm.gather(ns, root=0)
        snap = copy.deepcopy(model) if rank == 0 else None
        rev = st.commit()
        if rank == 0:
            pickle.dump(snap, open(mpath(d, rev), "wb"))
    st.close()
    if rank == 0:
        print(f"write: np {size} revisions {rev0 + 1}..{rev}", flush=True)


def check_rev(d, rev, tolerate=False, st=None):
    m = pickle.load(open(mpath(d, rev), "rb"))
    bad = []
    if st is None:
        st = cairn.Store(d, comm=comm, mode="r", revision=rev)
    try:
        assert st.writer_ranks == len(m["ns"]), (st.writer_ranks, len(m["ns"]))
        n = 0
        for r in range(rank, len(m["ns"]), size):
            want = dict(m["ns"][r])
            if r == 0 and m.get("bigsize"):
                bv, bt = m["big"]
                for i in range(m["bigsize"]):
                    want[f"big{i:06d}"] = (bigval(i, bv.get(i, 0)),
                                           {"i": i, "v": bt.get(i, 0), "name": f"n{i:08d}"})
            got = {o.key: o for o in st.list(rank=r)}
            if sorted(got) != sorted(want):
                bad.append(f"rev {rev} ns {r}: keys {sorted(set(got) ^ set(want))[:5]}")
                continue
            ks = sorted(want)
            vals = st.get_many(ks, rank=r)
            for k, v in zip(ks, vals):
                if bytes(v) != want[k][0]:
                    bad.append(f"rev {rev} ns {r} key {k}: value differs")
                if dict(got[k].tags) != want[k][1] or got[k].size != len(want[k][0]):
                    bad.append(f"rev {rev} ns {r} key {k}: tags {got[k].tags} != {want[k][1]}")
                n += 1
            q = sorted(st.query(rank=r, t=cairn.range(3, 7)))
            qw = sorted(k for k in want if isinstance(want[k][1].get("t"), int) and 3 <= want[k][1]["t"] <= 7)
            if q != qw:
                bad.append(f"rev {rev} ns {r}: query t in [3,7] {q[:4]} != {qw[:4]}")
            if r == 0 and m.get("bigsize"):
                q = sorted(st.query(rank=0, v=cairn.range(1, 10 ** 9)))
                qw = sorted(f"big{i:06d}" for i in m["big"][1] if m["big"][1][i] > 0)
                if q != qw:
                    bad.append(f"rev {rev}: big query v>0 {len(q)} != {len(qw)}")
        qa = sorted(st.query_all(s=cairn.prefix("inflight")))
        qaw = sorted((r, k) for r, nsr in enumerate(m["ns"]) for k, (v, t) in nsr.items()
                     if str(t.get("s", "")).startswith("inflight"))
        if qa != qaw:
            bad.append(f"rev {rev}: query_all inflight {qa[:3]} != {qaw[:3]}")
        names = sorted(a.name for a in st.arrays())
        if names != sorted(m["arrays"]):
            bad.append(f"rev {rev}: arrays {names} != {sorted(m['arrays'])}")
        for name, (seed, tags) in m["arrays"].items():
            full = adata(name, seed)
            a = st.array(name)
            if dict(a.tags) != tags:
                bad.append(f"rev {rev} array {name}: tags {a.tags} != {tags}")
            if not np.array_equal(a[...], full):
                bad.append(f"rev {rev} array {name}: data differs")
            rng = np.random.default_rng(rev * 31 + rank)
            for _ in range(5):
                lo = [int(rng.integers(0, s)) for s in full.shape]
                hi = [int(rng.integers(l + 1, s + 1)) for l, s in zip(lo, full.shape)]
                sl = tuple(slice(l, h) for l, h in zip(lo, hi))
                if not np.array_equal(a[sl], full[sl]):
                    bad.append(f"rev {rev} array {name}: box {sl} differs")
            n += 1
        qarr = sorted(st.query_arrays(step=cairn.range(0, 10 ** 9)))
        if qarr != sorted(m["arrays"]):
            bad.append(f"rev {rev}: query_arrays {qarr}")
        st.close()
    except cairn.Corruption as e:
        if not tolerate:
            raise
        # Corruption (its space reused) is allowed; what was read before it
        # must still have been right, so bad is kept
        n = -1
        st.close()
    return n, bad


def check(d, only=None):
    st = cairn.Store(d, comm=comm, mode="r")
    revs = [r.revision for r in st.revisions()]
    st.close()
    if only:
        revs = [only]
    total, allbad = 0, []
    for rev in revs:
        if not os.path.exists(mpath(d, rev)):
            continue
        n, bad = check_rev(d, rev)
        total += n
        allbad += bad
    counts = comm.gather((total, allbad), root=0)
    if rank == 0:
        bad = [b for c in counts for b in c[1]]
        print(f"check np {size}: revisions {revs}, {sum(c[0] for c in counts)} objects/arrays checked, "
              f"{len(bad)} bad", flush=True)
        for b in bad[:20]:
            print("  BAD", b, flush=True)
        if bad:
            comm.Abort(3)


def hold(d, rev):
    m_exists = os.path.exists(mpath(d, rev))
    st = cairn.Store(d, comm=comm, mode="r", revision=rev)
    pinned = any(r.revision == rev and getattr(r, "pinned", False) for r in st.revisions())
    while not os.path.exists(d + ".go"):
        time.sleep(0.2)
    n, bad = check_rev(d, rev, tolerate=not pinned, st=st) if m_exists else (0, [])
    if rank == 0:
        print(f"hold rev {rev} pinned {pinned}: {n} checked, bad {bad[:5]}", flush=True)
    if bad:
        comm.Abort(3)


def tools(d, cairn_bin):
    """The cairn tool and tools/cairn_reader.py against the models (one process)."""
    import json
    import subprocess
    reader = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "cairn_reader.py")

    def run(args, ok=(0,)):
        p = subprocess.run(args, capture_output=True, timeout=300)
        if p.returncode not in ok:
            raise SystemExit(f"{args}: exit {p.returncode}: {p.stderr.decode()[:300]}")
        return p.stdout
    run([cairn_bin, "verify", d, "--all"])
    revs = [r["revision"] for r in json.loads(run([cairn_bin, "ls", d, "--json"]))["revisions"]] \
        if isinstance(json.loads(run([cairn_bin, "ls", d, "--json"])), dict) else \
        [r["revision"] for r in json.loads(run([cairn_bin, "ls", d, "--json"]))]
    n = 0
    rng = np.random.default_rng(len(revs))
    for rev in revs:
        if not os.path.exists(mpath(d, rev)):
            continue
        m = pickle.load(open(mpath(d, rev), "rb"))
        tl = json.loads(run([cairn_bin, "arrays", d, "--revision", str(rev), "--json"]))
        rl = json.loads(run([sys.executable, reader, d, "arrays", "--revision", str(rev)]))
        if [a["name"] for a in tl] != sorted(m["arrays"]) or tl != rl:
            raise SystemExit(f"rev {rev}: arrays: tool {tl} reader {rl} model {sorted(m['arrays'])}")
        for a in tl:
            seed, tags = m["arrays"][a["name"]]
            full = adata(a["name"], seed)
            if a["tags"] != tags or tuple(a["shape"]) != full.shape or a["dtype"] != str(full.dtype):
                raise SystemExit(f"rev {rev} array {a}: model {tags} {full.shape} {full.dtype}")
            for _ in range(4):
                sel, sl = [], []
                for s in full.shape:
                    k = int(rng.integers(0, 4))
                    if k == 0:
                        sel.append(":"); sl.append(slice(None))
                    elif k == 1:
                        i = int(rng.integers(-s, s)); sel.append(str(i)); sl.append(i)
                    else:
                        lo = int(rng.integers(0, s)); hi = int(rng.integers(lo, s + 1))
                        sel.append(f"{lo}:{hi}"); sl.append(slice(lo, hi))
                want = full[tuple(sl)]
                out = d + ".sel.npy"
                run([cairn_bin, "get", d, a["name"], "--revision", str(rev), "--select=" + ",".join(sel),
                     "--npy", "-o", out])
                got = np.load(out)
                raw = run([cairn_bin, "get", d, a["name"], "--revision", str(rev), "--select=" + ",".join(sel)])
                rraw = run([sys.executable, reader, d, "array", a["name"], "--revision", str(rev),
                            "--select=" + ",".join(sel)])
                if got.shape != want.shape or not np.array_equal(got, want) or raw != want.tobytes() \
                        or rraw != raw:
                    raise SystemExit(f"rev {rev} {a['name']} --select {','.join(sel)}: differs "
                                     f"({got.shape} vs {want.shape}, raw {raw == want.tobytes()}, "
                                     f"reader {rraw == raw})")
                n += 1
        for r, nsr in enumerate(m["ns"]):
            ks = json.loads(run([cairn_bin, "keys", d, "--revision", str(rev), "--rank", str(r), "--json"]))
            ks = ks if isinstance(ks, list) else ks["keys"]
            names = sorted(k["key"] for k in ks if not k["key"].startswith("big"))
            if names != sorted(nsr):
                raise SystemExit(f"rev {rev} ns {r}: cairn keys {names[:5]} != {sorted(nsr)[:5]}")
            for k in list(nsr)[:3]:
                v = run([cairn_bin, "get", d, k, "--revision", str(rev), "--rank", str(r)])
                if v != nsr[k][0]:
                    raise SystemExit(f"rev {rev} ns {r} key {k}: cairn get differs")
                v = run([sys.executable, reader, d, "get", k, "--revision", str(rev), "--rank", str(r)])
                if v != nsr[k][0]:
                    raise SystemExit(f"rev {rev} ns {r} key {k}: reader get differs")
                n += 1
    print(f"tools: revisions {revs}: {n} selections/gets agree", flush=True)


def ccheck(d, rev, out, nranks):
    """resize_mix_c's dumps of revision REV (nranks readers) against the model."""
    m = pickle.load(open(mpath(d, rev), "rb"))
    n = 0
    for name, (seed, tags) in m["arrays"].items():
        full = adata(name, seed)
        for r in range(nranks):
            got = open(f"{out}/{rev}.{name}.{r}", "rb").read()
            if got != full.tobytes():
                raise SystemExit(f"C rank {r} rev {rev} array {name}: bytes differ")
            t = {}
            for line in open(f"{out}/{rev}.{name}.{r}.tags"):
                k, kind, v = line.rstrip("\n").split(" ", 2)
                t[k] = int(v) if kind == "int" else v
            if t != tags:
                raise SystemExit(f"C rank {r} rev {rev} array {name}: tags {t} != {tags}")
            n += 1
    print(f"ccheck rev {rev}: {n} arrays read by C agree", flush=True)


if __name__ == "__main__":
    d, what = sys.argv[1], sys.argv[2]
    if what == "write":
        write(d, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) > 5 else 0)
    elif what == "check":
        check(d, int(sys.argv[3]) if len(sys.argv) > 3 else None)
    elif what == "tools":
        tools(d, sys.argv[3])
    elif what == "ccheck":
        ccheck(d, int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
    elif what == "hold":
        hold(d, int(sys.argv[3]))
