# python get_object_dtype_segfault.py   (single process; exit code 139)
# Store.get docstring: "dtype and/or shape: a new NumPy array ... read into
# directly". With dtype=object the stored bytes are written into an array of
# PyObject pointers; printing (or freeing) it dereferences them: segfault.
# Expected: cairn.InvalidArgument (as put_array and cairn.save refuse object
# dtypes). Same with get_many(keys, dtype=object) and get(out=<object array>).
import sys, tempfile, os
import numpy as np
import cairn
which = sys.argv[1] if len(sys.argv) > 1 else "get"
s = cairn.Store(os.path.join(tempfile.mkdtemp(), "s"))
s.put("k", np.arange(4, dtype=np.int64) + 0x41414141)
s.commit()
if which == "get":
    a = s.get("k", dtype=object)
elif which == "get_many":
    a = s.get_many(["k"], dtype=object)[0]
else:
    a = np.empty(4, dtype=object)
    s.get("k", out=a)
print("returned", a.dtype, flush=True)
print(repr(a))  # segfault here
