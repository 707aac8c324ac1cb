"""Seventh pass: a rollback whose state is then saved again unchanged.

mpiexec -n N python rollback_same.py DIR KEEP
Revisions 1-6 with other values each (inline and chunked, tags, an array),
revision 3 pinned. Then revision 3 is opened read-write with keep_revisions
KEEP and its state put back identically for 30 commits (its tables reused,
then tables reused from reused ones), revisions 4-6 expire; then revision
3 is unpinned and dropped while the newest revisions still reuse the tables
it wrote, and 30 more commits write new chunked data over the space freed.
Every few commits, and at the end at other rank counts (run `check`), the
newest revision must read back as revision 3's state.
mpiexec -n M python rollback_same.py DIR check
"""
import sys

import numpy as np
from mpi4py import MPI

import cairn

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
d = sys.argv[1]


def state(ver, ns):
    out = {}
    for i in range(12):
        n = 100 + i * 7 if i < 9 else 3000 + i * 100
        out[f"k{i}"] = (bytes([(ver * 13 + ns * 7 + i) % 256]) * n, {"ver": ver, "ns": ns, "i": i})
    return out


def garr(ver):
    return np.arange(50 * 300, dtype=np.float64).reshape(50, 300) * ver


def put_state(st, ver):
    for k, (v, t) in state(ver, rank).items():
        st.put(k, v, tags=t)
    rows = np.array_split(np.arange(50), size)[rank]
    if len(rows):
        st.put_array("G", garr(ver)[rows[0]:rows[-1] + 1], start=(int(rows[0]), 0), global_shape=(50, 300))


def check_store(st, ver, what, nranks):
    bad = 0
    for ns in range(rank, nranks, size):
        want = state(ver, ns)
        objs = {o.key: o for o in st.list(rank=ns)}
        if sorted(objs) != sorted(want):
            bad += 1
            continue
        for k, (v, t) in want.items():
            if st.get(k, rank=ns) != v or objs[k].tags != t:
                bad += 1
    if not np.array_equal(st.array("G")[:, :], garr(ver)):
        bad += 1
    bad = comm.allreduce(bad)
    if rank == 0:
        print(f"{what}: revision {st.revision}, {bad} bad", flush=True)
    return bad


total_bad = 0
if sys.argv[2] == "check":
    with cairn.Store(d, comm=comm, mode="r") as st:
        total_bad += check_store(st, 3, f"check at {size}", st.writer_ranks)
    sys.exit(1 if total_bad else 0)
keep = int(sys.argv[2])
with cairn.Store(d, comm=comm) as st:
    for ver in range(1, 7):
        put_state(st, ver)
        st.commit()
    st.pin(3)
with cairn.Store(d, comm=comm, revision=3, keep_revisions=keep) as st:
    total_bad += check_store(st, 3, "opened at 3", size)
    for i in range(30):
        put_state(st, 3)
        if i % 3 == 1:
            st.set_tag("k1", "ver", 3)
        if i % 5 == 2:
            st.delete("k2")
            st.put("k2", *state(3, rank)["k2"])
        if i % 2:
            st.commit_async().wait()
        else:
            st.commit()
        if i % 10 == 9:
            total_bad += check_store(st, 3, f"same-save {i}", size)
    revs = [r.revision for r in st.revisions()]
    if rank == 0:
        print("retained:", revs, "reused tables:", st.stats().get("index_tables_reused"), flush=True)
    st.unpin(3)
    st.drop(3)
    for i in range(30):
        put_state(st, 3)
        st.put(f"scratch{i % 3}", bytes([i]) * 70000)  # new chunked data over freed space
        st.commit()
        st.delete(f"scratch{i % 3}")
        st.commit()
        if i % 10 == 9:
            total_bad += check_store(st, 3, f"after drop {i}", size)
    if rank == 0:
        print("retained:", [r.revision for r in st.revisions()], flush=True)
sys.exit(1 if total_bad else 0)
