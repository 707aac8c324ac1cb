"""cairn: a checkpoint/restart store for MPI applications, from Python.

    from mpi4py import MPI
    import numpy as np
    import cairn

    with cairn.Store("ckpt", comm=MPI.COMM_WORLD, keep_revisions=3) as st:
        st.put("u", u, tags={"step": np.int32(step), "t": 0.5})
        rev = st.commit()
        v = st.get("u", dtype=u.dtype, shape=u.shape)
        a, b = st.get_many(["a", "b"], outs=[a_out, b_out])  # one batched read

mpi4py is optional: without ``comm`` the store is single-process. cairn
needs MPI_THREAD_FUNNELED only; mpi4py initializes MPI_THREAD_MULTIPLE by
default, which slows Open MPI down: ``mpi4py.rc.thread_level = "funneled"``
before ``from mpi4py import MPI`` avoids that. Errors
raise cairn.NotFound, cairn.Corruption, cairn.InvalidArgument, cairn.IOError
(and cairn.NotSupported, cairn.Aborted), all subclasses of cairn.Error.
Global arrays: ``st.put_array("u", local, start=(r0, 0), global_shape=(n, m))``
on each rank, then on any rank count ``st.array("u")[10:20, ::2]``.
cairn.save / cairn.load keep nested dicts of arrays and scalars; a
cairn.Shard(local, start, global_shape) leaf is saved as a global array and
restores on another rank count.
"""
from ._errors import (Aborted, Corruption, Error, InvalidArgument, IOError,  # noqa: A004
                      NotFound, NotSupported)
from ._tags import Condition, equal, exists, prefix, range, wildcard  # noqa: A004
from ._array import Array, Block
from ._store import SHARED, AsyncCommit, ObjectInfo, Revision, Store, Stream
from ._state import Shard, load, save

__all__ = [
    "Store", "Stream", "AsyncCommit", "Revision", "ObjectInfo", "SHARED",
    "Error", "NotFound", "Corruption", "InvalidArgument", "IOError", "NotSupported", "Aborted",
    "Condition", "exists", "equal", "range", "prefix", "wildcard",
    "Array", "Block", "Shard", "save", "load",
]
__version__ = "0.2.0"
