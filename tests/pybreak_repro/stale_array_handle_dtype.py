# python stale_array_handle_dtype.py   (single process)
# cairn.Array docstring: "Valid while its store is open." A handle taken
# before a commit that re-puts the array with another dtype of the same
# item size keeps its old dtype, and a[...] reinterprets the new bytes: the
# int64 values 0, 10, 20, 30 come back as float64 denormals (and uint8 250..
# as int8 -6..), with no error. Expected: the values, or an error saying the
# handle is stale (the dtype is not passed to the read: only the item size).
import os, tempfile
import numpy as np
import cairn
s = cairn.Store(os.path.join(tempfile.mkdtemp(), "s"))
s.put_array("a", np.arange(4.0)); s.commit()
a = s.array("a")
s.put_array("a", np.arange(4, dtype=np.int64) * 10); s.commit()
print("store now holds", s.array("a").dtype, s.array("a")[...])
print("old handle reads", a.dtype, a[...])
