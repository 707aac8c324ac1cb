# Single-process tests (run once, not under mpiexec -n 2/4): no copy of
# the values (array ownership, peak RSS of a 1 GiB put), the GIL released
# during I/O, one store used from several threads, `import cairn` without
# mpi4py, and the Corruption and IOError paths.
import os
import resource
import shutil
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import cairn


@pytest.fixture
def big_path(tmp_path):
    """A store path removed after the test (pytest keeps its tmp_path dirs)."""
    yield tmp_path / "s"
    shutil.rmtree(tmp_path / "s", ignore_errors=True)


def _maxrss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def test_1gib_put_and_get_make_no_copy(big_path):
    gib = 1 << 30
    before = _maxrss_bytes()
    with cairn.Store(big_path, sync=False) as st:
        a = np.ones(gib // 8, dtype=np.float64)  # 1 GiB, touched: counted in RSS
        a[::4096] = np.arange(a[::4096].size)
        st.put("big", a, tags={"n": a.size})
        st.commit()
        grown = _maxrss_bytes() - before
        # The array itself is 1 GiB; a copy of it would add another.
        assert grown < 1.1 * gib, f"peak RSS grew by {grown / gib:.2f} GiB for a 1 GiB put"
        del a
        b = st.get("big", dtype=np.float64)
        assert b.flags.owndata and b.base is None and b.size == gib // 8
        assert b[4096 * 7] == 7.0 and b[1] == 1.0
        grown = _maxrss_bytes() - before
        assert grown < 2.1 * gib, f"peak RSS grew by {grown / gib:.2f} GiB after the get"


def test_bytes_get_owns_value(tmp_path):
    with cairn.Store(tmp_path / "s") as st:
        st.put("k", b"abc" * 100000)
        v = st.get("k")
        assert type(v) is bytes and v == b"abc" * 100000


def test_gil_released_during_put(big_path):
    a = np.ones(256 << 17, dtype=np.float64)  # 256 MiB
    with cairn.Store(big_path, sync=False) as st:
        span = [0.0, 0.0]

        def writer():
            span[0] = time.perf_counter()
            st.put("big", a)
            span[1] = time.perf_counter()

        th = threading.Thread(target=writer)
        th.start()
        # The longest stretch this thread could not run while the put ran:
        # about the whole put if it held the GIL.
        longest, last = 0.0, time.perf_counter()
        while th.is_alive():
            now = time.perf_counter()
            longest, last = max(longest, now - last), now
        th.join()
        put_s = span[1] - span[0]
        assert put_s > 0.02, "the put was too quick to tell"
        assert longest < put_s / 2, f"blocked {longest:.3f} s of a {put_s:.3f} s put"


def test_import_without_mpi4py(tmp_path):
    code = (
        "import sys; sys.modules['mpi4py'] = None\n"
        "import cairn\n"
        f"with cairn.Store({str(tmp_path / 's')!r}) as st:\n"
        "    st.put('k', b'v'); assert st.commit() == 1 and st.size == 1\n"
        "print('ok')\n"
    )
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_corruption_is_reported(tmp_path):
    p = tmp_path / "s"
    with cairn.Store(p) as st:
        st.put("k", b"\xab" * (1 << 20))
        st.commit()
    data = [f for f in os.listdir(p) if f.startswith("data.")]
    assert len(data) == 1
    with open(p / data[0], "r+b") as f:
        raw = f.read()
        off = raw.index(b"\xab" * 4096) + 1000
        f.seek(off)
        f.write(b"\x00")
    with cairn.Store(p, mode="r") as st:
        with pytest.raises(cairn.Corruption) as e:
            st.get("k")
        assert isinstance(e.value, cairn.Error) and str(e.value)
        with pytest.raises(cairn.Corruption):
            with st.open_stream("k", "rb") as f:
                f.read()


def test_ioerror(tmp_path):
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(cairn.IOError, match="Not a directory"):
        cairn.Store(tmp_path / "file" / "s")


def test_put_array_and_read_make_no_copy(tmp_path):
    """A fresh process (its own peak RSS): a 512 MiB put_array raises the
    peak by less than 1.1x the array, and reading it back by one more."""
    code = (
        "import resource, numpy as np, cairn\n"
        "rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
        "mib = 1 << 20\n"
        f"with cairn.Store({str(tmp_path / 's')!r}, sync=False) as st:\n"
        "    a = np.ones((512, mib // 8), np.float64); a[:, 0] = np.arange(512)\n"
        "    before = rss()\n"
        "    st.put_array('big', a, global_shape=(1024, mib // 8))\n"
        "    st.commit()\n"
        "    grown = rss() - before\n"
        "    assert grown < 0.1 * a.nbytes, f'put_array: peak RSS grew by {grown / mib:.0f} MiB'\n"
        "    del a\n"
        "    b = st.array('big')[:512]\n"
        "    assert b.flags.owndata and b.base is None and b[77, 0] == 77 and b[5, 9] == 1\n"
        "    grown = rss() - before\n"
        "    assert grown < 1.1 * b.nbytes, f'read: peak RSS grew by {grown / mib:.0f} MiB'\n"
        "print('ok')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def _child(code, tmp_path, runs=1, timeout=120):
    """Runs `code` (argv[1]: a fresh store path) in a new interpreter `runs`
    times, so that a crash fails the test instead of pytest; returns the
    list of (returncode, output)."""
    out = []
    for i in range(runs):
        p = subprocess.run([sys.executable, "-c", textwrap.dedent(code), str(tmp_path / f"s{i}")],
                           capture_output=True, text=True, timeout=timeout)
        out.append((p.returncode, p.stdout + p.stderr))
    return out


def _all_ok(runs):
    bad = [(rc, out[-400:]) for rc, out in runs if rc != 0 or "ok" not in out]
    assert not bad, f"{len(bad)} of {len(runs)} runs failed: {bad}"


def test_close_while_another_thread_reads_does_not_crash(tmp_path):
    # Store calls are serialized per store: close() waits for the get in
    # progress, later gets raise InvalidArgument ("the store is closed").
    # Before: a segfault in 4 of 5 runs.
    _all_ok(_child("""
        import sys, threading, numpy as np, cairn
        s = cairn.Store(sys.argv[1], sync=False)
        s.put("k", np.zeros(1 << 22)); s.commit()
        err = []
        def reader():
            for _ in range(200):
                try: s.get("k", dtype=np.float64)
                except cairn.InvalidArgument as e: err.append(str(e)); return
        t = threading.Thread(target=reader); t.start(); s.close(); t.join()
        assert not err or "closed" in err[0], err
        print("ok")
        """, tmp_path, runs=5))


def test_puts_and_streams_from_several_threads_keep_the_store_whole(tmp_path):
    # Four threads putting different keys, and one writing a stream: every
    # value comes back. Before: Corruption at commit or get, heap corruption.
    _all_ok(_child("""
        import sys, threading, numpy as np, cairn
        s = cairn.Store(sys.argv[1], sync=False)
        def w(t):
            for i in range(300): s.put(f"t{t}/{i}", np.full(1000, i, np.float64), tags={"i": i})
        def stream():
            with s.open_stream("st", "wb") as f:
                for i in range(300): f.write(np.full(1000, i, np.float64))
        th = [threading.Thread(target=w, args=(t,)) for t in range(4)] + [threading.Thread(target=stream)]
        [t.start() for t in th]; [t.join() for t in th]
        s.commit()
        assert all((s.get(f"t{t}/{i}", dtype=np.float64) == i).all() for t in range(4) for i in range(300))
        assert all(s.tags(f"t{t}/{i}")["i"] == i for t in range(4) for i in range(300))
        assert (s.get("st", dtype=np.float64) == np.repeat(np.arange(300.0), 1000)).all()
        print("ok")
        """, tmp_path, runs=4))


def test_waiting_on_one_async_commit_from_two_threads_does_not_crash(tmp_path):
    # AsyncCommit.wait returns the revision, again on a second call; from
    # two threads too. Before: a segfault in 3 of 3 runs.
    _all_ok(_child("""
        import sys, threading, numpy as np, cairn
        s = cairn.Store(sys.argv[1], sync=False)
        s.put("k", np.ones(1 << 22)); h = s.commit_async(); r = []
        t = threading.Thread(target=lambda: r.append(h.wait())); t.start(); r.append(h.wait()); t.join()
        assert r == [1, 1], r
        print("ok")
        """, tmp_path, runs=3))


def test_close_while_streams_commits_and_arrays_are_in_use(tmp_path):
    # Streams, an AsyncCommit and a cairn.Array used by other threads while
    # the store closes: each call completes or raises cairn.Error (the
    # stream outlives the store, as include/cairn/stream.h allows).
    _all_ok(_child("""
        import sys, threading, numpy as np, cairn
        s = cairn.Store(sys.argv[1], sync=False)
        s.put_array("a", np.arange(1 << 20, dtype=np.float64)); s.put("k", np.ones(1 << 20)); s.commit()
        a = s.array("a"); r = s.open_stream("k", "rb"); w = s.open_stream("w", "wb")
        s.put("k2", np.ones(1 << 20)); h = s.commit_async()
        def use(f):
            for _ in range(100):
                try: f()
                except cairn.Error: pass
        fs = [lambda: a[::3], lambda: (r.seek(0), r.read(1 << 16)), lambda: w.write(b"x" * 4096),
              lambda: h.wait(), lambda: h.test()]
        th = [threading.Thread(target=use, args=(f,)) for f in fs]
        [t.start() for t in th]; s.close(); [t.join() for t in th]
        try: w.close()
        except cairn.Error: pass
        print("ok")
        """, tmp_path, runs=3))


# Found by an outside test of the package: MPI.COMM_NULL hung (1 rank) or
# crashed (a rank left out of a split); it runs in a child process so a
# hang or a crash fails the test instead of pytest.
def test_store_on_comm_null_is_refused(tmp_path):
    # Store(comm=...): "an mpi4py communicator". MPI.COMM_NULL (what a rank
    # left out of Comm.Split gets) must raise, not hang or crash.
    code = """
        import sys
        from mpi4py import MPI
        import cairn
        try:
            cairn.Store(sys.argv[1], comm=MPI.COMM_NULL)
            print("opened")
        except cairn.InvalidArgument as e:
            print("refused:", e)
        """
    try:
        (rc, out), = _child(code, tmp_path, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("Store(comm=MPI.COMM_NULL) hung for 30 s")
    assert rc == 0 and "refused:" in out and "MPI_COMM_NULL" in out, f"rc {rc}: {out[-300:]}"
