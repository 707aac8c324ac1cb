# python threads_close_while_get_segfault.py   (single process; exit code 139)
# One Python thread reads with Store.get (the GIL is released while the
# library reads) while the main thread closes the store. Expected: the
# reader gets cairn.InvalidArgument("the store is closed") (what get() on a
# closed store raises), or close waits for it. Seen: segfault.
import os, tempfile, threading
import numpy as np
import cairn
s = cairn.Store(os.path.join(tempfile.mkdtemp(), "s"), sync=False)
s.put("k", np.zeros(1 << 22))
s.commit()
errs = []
def reader():
    for _ in range(200):
        try:
            s.get("k", dtype=np.float64)
        except cairn.Error as e:
            errs.append(type(e).__name__)
            return
t = threading.Thread(target=reader)
t.start()
s.close()
t.join()
print("no crash; reader errors:", errs)
