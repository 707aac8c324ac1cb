"""cairn.Store: a checkpoint/restart store, from Python.

See the package's documentation (``help(cairn)``) and include/cairn/store.h
for the contract of each operation: this module gives the C++ API its
Python form and adds no semantics of its own.
"""
from __future__ import annotations

import io
import operator
import os
import sys
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

from . import _array, _cairn, _tags
from ._array import Array
from ._errors import InvalidArgument

try:
    import numpy as _np
except ImportError:  # pragma: no cover - numpy is optional
    _np = None

#: ``rank=SHARED`` reads the shared namespace (objects put with put_shared).
SHARED = -2

AsyncCommit = _cairn.AsyncCommit


class Revision(NamedTuple):
    """One retained revision, as listed by Store.revisions()."""
    revision: int
    parent: int
    time_ns: int
    ranks: int
    objects: int
    value_bytes: int
    index_bytes: int
    pinned: bool


class ObjectInfo(NamedTuple):
    """One object, as listed by Store.list()."""
    key: str
    size: int
    tags: Dict[str, Any]


def _no_objects(dt: Any, what: str) -> None:
    """Refuses a NumPy dtype that holds Python objects: its memory is
    pointers, which must be neither stored nor overwritten by bytes."""
    if dt is not None and dt.hasobject:
        raise InvalidArgument(f"{what}: dtype {dt} holds Python objects; cairn stores and reads "
                              "only plain data (numbers, bytes)")


def _c_order(out: Any, what: str) -> None:
    """Refuses a NumPy array that is not C-contiguous as a buffer to fill
    or write: values are bytes in C order, and a Fortran-ordered array's
    memory is not (it would come back permuted)."""
    if _np is not None and isinstance(out, _np.ndarray) and not out.flags.c_contiguous:
        layout = "Fortran-ordered" if out.flags.f_contiguous else "strided"
        raise InvalidArgument(f"{what}: a {layout} array cannot be used; values are bytes in C "
                              "order: use numpy.ascontiguousarray(x) (or an array made with "
                              "order='C')")


def _not_none(v: Any, what: str) -> None:
    """None where a buffer is wanted: InvalidArgument, as for any other
    object that is not a buffer (the extension's own refusal of None was
    nanobind's TypeError listing its signature)."""
    if v is None:
        raise InvalidArgument(f"{what}: a buffer (bytes, bytearray, memoryview, numpy.ndarray) is "
                              "required, got None")


def _int(v: Any, lo: int, hi: int, what: str) -> int:
    """`v` as an int in [lo, hi], else InvalidArgument saying what it is."""
    if isinstance(v, bool):
        raise InvalidArgument(f"{what} must be an int, got {v!r}")
    try:
        i = operator.index(v)
    except TypeError:
        raise InvalidArgument(f"{what} must be an int, got {type(v).__name__} {v!r}") from None
    if not lo <= i <= hi:
        raise InvalidArgument(f"{what} {i} is out of range ({lo} to {hi})")
    return i


_U64 = (1 << 64) - 1


def _rank(rank: Optional[int]) -> int:
    r = -1 if rank is None else _int(rank, -(1 << 31), (1 << 31) - 1, "rank")
    if r < SHARED:  # the library's own message names its C++ ReadOptions
        raise InvalidArgument(f"rank {r} names no namespace: give a rank of the revision, "
                              "None (this rank's) or cairn.SHARED")
    return r


class Stream(io.RawIOBase):
    """An object of the store read or written as a stream of bytes.

    Returned by Store.open_stream. A write stream becomes the object (with
    its tags) when it is closed, pending for the next commit. ``write``
    also takes a ``str`` (as UTF-8), so ``json.dump`` works on it; ``flush``
    does nothing (what is written is already the store's: a commit makes
    it durable). Seekable both ways (see include/cairn/stream.h); as with
    io's files, a read stream may be seeked past its end (tell() gives
    that position, a read there b"") and a write stream's write past its
    end fills the gap with zeros. write and
    readinto take C-contiguous buffers only: a Fortran-ordered or strided
    NumPy array raises InvalidArgument (numpy.ascontiguousarray(x) first),
    as a real file's write refuses it.
    """

    def __init__(self, handle: Any, writable: bool, key: str) -> None:
        super().__init__()
        self._h = handle
        self._writable = writable
        self.name = key
        self.mode = "wb" if writable else "rb"
        # A read stream's position when seeked past the end (io's files
        # allow it; the library's reader does not): reads there give b"".
        self._beyond: Optional[int] = None

    def readable(self) -> bool:
        return not self._writable

    def writable(self) -> bool:
        return self._writable

    def seekable(self) -> bool:
        return True

    def _live(self) -> Any:
        """The extension's stream; InvalidArgument (a ValueError, as io's
        closed-file error is) once closed."""
        h = self._h
        if h is None or self.closed:
            raise InvalidArgument(f"stream '{self.name}' is closed")
        return h

    def readinto(self, b: Any) -> int:
        h = self._live()
        if self._writable:
            raise io.UnsupportedOperation("read from a write stream")
        _not_none(b, f"stream '{self.name}': readinto")
        _c_order(b, f"stream '{self.name}': readinto")
        if self._beyond is not None:
            return 0
        return h.readinto(b)

    def write(self, b: Any) -> int:
        h = self._live()
        if not self._writable:
            raise io.UnsupportedOperation("write to a read stream")
        if isinstance(b, str):
            b = b.encode("utf-8")
        _not_none(b, f"stream '{self.name}': write")
        _c_order(b, f"stream '{self.name}': write")
        return h.write(b)

    def seek(self, pos: int, whence: int = io.SEEK_SET) -> int:
        h = self._live()
        try:
            pos = operator.index(pos)
        except TypeError:
            raise InvalidArgument(f"stream '{self.name}': seek position must be an int, "
                                  f"got {pos!r}") from None
        if whence == io.SEEK_CUR:
            pos += self.tell()
        elif whence == io.SEEK_END:
            pos += h.size()
        elif whence != io.SEEK_SET:
            raise InvalidArgument(f"stream '{self.name}': bad whence {whence!r}")
        if pos < 0:
            raise InvalidArgument(f"stream '{self.name}': negative position {pos}")
        if pos > _U64:
            raise InvalidArgument(f"stream '{self.name}': position {pos} is beyond 2**64-1")
        if not self._writable and pos > h.size():
            # Past the end of a read stream, as io allows: tell() says pos,
            # a read gives b"" (the reader stays at its end).
            h.seek(h.size())
            self._beyond = pos
            return pos
        h.seek(pos)
        self._beyond = None
        return h.tell()

    def tell(self) -> int:
        h = self._live()
        return self._beyond if self._beyond is not None else h.tell()

    def size(self) -> int:
        """The stream's size so far (a writer) or the object's (a reader)."""
        return self._live().size()

    def flush(self) -> None:
        pass

    def close(self) -> None:
        if self.closed:
            return
        try:
            if self._writable:
                self._h.close()
        finally:
            self._h = None
            super().close()


def _take_part_refused(path: Any, comm: Any, why: BaseException, options: Dict[str, Any]) -> None:
    """Takes part in the collective open for a rank whose arguments were
    refused before it, carrying its refusal: every other rank's open fails
    with "rank R: " and this rank's cause, none waits for it, nothing is
    created."""
    try:
        p = os.fsdecode(path)
    except TypeError:
        p = ""
    try:
        t = options.get("collective_timeout_s", 0)
        t = 0.0 if isinstance(t, bool) or not isinstance(t, (int, float)) else float(t)
        _cairn.refuse_open(p, comm, str(why), t)
    except Exception:
        pass  # the caller raises its own error (a comm of the wrong type: no collective)


def _refused(take_part: Any, why: BaseException) -> None:
    """A collective call whose argument was refused on this rank before it:
    take_part(message) makes the call carrying the refusal (every rank then
    fails, naming this rank and `why`, and none waits for this one); the
    caller raises its own error."""
    try:
        take_part(str(why))
    except Exception:
        pass


class Store:
    """A cairn store, opened collectively over an mpi4py communicator.

    ``Store(path, comm=None, mode="a", revision=None, **options)``

    - ``comm``: an mpi4py communicator (every rank of it opens together), or
      None for a single-process store (no MPI needed); anything else raises
      TypeError naming what was given.
    - ``mode``: "a" read-write, created if missing; "r+" read-write, must
      exist; "x" read-write, must not exist; "r" read-only (any number of
      ranks).
    - ``revision``: the revision to open (None: the newest).
    - ``options``: any field of cairn::Options (include/cairn/options.h):
      keep_revisions, staging_bytes, chunk_size, extent_size, subfiles,
      write_buffer_size, inline_value_limit, compact_index_limit,
      collective_timeout_s, sync, require_writer_lock, writeback_bytes.

    A context manager: ``with cairn.Store(...) as st:`` closes it
    (collectively) at the end. Puts and deletes are local to the calling
    rank's namespace; commit(), commit_async(), query_all(), get_shared(),
    pin/unpin/drop and close() are collective.

    Threads: a Store may be used from several Python threads. Its calls
    release the GIL while the library works, and are serialized: one lock
    per store, shared by its streams, commit handles and cairn.Array
    handles, lets one call at a time into the C++ store (the others wait,
    with the GIL released; no speed-up from threads, but no damage).
    close() waits for the call in progress; calls after it raise
    InvalidArgument ("the store is closed"). A sequence of calls (a get's
    size check then read, save's puts) is not atomic as a whole: a value
    another thread replaces in between may raise InvalidArgument.
    Collective calls from two threads of one rank may pair up with the
    wrong calls of other ranks: make collective calls from one thread.
    """

    def __init__(self, path: Union[str, bytes, os.PathLike], comm: Any = None, mode: str = "a",
                 revision: Optional[int] = None, **options: Any) -> None:
        try:
            if mode not in ("a", "r", "r+", "x"):
                raise InvalidArgument(f"mode must be 'a', 'r', 'r+' or 'x', got {mode!r}")
            if mode == "r+":
                options.setdefault("create_if_missing", False)
            if mode == "x":
                options.setdefault("error_if_exists", True)
            self.path = os.fsdecode(path)  # str, bytes or os.PathLike
            self.mode = mode
            rev = 0 if revision is None else _int(revision, 0, _U64, "revision")
        except Exception as e:
            # The open is collective: a rank refused here still takes part,
            # carrying its refusal (every rank then fails, naming this rank
            # and the cause, none waits for it), and raises its own error.
            if comm is not None:
                _take_part_refused(path, comm, e, options)
            raise
        self._s = _cairn.Store(self.path, comm, mode == "r", rev, options)

    # ---- life cycle ----
    def close(self) -> None:
        """Collective: waits for a commit in flight, then closes the store.
        Changes not committed are discarded. Safe to call twice."""
        self._s.close()

    @property
    def closed(self) -> bool:
        return self._s.closed

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        # close() is collective. Leaving the block on an exception that only
        # this rank raised, while the others go on into another collective
        # call (a commit), mismatches the calls and the job aborts inside
        # close(), before Python prints the exception: say it first, so that
        # the cause is in the output (one line, also when it is handled).
        if exc_type is not None and not self.closed and self.size > 1:
            sys.stderr.write(f"cairn: rank {self.rank}: leaving `with cairn.Store({self.path!r})` on "
                             f"{exc_type.__name__}: {exc}; closing the store (collective)\n")
            sys.stderr.flush()
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return f"<cairn.Store {self.path!r} closed>"
        return (f"<cairn.Store {self.path!r} mode={self.mode!r} revision={self.revision} "
                f"rank {self.rank} of {self.size}>")

    @property
    def rank(self) -> int:
        """This process's rank (its namespace)."""
        return self._s.rank

    @property
    def size(self) -> int:
        """The number of ranks that opened the store."""
        return self._s.size

    @property
    def revision(self) -> int:
        """The revision this handle shows (0: none yet)."""
        return self._s.revision

    @property
    def writer_ranks(self) -> int:
        """The number of ranks that wrote this handle's revision (its
        namespaces 0 .. writer_ranks-1, readable with rank=); `size` for a
        store with no revision yet. Differs from `size` after a restart on
        another rank count."""
        return self._s.writer_ranks

    # ---- the caller's namespace ----
    def put(self, key: str, value: Any, tags: Optional[Dict[str, Any]] = None) -> None:
        """Stores `value` (bytes or any C-contiguous buffer: bytearray,
        memoryview, a NumPy array...) under `key`, with `tags`. The value is
        written from its own memory, without a copy (with staging_bytes > 0
        it is copied into staging memory, as in C++). Values are stored in
        C order: a NumPy array that is not C-contiguous (Fortran-ordered
        or strided) is converted to C order first (one copy), so that
        get(dtype=, shape=) gives back the same array; other buffers must
        be C-contiguous (InvalidArgument)."""
        _not_none(value, f"put('{key}')")
        if _np is not None and isinstance(value, _np.ndarray):
            _no_objects(value.dtype, f"put('{key}')")
            if not value.flags.c_contiguous:
                value = _np.ascontiguousarray(value)
        self._s.put(key, value, _tags.to_list(tags))

    def put_shared(self, key: str, value: Any, tags: Optional[Dict[str, Any]] = None) -> None:
        """Rank 0 only: a shared object, read by all with get_shared().
        The value is taken as put() takes it."""
        _not_none(value, f"put_shared('{key}')")
        if _np is not None and isinstance(value, _np.ndarray):
            _no_objects(value.dtype, f"put_shared('{key}')")
            if not value.flags.c_contiguous:
                value = _np.ascontiguousarray(value)
        self._s.put_shared(key, value, _tags.to_list(tags))

    def delete(self, key: str) -> None:
        """Removes `key` from this rank's namespace (NotFound if absent)."""
        self._s.delete(key)

    def __delitem__(self, key: str) -> None:
        self.delete(key)

    def set_tags(self, key: str, tags: Dict[str, Any]) -> None:
        """Replaces all tags of `key` (the value is not rewritten)."""
        self._s.set_tags(key, _tags.to_list(tags) or [])

    def set_tag(self, key: str, name: str, value: Any) -> None:
        """Adds or replaces one tag of `key`."""
        code, payload = _tags.encode(name, value)
        self._s.set_tag(key, (name, code, payload))

    def delete_tag(self, key: str, name: str) -> None:
        """Removes tag `name` of `key` (NotFound if absent)."""
        self._s.delete_tag(key, name)

    # ---- reads ----
    def get(self, key: str, out: Any = None, rank: Optional[int] = None,
            dtype: Any = None, shape: Any = None) -> Any:
        """The value of `key` (of this rank's namespace, or of `rank`'s).

        - ``out``: a writable C-contiguous buffer (bytearray, NumPy array,
          ...) of exactly the value's size is filled in place and returned
          (a Fortran-ordered or strided array is refused: InvalidArgument);
        - ``dtype`` and/or ``shape``: a new NumPy array that owns its memory,
          read into directly (no copy); without shape it is 1-D;
        - neither: a new ``bytes`` object, read into directly.

        Object dtypes (``dtype=object``, or an `out` holding Python
        objects) are refused with InvalidArgument: a read never writes
        bytes over object pointers.
        """
        r = _rank(rank)
        if out is not None:
            if _np is not None and isinstance(out, _np.ndarray):
                _no_objects(out.dtype, f"get('{key}', out=...)")
                _c_order(out, f"get('{key}', out=...)")
            self._s.read_into(key, out, r)
            return out
        if dtype is None and shape is None:
            return self._s.get_bytes(key, r)
        if _np is None:
            raise InvalidArgument("get(dtype=..., shape=...) needs numpy")
        dt = _np.dtype(dtype if dtype is not None else _np.uint8)
        _no_objects(dt, f"get('{key}')")
        n = self._s.size_of(key, r)
        if shape is None:
            if dt.itemsize == 0 or n % dt.itemsize != 0:
                raise InvalidArgument(f"get('{key}'): {n} bytes are not a whole number of {dt}")
            shape = (n // dt.itemsize,)
        # The size is checked before anything is allocated.
        try:
            shape = tuple(operator.index(d) for d in shape) if _np.iterable(shape) \
                else (operator.index(shape),)
        except TypeError:
            raise InvalidArgument(f"get('{key}'): shape must be an int or a sequence of ints, "
                                  f"got {shape!r}") from None
        if any(d < 0 for d in shape):
            raise InvalidArgument(f"get('{key}'): shape {shape} has a negative dimension")
        nbytes = dt.itemsize
        for d in shape:
            nbytes *= d
        if nbytes != n:
            raise InvalidArgument(f"get('{key}'): the value has {n} bytes, shape {shape} "
                                  f"of {dt} has {nbytes}")
        arr = _np.empty(shape, dtype=dt)
        self._s.read_into(key, arr, r)
        return arr

    def get_many(self, keys: Sequence[str], outs: Optional[Sequence[Any]] = None,
                 rank: Optional[int] = None, dtype: Any = None) -> List[Any]:
        """The values of `keys`, read with one batched read (Store::MultiGet:
        the reads of all values are planned together and land in place).

        - ``outs``: one writable C-contiguous buffer per key, each exactly the
          size of its value, filled in place; returned as a list;
        - else a new 1-D NumPy array of ``dtype`` per key (``uint8`` when
          dtype is None; a ``bytearray`` per key without NumPy), read into
          directly, with no zero-filling and no copy.

        Every key and size is checked before anything is read: a missing
        key raises NotFound, an out of the wrong size (or a value that is
        not whole elements of dtype) InvalidArgument, and then no out has
        been written. A read that fails later raises IOError or Corruption;
        the value it failed on is zeroed, never left as damaged data.
        """
        keys = list(keys)
        r = _rank(rank)
        if outs is None:
            outs = []
            dt = None
            if _np is not None:
                dt = _np.dtype(dtype if dtype is not None else _np.uint8)
                _no_objects(dt, "get_many")
            elif dtype is not None:
                raise InvalidArgument("get_many(dtype=...) needs numpy")
            for k in keys:
                n = self._s.size_of(k, r)
                if dt is None:
                    outs.append(bytearray(n))
                    continue
                if dt.itemsize == 0 or n % dt.itemsize != 0:
                    raise InvalidArgument(f"get_many('{k}'): {n} bytes are not a whole number of {dt}")
                outs.append(_np.empty(n // dt.itemsize, dtype=dt))
        else:
            outs = list(outs)
            if len(outs) != len(keys):
                raise InvalidArgument(f"get_many: {len(keys)} keys but {len(outs)} outs")
            if _np is not None:
                for k, o in zip(keys, outs):
                    if isinstance(o, _np.ndarray):
                        _no_objects(o.dtype, f"get_many('{k}')")
                    _c_order(o, f"get_many('{k}', outs=...)")
        self._s.read_many_into(keys, outs, r)
        return outs

    def read_range(self, key: str, offset: int, out: Any, rank: Optional[int] = None) -> Any:
        """Fills `out` with the bytes of the value from `offset` (only the
        chunks touched are read and verified); returns `out`."""
        _not_none(out, f"read_range('{key}')")
        _c_order(out, f"read_range('{key}')")
        self._s.read_range(key, _int(offset, 0, _U64, f"read_range('{key}'): offset"), out, _rank(rank))
        return out

    def get_shared(self, key: str) -> bytes:
        """Collective: a shared object, read once by rank 0 and broadcast."""
        if not isinstance(key, str):
            # takes part with a key no rank names (rank 0's is then refused
            # on the others, as for any other key; this one raises its own)
            _refused(lambda _: self._s.get_shared(""), None)
            raise TypeError(f"get_shared: key must be a str, got {type(key).__name__} {key!r}")
        return self._s.get_shared(key)

    def value_size(self, key: str, rank: Optional[int] = None) -> int:
        """The size in bytes of the value of `key`."""
        return self._s.size_of(key, _rank(rank))

    def tags(self, key: str, rank: Optional[int] = None) -> Dict[str, Any]:
        """The tags of `key` as a dict (widths kept: see cairn._tags)."""
        return _tags.to_dict(self._s.tags(key, _rank(rank)))

    def keys(self, rank: Optional[int] = None) -> List[str]:
        """The keys of this rank's namespace (or `rank`'s), in key order."""
        return self._s.keys(_rank(rank))

    def list(self, rank: Optional[int] = None) -> List[ObjectInfo]:
        """The objects of a namespace with their sizes and tags."""
        return [ObjectInfo(k, n, _tags.to_dict(t)) for k, n, t in self._s.list(_rank(rank))]

    def __contains__(self, key: str) -> bool:
        try:
            self._s.size_of(key, -1)
            return True
        except KeyError:
            return False

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    # ---- queries ----
    def query(self, where: Any = None, *, rank: Optional[int] = None, **conds: Any) -> List[str]:
        """Local: the keys of a namespace whose tags meet every condition.

        Conditions are keywords (or a dict, for names that are not
        identifiers): a plain value means equal, else cairn.exists,
        cairn.range(lo, hi), cairn.prefix(p), cairn.wildcard(pattern),
        e.g. ``query(step=5, name=cairn.prefix("a"), t=cairn.range(0, 1))``.
        """
        return self._s.query(_tags.conditions(where, conds), _rank(rank))

    def query_all(self, where: Any = None, **conds: Any) -> List[Tuple[int, str]]:
        """Collective: (rank, key) of every namespace's matches, for all ranks."""
        try:
            c = _tags.conditions(where, conds)
        except Exception as e:
            _refused(self._s.query_all_refused, e)
            raise
        return [tuple(h) for h in self._s.query_all(c)]

    # ---- streams ----
    def open_stream(self, key: str, mode: str = "rb", tags: Optional[Dict[str, Any]] = None,
                    rank: Optional[int] = None) -> Stream:
        """An io.RawIOBase over object `key`: "wb" writes it (it becomes the
        object, with `tags`, when closed), "rb" reads it (of `rank`'s
        namespace). np.save/np.load, pickle and json work on it."""
        if mode == "wb":
            if rank is not None:
                raise InvalidArgument("open_stream(..., 'wb'): a rank writes only its own namespace")
            return Stream(self._s.open_write(key, _tags.to_list(tags) or []), True, key)
        if mode == "rb":
            return Stream(self._s.open_read(key, _rank(rank)), False, key)
        raise InvalidArgument(f"open_stream mode must be 'wb' or 'rb', got {mode!r}")

    # ---- global arrays (cairn._array has the rules) ----
    def put_array(self, name: str, local: Any, start: Optional[Any] = None,
                  global_shape: Optional[Any] = None, tags: Optional[Dict[str, Any]] = None,
                  order: Optional[str] = None, statistics: bool = False,
                  checksum_grain: Optional[int] = None) -> None:
        """Local: puts `local` (a NumPy array, or anything numpy.asarray
        takes) as the block at `start` (default all zeros) of global array
        `name` of shape `global_shape` (default local.shape). A rank may
        put several blocks of an array, or none; the next commit holds
        exactly the blocks put since the last one (an array no rank put is
        carried as it was). A C-contiguous block is written from its own
        memory; ``order="F"`` takes a Fortran-ordered block and its
        dimensions reversed (the C++ kColumnMajor). Tags: as put's (where
        ranks disagree, the lowest rank's value wins). Commit checks that
        the ranks agree on dtype and shape and that blocks do not overlap.
        ``statistics=True`` records the block's minimum and maximum.
        ``checksum_grain``: the block is checksummed in pieces cut at the
        data file's multiples of this many bytes, so that a read of a part
        reads and verifies only the pieces holding it; a multiple of 4096,
        or 0 for the store's chunk_size (None: the library's default,
        4096; anything else is cairn.InvalidArgument). See the C++
        ArrayPutOptions::checksum_grain."""
        _array.put_array(self._s, name, local, start, global_shape, tags, order, statistics, checksum_grain)

    def array(self, name: str) -> Array:
        """Local: the global array `name` of this handle's revision, as a
        cairn.Array (shape, dtype, tags, blocks; ``[...]`` reads any part
        of it). NotFound if there is none."""
        return Array(self._s, self._s.array_info(name, False))

    def arrays(self) -> List[Array]:
        """Local: the global arrays of this handle's revision, by name."""
        return [Array(self._s, a) for a in self._s.list_arrays()]

    def query_arrays(self, where: Any = None, **conds: Any) -> List[str]:
        """Local: the names of the arrays whose tags meet every condition
        (written as for query())."""
        return self._s.query_arrays(_tags.conditions(where, conds))

    def delete_array(self, name: str) -> None:
        """Local: array `name` is absent from the next revision (NotFound if
        this revision has none and none was put). Any rank may call it;
        a put of the same array in the same commit round fails the commit."""
        self._s.delete_array(name)

    # ---- revisions ----
    def commit(self) -> int:
        """Collective: every rank's changes become one atomic revision; returns it."""
        return self._s.commit()

    def commit_async(self) -> AsyncCommit:
        """Collective: starts a commit; returns a handle with .test(),
        .wait() (-> revision), .revision and .committed."""
        return self._s.commit_async()

    def flush(self) -> None:
        """Local write barrier: this rank's puts so far are made durable."""
        self._s.flush()

    def revisions(self) -> List[Revision]:
        """The retained revisions, oldest first."""
        return [Revision(*r) for r in self._s.revisions()]

    def pin(self, revision: int) -> None:
        """Collective: protects `revision` from keep_revisions and drop."""
        self._s.pin(self._revision_of("pin", revision))

    def unpin(self, revision: int) -> None:
        """Collective: removes the pin of `revision`."""
        self._s.unpin(self._revision_of("unpin", revision))

    def drop(self, revision: int) -> None:
        """Collective: removes `revision` for good."""
        self._s.drop(self._revision_of("drop", revision))

    def _revision_of(self, kind: str, revision: Any) -> int:
        """`revision` as a uint64 for the collective pin, unpin or drop; if
        refused, this rank still takes part (carrying the refusal), then
        raises its own error."""
        try:
            return _int(revision, 0, _U64, f"{kind}: revision")
        except Exception as e:
            _refused(lambda why: self._s.mark_refused(kind, why), e)
            raise

    def stats(self) -> Dict[str, int]:
        """This rank's I/O counters (cairn::IoStats)."""
        return self._s.stats()
