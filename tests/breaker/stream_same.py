"""Seventh pass: a key put back unchanged while its own write stream is
open across commits, and a read stream held across unchanged commits with
keep 1.   mpiexec -n N python stream_same.py DIR"""
import sys

from mpi4py import MPI

import cairn

comm = MPI.COMM_WORLD
rank = comm.rank
d = sys.argv[1]
A = bytes([65 + rank]) * 100            # inline
C = bytes([67 + rank]) * 50000          # chunked
B = bytes([66 + rank]) * 7000
bad = []


def expect(st, key, val, tags, what):
    got = st.get(key)
    if got != val or st.tags(key) != tags:
        bad.append((what, key, len(got), st.tags(key)))


with cairn.Store(d, comm=comm, keep_revisions=1) as st:
    st.put("k", A, tags={"t": 1})
    st.put("c", C, tags={"t": 3})
    st.commit()
    rd = st.open_stream("c", "rb")                       # held across the commits below
    w = st.open_stream("k", "wb", tags={"t": 2})
    w.write(B[:3000])
    for i in range(12):                                   # k put back unchanged while its stream is open
        st.put("k", A, tags={"t": 1})
        if i % 3 == 1:
            st.set_tag("k", "t", 1)
        if i % 4 == 2:
            st.delete("k")
            st.put("k", A, tags={"t": 1})
        st.put("c", C if i % 2 else bytes([1]) * 50000, tags={"t": 3})  # c's space changes
        (st.commit_async().wait() if i % 2 else st.commit())
        with cairn.Store(d, comm=comm, mode="r") as ro:
            expect(ro, "k", A, {"t": 1}, f"round {i}")
    w.write(B[3000:])
    w.close()
    r = st.commit()
    with cairn.Store(d, comm=comm, mode="r") as ro:
        expect(ro, "k", B, {"t": 2}, "after close")
    got = rd.read()
    if got != C:
        bad.append(("held reader", len(got)))
    st.put("k", B, tags={"t": 2})                         # the stream's object put back unchanged
    st.commit()
    reused = st.stats()["index_tables_reused"]
    with cairn.Store(d, comm=comm, mode="r") as ro:
        expect(ro, "k", B, {"t": 2}, "put back after stream")
allbad = comm.gather(bad)
if rank == 0:
    allbad = [b for x in allbad for b in x]
    print(f"stream_same np {comm.size}: {len(allbad)} bad", allbad[:5])
sys.exit(1 if comm.bcast(len(allbad) if rank == 0 else None) else 0)
