"""RLIMIT_FSIZE (EFBIG) as a full disk, through the Python package.
mpiexec -n N python fsize.py DIR MODE(sync|async|staging) IGNORE(0|1)"""
import os, resource, signal, sys
import numpy as np
from mpi4py import MPI
import cairn
comm = MPI.COMM_WORLD
rank = comm.rank
d, mode, ign = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
if ign:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
path = os.path.join(d, "fs-%s-%d-%d" % (mode, ign, comm.size))
opts = dict(keep_revisions=2)
if mode in ("staging", "async"):
    opts["staging_bytes"] = 4 << 20
st = cairn.Store(path, comm=comm, **opts)
good = {}
for i in range(3):
    v = np.full(300000, i * 10 + rank, dtype=np.uint8)
    st.put("k%d" % i, v)
    good["k%d" % i] = v
rev0 = st.commit()
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (6 << 20, hard))
err = None
rev = rev0
for i in range(3, 40):
    try:
        st.put("k%d" % i, np.full(1 << 20, i, dtype=np.uint8))
        if mode == "async":
            h = st.commit_async(); rev = h.wait()
        else:
            rev = st.commit()
    except cairn.Error as e:
        err = e
        break
ok = comm.allreduce(1 if err is None else 0)
if rank == 0:
    print("error after", i, ":", type(err).__name__ if err else None, str(err)[:200], flush=True)
resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
# the store must take puts and commits again
for k, v in good.items():
    got = st.get(k, dtype=np.uint8)
    assert (got == v).all(), k
st.put("after", b"x" * 100000)
rev2 = st.commit()
st.close()
with cairn.Store(path, comm=comm, mode="r") as r:
    assert r.get("after") == b"x" * 100000
    for k, v in good.items():
        assert (r.get(k, dtype=np.uint8) == v).all()
if rank == 0:
    print("fsize ok", mode, ign, "revisions", rev0, rev, rev2, flush=True)
