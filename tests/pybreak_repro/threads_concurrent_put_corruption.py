# python threads_concurrent_put_corruption.py   (single process)
# Four Python threads put different keys into one store, then the main
# thread commits. Python-level code expects either correct results or an
# exception on misuse. Seen, over 4 runs: values ok (2), heap corruption
# abort "double free or corruption (!prev)" (1), get raising Corruption
# "checksum mismatch" on a value just written (1); and in the probe: commit raises cairn.Corruption ("index entries
# out of key order" / for a stream written from two threads "index entry
# chunk lengths do not add up to the value size"): the store's in-memory
# state was torn by the unsynchronized calls (include/cairn/store.h: "a Store
# is used by one thread at a time per rank"; the Python package says nothing
# of it and releases the GIL in put/get). Nothing durable is damaged here,
# but the same race in close-vs-get segfaults (threads_close_while_get_segfault.py).
import os, tempfile, threading
import numpy as np
import cairn
s = cairn.Store(os.path.join(tempfile.mkdtemp(), "s"), sync=False)
def w(t):
    for i in range(300):
        s.put(f"t{t}/{i}", np.full(1000, i, np.float64), tags={"i": i})
th = [threading.Thread(target=w, args=(t,)) for t in range(4)]
[t.start() for t in th]
[t.join() for t in th]
rev = s.commit()
ok = all((s.get(f"t{t}/{i}", dtype=np.float64) == i).all() for t in range(4) for i in range(300))
print("committed", rev, len(s.keys()), "keys, values ok:", ok)
