# pytest fixtures for the cairn package's tests. The same tests run in one
# process and under mpiexec -n 2 and 4 (ctest: python_test_np1/2/4): every
# rank runs every test in the same order, and the collective ones
# (commit, query_all, ...) are made by all ranks together.
import os
import shutil
import tempfile

import pytest

from mpi4py import MPI


@pytest.fixture(scope="session")
def comm():
    return MPI.COMM_WORLD


@pytest.fixture(scope="session")
def _root(comm):
    d = tempfile.mkdtemp(prefix="cairn-py-") if comm.rank == 0 else None
    d = comm.bcast(d, root=0)
    yield d
    comm.Barrier()
    if comm.rank == 0:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def path(_root, request, comm):
    """A store path of the test's own, the same on every rank (not created)."""
    p = os.path.join(_root, request.node.name.replace("/", "_").replace("[", "_").replace("]", ""))
    comm.Barrier()
    return p
