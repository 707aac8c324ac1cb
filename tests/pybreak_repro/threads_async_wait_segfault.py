# python threads_async_wait_segfault.py   (single process; exit code 139)
# Two threads wait on the same AsyncCommit handle (AsyncCommit.wait is
# documented to return the revision, and waiting twice from one thread
# works). Seen: segfault. Expected: both get the revision, or an exception.
import os, tempfile, threading
import numpy as np
import cairn
s = cairn.Store(os.path.join(tempfile.mkdtemp(), "s"), sync=False)
s.put("k", np.ones(1 << 22))
h = s.commit_async()
r = []
t = threading.Thread(target=lambda: r.append(h.wait()))
t.start()
r.append(h.wait())
t.join()
print("no crash", r)
