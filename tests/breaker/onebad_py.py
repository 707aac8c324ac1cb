"""Seventh pass: cairn.Store(...) with a bad argument on one rank only.

mpiexec -n N python onebad_py.py DIR
For each case and bad rank (0, the last, a middle one): every rank must
raise a cairn error (none may open), the other ranks' message must name the
bad rank, the store directory must not change, nothing may hang (run it
under `timeout`), and a good open afterwards sees revision 1. Prints
"onebad_py np N: C cases, B bad".
"""
import os
import sys

from mpi4py import MPI

import cairn

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
d = sys.argv[1]
other = d + ".other"


def fingerprint(p):
    out = []
    for f in sorted(os.listdir(p)):
        s = os.stat(os.path.join(p, f))
        out.append((f, s.st_size, s.st_mtime_ns))
    return out


for p in (d, other):
    with cairn.Store(p, comm=comm) as st:
        st.put("k", b"v")
        st.commit()

CASES = [
    ("unknown option", dict(keep_revison=2)),
    ("option of a wrong type", dict(keep_revisions="2")),
    ("negative option", dict(keep_revisions=-1)),
    ("option 2**64", dict(keep_revisions=2 ** 64)),
    ("float size", dict(staging_bytes=1.5)),
    ("timeout string", dict(collective_timeout_s="x")),
    ("chunk_size 1000", dict(chunk_size=1000)),
    ("path None", dict(path=None)),
    ("path int", dict(path=123)),
    ("mode r", dict(mode="r")),
    ("mode x", dict(mode="x")),
    ("mode bogus", dict(mode="rw")),
    ("revision 999", dict(revision=999)),
    ("revision float", dict(revision=1.0)),
    ("another path", dict(path=other)),
    ("read_only option", dict(read_only=True)),
    ("sync string", dict(sync="no")),
]

cases = bad = 0
for name, kw in CASES:
    for br in sorted({0, size - 1, size // 2}):
        comm.Barrier()
        fp = (fingerprint(d), fingerprint(other)) if rank == 0 else None
        comm.Barrier()
        args = dict(path=d, comm=comm)
        if rank == br:
            args.update(kw)
        path = args.pop("path")
        err = None
        try:
            st = cairn.Store(path, **args)
        except Exception as e:  # noqa: BLE001
            err = e
        else:
            st.close()
        msg = f"{type(err).__name__}: {err}" if err else "opened"
        mine = []
        if err is None:
            mine.append(f"[{name}, bad rank {br}, np {size}] rank {rank}: opened")
        elif rank != br and f"rank {br}" not in str(err):
            mine.append(f"[{name}, bad rank {br}, np {size}] rank {rank}: no 'rank {br}': {msg}")
        if os.environ.get("ONEBAD_SHOW") and rank == (br + 1) % size:
            print(f"[{name}, bad {br}] rank {rank}: {msg}", flush=True)
            if rank != br:
                pass
        comm.Barrier()
        if rank == 0 and (fingerprint(d), fingerprint(other)) != fp:
            mine.append(f"[{name}, bad rank {br}, np {size}]: the store directory changed")
        with cairn.Store(d, comm=comm, mode="r") as st:
            if st.revision != 1 or st.get("k", rank=0) != b"v":
                mine.append(f"[{name}]: after, revision {st.revision}")
        allm = comm.gather(mine)
        if rank == 0:
            allm = [m for x in allm for m in x]
            for m in allm:
                print("BAD", m, flush=True)
        cases += 1
        bad += 1 if comm.bcast(len(allm) if rank == 0 else None) else 0
if rank == 0:
    print(f"onebad_py np {size}: {cases} cases, {bad} bad")
sys.exit(1 if bad else 0)
