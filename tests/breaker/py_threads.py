"""One cairn.Store used by several Python threads at once, at any rank count.
Outside test:  mpiexec -n N python py_threads.py STORE SEED ROUNDS    (write)
               mpiexec -n M python py_threads.py STORE check          (check)

write: per rank, four threads put versioned values of their own keys
(bytes: the version then data derived from it; tags {"v": version}), one
thread writes and closes streams, one reads (get, tags, read_range, open_stream
"rb", list, query, array reads) and checks every value it sees is whole
(version and data agree); the main thread makes the collective calls:
commit / commit_async + wait in turn, a global array put each round, keep 2.
Before each commit the main thread notes, per key, the version of the last
put that returned (lo); right after commit/commit_async returns, the version
of the last put that started (hi): the revision must hold a version in
[lo, hi] of every key. Rank r writes STORE.r<r>.json (fsynced) after each
commit. At the end a worker thread closes the store while the others are
still calling: each of their calls must return or raise cairn.Error (no
crash, no hang). check: every revision recorded in the json files and still
retained reads back in bounds, whole, at any rank count.
"""
import json
import os
import random
import sys
import threading
import time
import zlib

import numpy as np
from mpi4py import MPI

import cairn

world = MPI.COMM_WORLD
rank = world.Get_rank()
path = sys.argv[1]


def fail(msg):
    print(f"PYTHREADS FAIL rank {rank}: {msg}", flush=True)
    sys.stdout.flush()
    os._exit(3)


def data(r, key, v):
    n = 16 + zlib.crc32(f"{r}/{key}/{v}".encode()) % 3000
    body = np.random.default_rng(zlib.crc32(f"{key}/{v}/{r}".encode())).integers(0, 256, n, dtype=np.uint8)
    return np.concatenate([np.frombuffer(np.int64(v).tobytes(), np.uint8), body])


def whole(r, key, b, what):
    b = bytes(b)
    if len(b) < 8:
        fail(f"{what}: {key} of rank {r}: {len(b)} bytes")
    v = int(np.frombuffer(b[:8], np.int64)[0])
    if b != data(r, key, v).tobytes():
        fail(f"{what}: {key} of rank {r} version {v}: bytes not whole ({len(b)} bytes)")
    return v


KEYS = [f"t{t}_{j}" for t in range(4) for j in range(3)]
STREAM = "stream"


def write(seed, rounds):
    rng = random.Random(seed * 100 + rank)
    opts = {"keep_revisions": 2}
    if seed % 2:
        opts["staging_bytes"] = 1 << 20
    st = cairn.Store(path, comm=world, **opts)
    lock = threading.Lock()
    started, done = {}, {}
    ver = [time.time_ns() // 1000]  # versions grow across jobs
    stop = threading.Event()
    closed = threading.Event()
    errors = []

    def next_version():
        with lock:
            ver[0] += 1
            return ver[0]

    def putter(t):
        keys = [k for k in KEYS if k.startswith(f"t{t}_")]
        while not stop.is_set():
            k = rng.choice(keys)
            v = next_version()
            with lock:
                started[k] = v
            try:
                st.put(k, data(rank, k, v), tags={"v": v})
            except cairn.Error as e:
                if closed.is_set():
                    return
                errors.append(f"put {k}: {e}")
                return
            with lock:
                done[k] = max(done.get(k, 0), v)

    def streamer():
        while not stop.is_set():
            v = next_version()
            with lock:
                started[STREAM] = v
            b = data(rank, STREAM, v).tobytes()
            try:
                with st.open_stream(STREAM, "wb", tags={"v": v}) as f:
                    for i in range(0, len(b), 500):
                        f.write(b[i:i + 500])
            except cairn.Error as e:
                if closed.is_set():
                    return
                errors.append(f"stream: {e}")
                return
            with lock:
                done[STREAM] = max(done.get(STREAM, 0), v)

    def reader():
        while not stop.is_set():
            k = rng.choice(KEYS + [STREAM])
            try:
                if k not in st:
                    continue
                how = rng.randrange(4)
                if how == 0:
                    b = st.get(k)
                elif how == 1:
                    with st.open_stream(k, "rb") as f:
                        b = f.read()
                elif how == 2:
                    st.list()
                    st.query(v=cairn.range(0, 1 << 60))
                    if st.revision:
                        try:
                            st.array("A")[:, :]
                        except cairn.NotFound:
                            pass
                    continue
                else:
                    b = st.get(k)
                whole(rank, k, b, "reader")
            except cairn.InvalidArgument as e:
                # a value replaced between a size check and the read (documented)
                if closed.is_set():
                    return
                if "closed" in str(e):
                    errors.append(f"reader: closed while not closed: {e}")
                    return
            except cairn.NotFound:
                pass
            except cairn.Error as e:
                if closed.is_set():
                    return
                errors.append(f"reader {k}: {type(e).__name__}: {e}")
                return

    threads = [threading.Thread(target=putter, args=(t,)) for t in range(4)]
    threads += [threading.Thread(target=streamer), threading.Thread(target=reader)]
    for th in threads:
        th.start()
    rec = {}
    if os.path.exists(f"{path}.r{rank}.json"):
        rec = json.load(open(f"{path}.r{rank}.json"))
    for g in range(rounds):
        time.sleep(rng.uniform(0.01, 0.1))
        with lock:
            lo = dict(done)
        n = world.Get_size()
        st.put_array("A", np.full((2, 4), g + 1000 * n, dtype=np.int64), start=(2 * rank, 0), global_shape=(2 * n, 4))
        if g % 2:
            h = st.commit_async()
            with lock:
                hi = dict(started)
            rev = h.wait()
        else:
            rev = st.commit()
            with lock:
                hi = dict(started)
        rec[str(rev)] = {"lo": lo, "hi": hi, "A": g + 1000 * n, "n": n}
        tmp = f"{path}.r{rank}.json.tmp"
        with open(tmp, "w") as f:
            json.dump(rec, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, f"{path}.r{rank}.json")
        if errors:
            fail("; ".join(errors))
    # A worker closes the store while the others call it.
    def closer():
        closed.set()
        st.close()
    if world.Get_size() == 1:
        c = threading.Thread(target=closer)
        c.start()
        c.join()
    else:
        closer()  # collective: the main thread of every rank
    stop.set()
    for th in threads:
        th.join(timeout=60)
        if th.is_alive():
            fail("a thread hung after close")
    if errors:
        fail("; ".join(errors))
    world.Barrier()
    if rank == 0:
        print(f"write ok: {rounds} rounds", flush=True)


def check():
    recs = {}
    r = 0
    while os.path.exists(f"{path}.r{r}.json"):
        recs[r] = json.load(open(f"{path}.r{r}.json"))
        r += 1
    with cairn.Store(path, comm=world, mode="r") as st:
        retained = [rv.revision for rv in st.revisions()]
    checked = 0
    for rev in retained:
        with cairn.Store(path, comm=world, mode="r", revision=rev) as st:
            w = st.writer_ranks
            for ns in range(rank, w, world.Get_size()):
                rec = recs.get(ns, {}).get(str(rev))
                for k in KEYS + [STREAM]:
                    if k not in st.keys(rank=ns):
                        if rec and k in rec["lo"]:
                            fail(f"revision {rev}: {k} of rank {ns} missing, a put of version {rec['lo'][k]} had returned")
                        continue
                    b = st.get(k, rank=ns)
                    v = whole(ns, k, b, f"revision {rev}")
                    if st.tags(k, rank=ns) != {"v": v}:
                        fail(f"revision {rev}: {k} of rank {ns}: tags {st.tags(k, rank=ns)} for version {v}")
                    if rec and k in rec["hi"]:  # else carried from an earlier job
                        lo, hi = rec["lo"].get(k, 0), rec["hi"][k]
                        if not lo <= v <= hi:
                            fail(f"revision {rev}: {k} of rank {ns} version {v} outside [{lo}, {hi}]")
                if rec:
                    a = st.array("A")[:, :]
                    if a.shape != (2 * rec["n"], 4) or not (a == rec["A"]).all():
                        fail(f"revision {rev}: array A {a} (expected all {rec['A']})")
            checked += 1
    if rank == 0:
        print(f"check ok: {checked} revisions ({retained})", flush=True)


if sys.argv[2] == "check":
    check()
else:
    write(int(sys.argv[2]), int(sys.argv[3]))
