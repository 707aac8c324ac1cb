"""Global arrays from Python: Store.put_array and the cairn.Array handle of
Store.array(name) (include/cairn/array.h has the C++ contract).

Index space. An array's shape, a block's start and count, and the indices
of ``Array[...]`` are NumPy's (row-major: the last index varies fastest).

Writing (``Store.put_array``). A C-contiguous block is written from its own
memory (no copy; the GIL is released while the library writes it). Any
other layout is made C-contiguous first (one copy), except with
``order="F"``: then the block must be Fortran-ordered (it is made so if
not) and its shape, `start` and `global_shape` are taken as a Fortran
program gives them, reversed, as the C++ ArrayOrder::kColumnMajor does:
the stored array is the transpose, read back C-ordered (``.T`` of what is
read is the Fortran view, without a copy). Element types: int8..int64,
uint8..uint64, float32 and float64 (native or byte-swapped; a byte-swapped
block is converted, one copy); others raise cairn.InvalidArgument.

Reading (``Array[...]``). NumPy's basic indexing: ints (negative ones count
from the end), slices (any start/stop/step, negative too), Ellipsis and
None. Every read makes a new array that owns its memory. With steps of 1
the box is read straight into that array (one GetArray, GIL released, no
copy). With a step other than 1 in some dimension (or a negative step), the
bounding box of the selection is read into a temporary array and the
result is the strided copy of it: a large step reads what it skips (the
library reads only the byte runs of the box, but the box includes the
skipped elements); select sparse elements with several reads instead.
Advanced indexing (integer or boolean arrays) raises IndexError.
"""
from __future__ import annotations

import operator
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from . import _tags
from ._errors import InvalidArgument, IOError  # noqa: A004

try:
    import numpy as _np
except ImportError:  # pragma: no cover - numpy is optional
    _np = None

# cairn::DType codes (include/cairn/array.h) by NumPy dtype name.
_CODES = {"int8": 1, "int16": 2, "int32": 3, "int64": 4, "uint8": 5, "uint16": 6,
          "uint32": 7, "uint64": 8, "float32": 9, "float64": 10}
_NAMES = {v: k for k, v in _CODES.items()}


class Block(NamedTuple):
    """One block of an array: the namespace (rank of the writing job) that
    holds it, its box in the global index space, and, when it was put with
    ``statistics=True``, its smallest and largest element (``min``/``max``,
    NaNs skipped, 64-bit integers rounded to float; None without)."""
    rank: int
    start: Tuple[int, ...]
    count: Tuple[int, ...]
    has_statistics: bool = False
    min: Optional[float] = None
    max: Optional[float] = None


def _need_numpy() -> None:
    if _np is None:
        raise InvalidArgument("global arrays need numpy")


def dtype_code(dt: Any, name: str) -> int:
    """The cairn::DType code of NumPy dtype `dt` (native byte order)."""
    code = _CODES.get(_np.dtype(dt).newbyteorder("=").name)
    if code is None:
        raise InvalidArgument(f"array '{name}': dtype {_np.dtype(dt)} is not supported (int8..int64, "
                              "uint8..uint64, float32, float64)")
    return code


def _empty(shape: Any, dtype: Any, name: str) -> Any:
    """A new array to read array `name` into; cairn.IOError naming the
    array, the shape and the bytes when memory cannot hold it (as the
    library's own out-of-memory errors are IOError), rather than NumPy's
    MemoryError (or its ValueError for a size past what NumPy can index)."""
    try:
        return _np.empty(shape, dtype=dtype)
    except (MemoryError, ValueError) as e:
        nbytes = _np.dtype(dtype).itemsize
        for d in shape:
            nbytes *= int(d)
        raise IOError(f"array '{name}': reading {tuple(int(d) for d in shape)} of {_np.dtype(dtype)} "
                      f"needs {nbytes} bytes: out of memory ({e})") from None


def _dims(v: Any, what: str, name: str, ndim: int) -> List[int]:
    try:
        out = [operator.index(x) for x in v]
    except TypeError:
        raise InvalidArgument(f"array '{name}': {what} must be a sequence of ints, got {v!r}") from None
    if len(out) != ndim:
        raise InvalidArgument(f"array '{name}': {what} has {len(out)} dimensions, the block {ndim}")
    return out


def put_array(s: Any, name: str, local: Any, start: Optional[Sequence[int]],
              global_shape: Optional[Sequence[int]], tags: Optional[Dict[str, Any]],
              order: Optional[str], statistics: bool, checksum_grain: Optional[int] = None) -> None:
    """Store.put_array (see there and the module's doc)."""
    _need_numpy()
    if checksum_grain is not None:
        if isinstance(checksum_grain, bool):
            raise InvalidArgument(f"array '{name}': checksum_grain must be an int, got {checksum_grain!r}")
        try:
            checksum_grain = operator.index(checksum_grain)
        except TypeError:
            raise InvalidArgument(f"array '{name}': checksum_grain must be an int, "
                                  f"got {checksum_grain!r}") from None
        if checksum_grain < 0:
            raise InvalidArgument(f"array '{name}': checksum_grain {checksum_grain} is negative "
                                  "(a multiple of 4096, or 0 for the chunk size)")
    a = local if isinstance(local, _np.ndarray) else _np.asarray(local)
    code = dtype_code(a.dtype, name)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if order in (None, "C"):
        fortran = False
        if not a.flags.c_contiguous:
            a = _np.ascontiguousarray(a)
    elif order == "F":
        fortran = True
        if not a.flags.f_contiguous:
            a = _np.asfortranarray(a)
    else:
        raise InvalidArgument(f"array '{name}': order must be 'C' or 'F', got {order!r}")
    st = [0] * a.ndim if start is None else _dims(start, "start", name, a.ndim)
    gs = list(a.shape) if global_shape is None else _dims(global_shape, "global_shape", name, a.ndim)
    # The buffer protocol refuses a 0-d array's reshape nowhere, but the library
    # wants 1 to 16 dimensions: it says so itself.
    s.put_array(name, a, code, gs, st, list(a.shape), fortran, _tags.to_list(tags), bool(statistics),
                checksum_grain)


def _plan(key: Any, shape: Tuple[int, ...]):
    """(start, count, steps, post-index, result shape) of a basic index."""
    if not isinstance(key, tuple):
        key = (key,)
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    if used > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {used} were indexed")
    i = next((j for j, k in enumerate(key) if k is Ellipsis), None)
    if i is not None:
        key = key[:i] + (slice(None),) * (len(shape) - used) + key[i + 1:]
    else:
        key = key + (slice(None),) * (len(shape) - used)
    start, count, post, out_shape = [], [], [], []
    strided = False
    d = 0
    for k in key:
        if k is None:
            post.append(None)
            out_shape.append(1)
            continue
        n = shape[d]
        if isinstance(k, slice):
            r = range(*k.indices(n))
            m = len(r)
            if m == 0:
                start.append(0)
                count.append(0)
            elif r.step > 0:
                start.append(r[0])
                count.append(r[-1] - r[0] + 1)
            else:
                start.append(r[-1])
                count.append(r[0] - r[-1] + 1)
            if r.step != 1 and m > 1:
                strided = True
            post.append(slice(None, None, r.step) if m > 1 else slice(None))
            out_shape.append(m)
        else:
            if isinstance(k, bool) or (_np is not None and isinstance(k, _np.bool_)):
                raise IndexError("boolean indices are not supported (basic indexing only)")
            try:
                i = operator.index(k)
            except TypeError:
                raise IndexError("only integers, slices (':'), ellipsis ('...') and None are valid "
                                 f"indices of a cairn.Array, got {type(k).__name__}") from None
            if i < -n or i >= n:
                raise IndexError(f"index {i} is out of bounds for axis {d} with size {n}")
            start.append(i + n if i < 0 else i)
            count.append(1)
            post.append(0)
        d += 1
    return start, count, strided, tuple(post), tuple(out_shape)


class Array:
    """A global array of the store's revision (Store.array(name)).

    ``.name``, ``.shape``, ``.dtype``, ``.ndim``, ``.size``, ``.nbytes``,
    ``.tags`` (dict), ``.block_count``, ``.regular`` and ``.blocks`` (a
    list of Block, fetched when first asked). ``a[...]`` reads any part of
    it on any rank count (see the module's doc for how steps are read);
    ``a.read(start, count, out=)`` reads a box into a buffer;
    ``numpy.asarray(a)`` reads the whole. Valid while its store is open.
    The attributes are those of the array when the handle was made: every
    read checks that the array still has that dtype and shape, and raises
    cairn.InvalidArgument if it was put again with others (get a new handle
    with Store.array(name)); it never reads the new bytes as the old dtype.
    """

    def __init__(self, s: Any, info: tuple) -> None:
        self._s = s
        name, code, shape, tags, nblocks, regular, blocks = info
        self.name: str = name
        self._code = code
        self.dtype = _np.dtype(_NAMES[code]) if code in _NAMES else None
        if self.dtype is None:
            raise InvalidArgument(f"array '{name}': unknown dtype code {code}")
        self.shape: Tuple[int, ...] = tuple(shape)
        self.tags: Dict[str, Any] = _tags.to_dict(tags)
        self.block_count: int = nblocks
        self.regular: bool = regular
        self._blocks: Optional[List[Block]] = [Block(*b) for b in blocks] if blocks else None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def blocks(self) -> List[Block]:
        """Every block of the array (asked of the store once)."""
        if self._blocks is None:
            self._blocks = [Block(*b) for b in self._s.array_info(self.name, True)[6]]
        return self._blocks

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return (f"<cairn.Array {self.name!r} shape={self.shape} dtype={self.dtype} "
                f"blocks={self.block_count}>")

    def read(self, start: Sequence[int], count: Sequence[int], out: Any = None) -> Any:
        """The box (start, count) as a new C-ordered array (or into `out`, a
        writable C-contiguous array or buffer of exactly its bytes)."""
        start = _dims(start, "start", self.name, self.ndim)
        count = _dims(count, "count", self.name, self.ndim)
        if any(x < 0 for x in start + count):
            raise InvalidArgument(f"array '{self.name}': start {start} and count {count} must not "
                                  "be negative")
        if any(a + c > n for a, c, n in zip(start, count, self.shape)):
            raise InvalidArgument(f"array '{self.name}': the box at {start} of {count} is not "
                                  f"inside the shape {self.shape}")
        if out is None:
            out = _empty(tuple(int(c) for c in count), self.dtype, self.name)
        elif isinstance(out, _np.ndarray) and (out.dtype != self.dtype or not out.flags.c_contiguous):
            raise InvalidArgument(f"array '{self.name}': out must be a C-contiguous {self.dtype} "
                                  f"array, got {out.dtype} {'C' if out.flags.c_contiguous else 'strided'}")
        self._s.get_array(self.name, start, count, out, self._code, self.shape)
        return out

    def __getitem__(self, key: Any) -> Any:
        start, count, strided, post, out_shape = _plan(key, self.shape)
        if 0 in count:
            return _np.empty(out_shape, dtype=self.dtype)
        if not strided:
            out = _empty(out_shape, self.dtype, self.name)
            self._s.get_array(self.name, start, count, out, self._code, self.shape)
            return out[()] if out.ndim == 0 else out
        box = _empty(tuple(count), self.dtype, self.name)
        self._s.get_array(self.name, start, count, box, self._code, self.shape)
        return box[post].copy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        a = self[...]
        return a if dtype is None else a.astype(dtype, copy=False)
