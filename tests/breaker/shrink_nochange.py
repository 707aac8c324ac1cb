"""Seventh pass: commits with no change at all right after a read-write open on
another rank count (4 -> 2 -> 4 -> 3): the namespaces no rank owns are not
carried, the others reuse their tables, new ones are empty.
mpiexec -n N python shrink_nochange.py DIR w|c|K   (w: write 5 keys per rank;
c: open with keep 1 and commit nothing; K: check read-only that namespaces
0..K-1 hold their keys and the others none)"""
import sys, cairn
from mpi4py import MPI
comm = MPI.COMM_WORLD; r = comm.rank; d = sys.argv[1]; step = sys.argv[2]
if step == "w":
    with cairn.Store(d, comm=comm) as st:
        for i in range(5): st.put(f"k{i}", bytes([r, i]) * 10, tags={"r": r, "i": i})
        st.commit()
elif step == "c":   # commit with no change at all on another rank count
    with cairn.Store(d, comm=comm, keep_revisions=1) as st:
        rev = st.commit(); print(r, "committed", rev, "reused", st.stats()["index_tables_reused"], flush=True)
else:
    with cairn.Store(d, comm=comm, mode="r") as st:
        n = st.writer_ranks; bad = 0
        for ns in range(n):
            keys = st.keys(rank=ns)
            want = [f"k{i}" for i in range(5)] if ns < int(step) else []
            if keys != want: bad += 1; print("BAD keys", ns, keys)
            for k in keys:
                if st.get(k, rank=ns) != bytes([ns, int(k[1])]) * 10 or st.tags(k, rank=ns) != {"r": ns, "i": int(k[1])}: bad += 1
        hits = st.query_all(i=0)
        if r == 0: print("check: writer_ranks", n, "revision", st.revision, "hits", hits, "bad", bad)
