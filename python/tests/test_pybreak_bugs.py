# Failing tests for what breaking the package from outside found (branch
# pybreak; tests/pybreak_repro/ has the scripts). Single process, not wired
# into ctest: run with
#   PYTHONPATH=build/python build/venv/bin/python -m pytest python/tests/test_pybreak_bugs.py
# Each test states the contract it checks. The crashing cases run in a
# child process so that a segfault fails the test instead of pytest.
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cairn


def _child(code, tmp_path, runs=1, timeout=120):
    """Runs `code` in a fresh interpreter `runs` times; returns the list of
    (returncode, output)."""
    out = []
    for i in range(runs):
        p = subprocess.run([sys.executable, "-c", textwrap.dedent(code), str(tmp_path / f"s{i}")],
                           capture_output=True, text=True, timeout=timeout)
        out.append((p.returncode, p.stdout + p.stderr))
    return out


def test_close_while_another_thread_reads_does_not_crash(tmp_path):
    # A Python object used from two threads may raise, never crash: get()
    # on a closed store raises InvalidArgument ("the store is closed").
    runs = _child("""
        import sys, threading, numpy as np, cairn
        s = cairn.Store(sys.argv[1], sync=False)
        s.put("k", np.zeros(1 << 22)); s.commit()
        def reader():
            for _ in range(200):
                try: s.get("k", dtype=np.float64)
                except cairn.Error: return
        t = threading.Thread(target=reader); t.start(); s.close(); t.join()
        print("ok")
        """, tmp_path, runs=5)
    bad = [(rc, out[-300:]) for rc, out in runs if rc != 0]
    assert not bad, f"{len(bad)} of 5 runs crashed: {bad}"


def test_puts_from_several_threads_keep_the_store_whole(tmp_path):
    # Four threads putting different keys: every value must come back (or a
    # put raise); seen instead: Corruption at commit or at get, heap corruption.
    runs = _child("""
        import sys, threading, numpy as np, cairn
        s = cairn.Store(sys.argv[1], sync=False)
        def w(t):
            for i in range(300): s.put(f"t{t}/{i}", np.full(1000, i, np.float64), tags={"i": i})
        th = [threading.Thread(target=w, args=(t,)) for t in range(4)]
        [t.start() for t in th]; [t.join() for t in th]
        s.commit()
        assert all((s.get(f"t{t}/{i}", dtype=np.float64) == i).all() for t in range(4) for i in range(300))
        print("ok")
        """, tmp_path, runs=4)
    bad = [(rc, out[-300:]) for rc, out in runs if rc != 0]
    assert not bad, f"{len(bad)} of 4 runs failed: {bad}"


@pytest.mark.parametrize("state", [{"": 1, ".root": 2}, {".tree": 1, "a": 2}])
def test_save_load_keeps_dict_keys_that_look_like_its_own_objects(tmp_path, state):
    # cairn.save: "nested dicts (str keys)": any str key comes back, or save
    # refuses it; never another key's value or a Corruption at load.
    with cairn.Store(tmp_path / "s") as st:
        try:
            cairn.save(st, state)
        except cairn.InvalidArgument:
            return
        assert cairn.load(st) == state


def test_put_of_a_fortran_ordered_array_reads_back_the_same_array(tmp_path):
    # Store.put: "any contiguous buffer ... a NumPy array"; get(dtype=,
    # shape=) gives "a new NumPy array": the values must be the ones put.
    x = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    with cairn.Store(tmp_path / "s") as st:
        st.put("k", x)
        st.commit()
        y = st.get("k", dtype=x.dtype, shape=x.shape)
        assert np.array_equal(x, y), f"put {x.tolist()}, got {y.tolist()}"


def test_array_handle_after_a_dtype_change_does_not_reinterpret_bytes(tmp_path):
    # cairn.Array: "Valid while its store is open." A handle from before the
    # array was re-put as int64 must not return the int64 bytes as float64.
    with cairn.Store(tmp_path / "s") as st:
        st.put_array("a", np.arange(4.0))
        st.commit()
        a = st.array("a")
        st.put_array("a", np.arange(4, dtype=np.int64) * 10)
        st.commit()
        try:
            v = a[...]
        except cairn.Error:
            return
        assert np.array_equal(v, [0, 10, 20, 30]), f"stale handle read {v!r}"


def test_bad_input_raises_cairn_errors(tmp_path):
    # Package doc: errors raise cairn.NotFound/Corruption/InvalidArgument/...
    with cairn.Store(tmp_path / "s") as st:
        st.put("k", b"abcdefgh")
        st.commit()
        with pytest.raises(cairn.InvalidArgument):
            st.put("t", b"x", tags={"t": [2**63]})  # an int list tag is Int64
        with pytest.raises(cairn.InvalidArgument):
            st.read_range("k", -1, bytearray(1))
        cairn.save(st, {"a": 1})
        st.put("state/.tree", b"[1]")
        st.commit()
        with pytest.raises(cairn.Corruption):
            cairn.load(st)
    with pytest.raises(cairn.InvalidArgument):
        cairn.Store(tmp_path / "o", keep_revisions=-1)


def test_waiting_on_one_async_commit_from_two_threads_does_not_crash(tmp_path):
    # AsyncCommit.wait returns the revision (twice from one thread works);
    # from two threads it must not crash either.
    runs = _child("""
        import sys, threading, numpy as np, cairn
        s = cairn.Store(sys.argv[1], sync=False)
        s.put("k", np.ones(1 << 22)); h = s.commit_async(); r = []
        t = threading.Thread(target=lambda: r.append(h.wait())); t.start(); r.append(h.wait()); t.join()
        assert r == [1, 1], r
        print("ok")
        """, tmp_path, runs=3)
    bad = [(rc, out[-300:]) for rc, out in runs if rc != 0]
    assert not bad, f"{len(bad)} of 3 runs failed: {bad}"


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
        except (cairn.InvalidArgument, TypeError, ValueError) as e:
            print("refused:", e)
        """
    try:
        (rc, out), = _child(code, tmp_path, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("Store(comm=MPI.COMM_NULL) hung for 30 s")
    assert rc == 0 and "refused:" in out, f"rc {rc}: {out[-300:]}"
