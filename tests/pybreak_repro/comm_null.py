# mpiexec -n 1 python comm_null.py null    -> hangs (killed by timeout)
# mpiexec -n 2 python comm_null.py split   -> rank 1 (given MPI.COMM_NULL by
#                                            Split(MPI.UNDEFINED)) segfaults
# Store docstring: "comm: an mpi4py communicator ... or None". Ranks left
# out of a Split get MPI.COMM_NULL, a common slip. Expected: InvalidArgument
# (or TypeError) naming the communicator; seen: a hang or a segfault.
# Cause (read after the failure, src/comm/mpi_comm.cc): the library ignores
# MPI return codes (MPI_Test, MPI_Comm_idup ...). mpi4py sets
# MPI_ERRORS_RETURN on its predefined communicators by default
# (mpi4py.rc.errors = "exception"), and the store's duplicate inherits it, so
# an MPI error returns, is ignored, and the library goes on with a failed
# request or communicator. With mpi4py.rc.errors = "fatal" set before
# `from mpi4py import MPI` the same script ends in a clean MPI abort
# (MPI_ERR_ROOT in MPI_Ibcast / MPI_ERR_COMM in MPI_Comm_idup).
import os, sys, tempfile, faulthandler
from mpi4py import MPI
import cairn
faulthandler.dump_traceback_later(15, exit=True)
W = MPI.COMM_WORLD
c = MPI.COMM_NULL if sys.argv[1] == "null" else W.Split(0 if W.rank == 0 else MPI.UNDEFINED, 0)
try:
    s = cairn.Store(os.path.join(tempfile.mkdtemp(), "s"), comm=c)
    print(W.rank, "opened, size", s.size, flush=True)
    s.close()
except Exception as e:
    print(W.rank, type(e).__name__, e, flush=True)
