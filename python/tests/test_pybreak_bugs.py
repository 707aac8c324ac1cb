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
