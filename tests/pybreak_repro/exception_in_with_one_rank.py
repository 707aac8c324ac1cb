# mpiexec -n 2 python exception_in_with_one_rank.py [timeout_s]
# Rank 1 raises inside `with cairn.Store(...)`: __exit__ closes the store
# (collective) while rank 0 commits. Expected (Options::collective_timeout_s
# in include/cairn/options.h: "a collective call made by only some ranks ...
# aborts the job with MPI_Abort and a message naming the operation"): an
# abort naming the operation (or, with timeout 0, a hang as MPI would).
# Seen: rank 1's close returns, rank 0 segfaults in Store::Commit (MPI_Test,
# "MPI Error in NBC subrequest ... 15").
# Cause (read after the failure, src/comm/mpi_comm.cc): the library ignores
# MPI return codes (MPI_Test, MPI_Comm_idup ...). mpi4py sets
# MPI_ERRORS_RETURN on its predefined communicators by default
# (mpi4py.rc.errors = "exception"), and the store's duplicate inherits it, so
# an MPI error returns, is ignored, and the library goes on with a failed
# request or communicator. With mpi4py.rc.errors = "fatal" set before
# `from mpi4py import MPI` the same script ends in a clean MPI abort
# (MPI_ERR_ROOT in MPI_Ibcast / MPI_ERR_COMM in MPI_Comm_idup).
import os, sys, tempfile
from mpi4py import MPI
import cairn
C = MPI.COMM_WORLD
d = C.bcast(tempfile.mkdtemp() if C.rank == 0 else None)
t = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
try:
    with cairn.Store(os.path.join(d, "s"), comm=C, collective_timeout_s=t) as s:
        s.put("k", b"x")
        if C.rank == 1:
            raise RuntimeError("rank 1 fails")
        s.commit()
except RuntimeError as e:
    print(f"[{C.rank}] {e}; close returned", flush=True)
print(f"[{C.rank}] done", flush=True)
