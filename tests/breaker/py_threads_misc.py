"""Handles of one Store used across threads around close(), and commits from
several threads of a single-process store. Outside test (no MPI needed):
  python py_threads_misc.py WORKDIR
Prints "misc ok" when every case behaved; "PYMISC FAIL" otherwise."""
import os
import sys
import threading
import time

import numpy as np

import cairn

work = sys.argv[1]


def fail(msg):
    print(f"PYMISC FAIL: {msg}", flush=True)
    os._exit(3)


def expect_error(fn, what):
    try:
        fn()
    except cairn.Error:
        return
    except Exception as e:  # noqa: BLE001
        fail(f"{what}: {type(e).__name__} instead of a cairn error: {e}")
    fail(f"{what}: no error")


# 1. Commits from three threads of a single-process store, with puts between.
st = cairn.Store(os.path.join(work, "m1"), keep_revisions=3, staging_bytes=1 << 20)
errs = []
done_revs = []


def committer(t):
    try:
        for i in range(30):
            st.put(f"c{t}", np.full(1000 + i, t * 100 + i, dtype=np.int32), tags={"i": i})
            if i % 2:
                done_revs.append(st.commit())
            else:
                h = st.commit_async()
                done_revs.append(h.wait())
    except Exception as e:  # noqa: BLE001
        errs.append(f"{type(e).__name__}: {e}")


th = [threading.Thread(target=committer, args=(t,)) for t in range(3)]
for x in th:
    x.start()
for x in th:
    x.join()
if errs:
    fail("commits from threads: " + "; ".join(errs))
if sorted(done_revs) != list(range(1, 91)):
    fail(f"revisions from threads: {sorted(done_revs)[:5]}... ({len(done_revs)})")
for t in range(3):
    v = st.get(f"c{t}", dtype=np.int32)
    if len(v) != 1029 or not (v == t * 100 + 29).all() or st.tags(f"c{t}") != {"i": 29}:
        fail(f"c{t} after the threaded commits: {len(v)} {v[:3]} {st.tags(f'c{t}')}")
st.close()
with cairn.Store(os.path.join(work, "m1"), mode="r") as r:
    if r.revision != 90:
        fail(f"newest revision {r.revision}")
    for t in range(3):
        if not (r.get(f"c{t}", dtype=np.int32) == t * 100 + 29).all():
            fail(f"c{t} after reopen")

# 2. Handles used after another thread closed the store: stream writer and
# reader, AsyncCommit, Array: errors, never a crash; nothing half-committed.
st = cairn.Store(os.path.join(work, "m2"), staging_bytes=1 << 20)
st.put_array("A", np.arange(12.0).reshape(3, 4))
st.put("x", b"committed")
st.commit()
w = st.open_stream("s", "wb", tags={"k": 1})
w.write(b"a" * 100000)
rd = st.open_stream("x", "rb")
arr = st.array("A")
st.put("y", np.zeros(1 << 20, np.uint8))
h = st.commit_async()
t = threading.Thread(target=st.close)
t.start()
t.join()
h.wait()  # finished by close: its outcome, not a crash
expect_error(lambda: w.write(b"b" * 10), "stream write after close")
expect_error(lambda: w.close(), "stream close after close")
expect_error(lambda: rd.read(), "stream read after close")
expect_error(lambda: arr[:, :], "array read after close")
expect_error(lambda: st.put("z", b"1"), "put after close")
expect_error(lambda: st.commit(), "commit after close")
with cairn.Store(os.path.join(work, "m2"), mode="r") as r:
    if r.revision != 2 or "s" in r or r.get("x") != b"committed" or len(r.get("y")) != 1 << 20:
        fail(f"m2 after close: revision {r.revision}, keys {r.keys()}")
    if not (r.array("A")[:, :] == np.arange(12.0).reshape(3, 4)).all():
        fail("array A")

# 3. close() from one thread while others are inside long calls.
st = cairn.Store(os.path.join(work, "m3"))
big = np.random.default_rng(1).integers(0, 255, 64 << 20, dtype=np.uint8)
st.put("big", big)
st.commit()
out = []


def getter():
    for _ in range(20):
        try:
            v = st.get("big", dtype=np.uint8)
            if not np.array_equal(v, big):
                out.append("wrong bytes")
                return
        except cairn.Error:
            return
        except Exception as e:  # noqa: BLE001
            out.append(f"{type(e).__name__}: {e}")
            return


def putter():
    i = 0
    while True:
        try:
            st.put(f"p{i % 10}", big[: 1 << 20])
            i += 1
        except cairn.Error:
            return
        except Exception as e:  # noqa: BLE001
            out.append(f"{type(e).__name__}: {e}")
            return


ths = [threading.Thread(target=getter), threading.Thread(target=getter), threading.Thread(target=putter)]
for x in ths:
    x.start()
time.sleep(0.3)
st.close()
for x in ths:
    x.join(30)
    if x.is_alive():
        fail("a thread hung after close")
if out:
    fail("close during calls: " + "; ".join(out))
with cairn.Store(os.path.join(work, "m3"), mode="r") as r:
    if r.revision != 1 or r.keys() != ["big"] or not np.array_equal(r.get("big", dtype=np.uint8), big):
        fail(f"m3: {r.revision} {r.keys()}")
print("misc ok", flush=True)
