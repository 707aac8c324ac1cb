# python put_fortran_order.py   (single process)
# Store.put docstring: "Stores value (bytes or any contiguous buffer ...) ...
# A non-contiguous NumPy array is made contiguous first". A Fortran-ordered
# array is stored in its memory order; get(dtype=, shape=) (docstring: "a new
# NumPy array") reads it back C-ordered: the values come back permuted, with
# no error. Likewise get(out=<F-ordered array>) is accepted and filled in raw
# memory order. (Store.put_array and cairn.save make such an array
# C-contiguous; Store.put does not.) Expected: the same array back, or the
# order documented / refused.
import os, tempfile
import numpy as np
import cairn
s = cairn.Store(os.path.join(tempfile.mkdtemp(), "s"))
x = np.asfortranarray(np.arange(6.0).reshape(2, 3))
s.put("k", x)
s.commit()
y = s.get("k", dtype=x.dtype, shape=x.shape)
print("put", x.tolist(), "got", y.tolist(), "equal:", np.array_equal(x, y))
c = np.arange(6.0).reshape(2, 3)
s.put("c", c); s.commit()
o = np.zeros((2, 3), order="F")
s.get("c", out=o)
print("out=F array: put", c.tolist(), "got", o.tolist(), "equal:", np.array_equal(o, c))
