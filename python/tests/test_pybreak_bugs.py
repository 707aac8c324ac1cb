# Failing tests for what breaking the package from outside found (branch
# pybreak; tests/pybreak_repro/ has the scripts) that are not fixed yet.
# Single process, not wired into ctest: run with
#   PYTHONPATH=build/python build/venv/bin/python -m pytest python/tests/test_pybreak_bugs.py
# The fixed ones moved to the registered suite (test_store.py,
# test_arrays.py, test_single.py). Left: Store(comm=MPI.COMM_NULL), which
# needs the C++ library to check MPI's return codes (under mpi4py's
# MPI_ERRORS_RETURN); tests/pybreak_repro/exception_in_with_one_rank.py
# shows the other case of that cause. Each test states the contract it
# checks; it runs in a child process so that a hang or a segfault fails
# the test instead of pytest.
import subprocess
import sys
import textwrap

import pytest


def _child(code, tmp_path, runs=1, timeout=120):
    """Runs `code` in a fresh interpreter `runs` times; returns the list of
    (returncode, output)."""
    out = []
    for i in range(runs):
        p = subprocess.run([sys.executable, "-c", textwrap.dedent(code), str(tmp_path / f"s{i}")],
                           capture_output=True, text=True, timeout=timeout)
        out.append((p.returncode, p.stdout + p.stderr))
    return out


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
