# python misleading_exceptions.py   (single process)
# Errors that are not cairn.* (package docstring: "Errors raise
# cairn.NotFound, cairn.Corruption, cairn.InvalidArgument, ...") or that are
# raised from inside the package by accident.
import os, tempfile, struct
import numpy as np
import cairn
s = cairn.Store(os.path.join(tempfile.mkdtemp(), "s"))
s.put("k", b"abcdefgh"); s.commit()
def show(what, fn):
    try:
        r = fn(); print(f"{what}: returned {r!r}")
    except Exception as e:
        print(f"{what}: {type(e).__module__}.{type(e).__name__}: {str(e).splitlines()[0][:100]}")
show("tag list [2**63] (an int list tag is Int64)", lambda: s.put("t", b"x", tags={"t": [2**63]}))
show("get(rank=2**40)", lambda: s.get("k", rank=2**40))
show("read_range(offset=-1)", lambda: s.read_range("k", -1, bytearray(1)))
show("stream seek(2**64) on a reader", lambda: s.open_stream("k", "rb").seek(2**64))
f = s.open_stream("w", "wb"); f.close()
show("Stream.size() after close", f.size)
show("Array.read(count=(-1,))", lambda: (s.put_array("a", np.arange(3.0)), s.commit(), s.array("a").read((0,), (-1,))))
cairn.save(s, {"a": 1}); s.put("state/.tree", b"[1]"); s.commit()
show("load of a tree that is a JSON list (docstring: not a saved tree -> Corruption)", lambda: cairn.load(s))
