"""Seventh pass: a collective call of the Python package with a bad or
different argument on one rank only.

mpiexec -n N python onebad_coll.py DIR CASE   (run under `timeout`)
CASE names the call; the last rank passes the odd argument. Every rank
must either get the same answer, or raise (the others naming the odd
rank); nothing may hang. Prints "CASE: rank R: <outcome>" per rank.
"""
import sys

from mpi4py import MPI

import cairn

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
d, case = sys.argv[1], sys.argv[2]
odd = rank == size - 1

st = cairn.Store(d, comm=comm, keep_revisions=0)
st.put("a", b"1", tags={"i": 3, "s": "abc", "b": b"xyz"})
st.put("b", b"2", tags={"i": 42, "s": "abd"})
if rank == 0:
    st.put_shared("sh", b"shared")
r1 = st.commit()

C = {
    # query_all
    "qa_prefix_int": lambda: st.query_all(s=cairn.prefix(5) if odd else cairn.prefix("ab")),
    "qa_bad_encode": lambda: st.query_all(i=[2 ** 70] if odd else [1]),
    "qa_order": lambda: st.query_all([("s", cairn.prefix("ab")), ("i", cairn.range(0, 50))] if odd
                                     else [("i", cairn.range(0, 50)), ("s", cairn.prefix("ab"))]),
    "qa_int_float": lambda: st.query_all(i=42.0 if odd else 42),
    "qa_width": lambda: st.query_all(i=cairn.equal(__import__("numpy").int32(42)) if odd else 42),
    "qa_empty_vs_one": lambda: st.query_all() if odd else st.query_all(i=cairn.exists()) if hasattr(cairn, "exists") else st.query_all(i=cairn.range(-9, 99)),
    "qa_big_same": lambda: st.query_all(b=cairn.equal(b"x" * (8 << 20))),
    "qa_big_last_byte": lambda: st.query_all(b=cairn.equal(b"x" * (1 << 20) + (b"y" if odd else b"z"))),
    "qa_prefix_vs_wild": lambda: st.query_all(s=cairn.wildcard("ab*") if odd else cairn.prefix("ab")),
    "qa_name": lambda: st.query_all(**({"j": 3} if odd else {"i": 3})),
    # pin / unpin / drop
    "pin_neg": lambda: st.pin(-1 if odd else r1),
    "pin_str": lambda: st.pin("1" if odd else r1),
    "pin_other": lambda: st.pin(99 if odd else r1),
    "unpin_neg": lambda: st.unpin(-1 if odd else r1),
    "drop_neg": lambda: st.drop(-1 if odd else r1),
    "drop_huge": lambda: st.drop(2 ** 64 if odd else r1),
    # get_shared
    "gs_other": lambda: st.get_shared("nope" if odd else "sh"),
    "gs_int": lambda: st.get_shared(5 if odd else "sh"),
    "gs_bytes": lambda: st.get_shared(b"sh" if odd else "sh"),
}

try:
    out = ("OK", C[case]())
except Exception as e:  # noqa: BLE001
    out = ("RAISED", f"{type(e).__name__}: {e}"[:300])
print(f"{case}: rank {rank}: {out}", flush=True)
# then a normal collective must still pair up
h = st.query_all(i=cairn.range(0, 100))
st.close()
allo = comm.gather(out)
if rank == 0:
    kinds = {o[0] for o in allo}
    same = len({repr(o) for o in allo}) == 1
    verdict = "consistent" if (kinds == {"RAISED"} or (kinds == {"OK"} and same)) else "INCONSISTENT"
    print(f"{case} np {size}: {verdict}", flush=True)
