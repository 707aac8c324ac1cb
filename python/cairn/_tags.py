"""Tags and query conditions: Python values <-> cairn's typed tag values.

A tag crosses to the extension as ``(name, type code, payload)``, with the
type codes of include/cairn/tags.h. Widths are kept: a NumPy scalar is
stored with its width (``np.int32(5)`` as Int32), a NumPy array becomes an
array tag of its element type (flattened), a Python ``int`` is Int64
(UInt64 above 2**63 - 1), a ``float`` Float64, a ``str`` String and
``bytes`` Bytes. A list or tuple of numbers is an Int64 or Float64 array
(InvalidArgument if an int does not fit in Int64).

What is read back is decided by the stored type alone (a tag does not
record which Python type made it):

- Int64 and Float64 come back as Python ``int`` and ``float``: so do
  ``np.int64`` and ``np.float64`` scalars (equal values, not their NumPy
  type);
- Int8, Int16, Int32, UInt8, UInt16, UInt32, UInt64 and Float32 come back
  as that NumPy scalar type (``np.int32(5)`` as ``np.int32(5)``); so a
  Python int above 2**63 - 1 comes back as ``np.uint64``, and ``np.bool_``
  (stored as UInt8) as ``np.uint8`` 0 or 1;
- String comes back as ``str`` (``bytes`` if it is not UTF-8), Bytes as
  ``bytes``; arrays as 1-D NumPy arrays of their element type (a list of
  Python numbers without NumPy).
"""
from __future__ import annotations

import struct
from typing import Any, Dict, List, Tuple

from ._errors import InvalidArgument

try:
    import numpy as _np
except ImportError:  # pragma: no cover - numpy is optional
    _np = None

INT8, INT16, INT32, INT64 = 1, 2, 3, 4
UINT8, UINT16, UINT32, UINT64 = 5, 6, 7, 8
FLOAT32, FLOAT64, STRING, BYTES = 9, 10, 11, 12
ARRAY = 0x40

# type code -> (struct format, numpy dtype string), little-endian.
_NUMERIC = {
    INT8: ("b", "<i1"), INT16: ("h", "<i2"), INT32: ("i", "<i4"), INT64: ("q", "<i8"),
    UINT8: ("B", "<u1"), UINT16: ("H", "<u2"), UINT32: ("I", "<u4"), UINT64: ("Q", "<u8"),
    FLOAT32: ("f", "<f4"), FLOAT64: ("d", "<f8"),
}
_INT_KIND = {("i", 1): INT8, ("i", 2): INT16, ("i", 4): INT32, ("i", 8): INT64,
             ("u", 1): UINT8, ("u", 2): UINT16, ("u", 4): UINT32, ("u", 8): UINT64,
             ("f", 4): FLOAT32, ("f", 8): FLOAT64, ("b", 1): UINT8}


def _dtype_code(name: str, dtype: Any) -> int:
    code = _INT_KIND.get((dtype.kind, dtype.itemsize))
    if code is None:
        raise InvalidArgument(f"tag '{name}': numpy dtype {dtype} has no cairn tag type "
                              "(use int8..int64, uint8..uint64, float32 or float64)")
    return code


def encode(name: str, value: Any) -> Tuple[int, Any]:
    """(type code, payload) of one tag value."""
    if _np is not None:
        if isinstance(value, _np.ndarray) and value.ndim > 0:
            code = _dtype_code(name, value.dtype)
            le = _np.ascontiguousarray(value, dtype=_np.dtype(_NUMERIC[code][1])).ravel()
            return ARRAY | code, le.tobytes()
        if isinstance(value, (_np.generic, _np.ndarray)):
            value = value[()] if isinstance(value, _np.ndarray) else value
            if isinstance(value, _np.str_):
                return STRING, str(value)
            if isinstance(value, _np.bytes_):
                return BYTES, bytes(value)
            code = _dtype_code(name, value.dtype)
            return code, (float(value) if value.dtype.kind == "f" else int(value))
    if isinstance(value, bool):
        return INT64, int(value)
    if isinstance(value, int):
        if -(1 << 63) <= value < (1 << 63):
            return INT64, value
        if 0 <= value < (1 << 64):
            return UINT64, value
        raise InvalidArgument(f"tag '{name}': {value} does not fit in 64 bits")
    if isinstance(value, float):
        return FLOAT64, value
    if isinstance(value, str):
        return STRING, value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return BYTES, bytes(value)
    if isinstance(value, (list, tuple)) and value:
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            bad = [v for v in value if not -(1 << 63) <= v < (1 << 63)]
            if bad:
                raise InvalidArgument(f"tag '{name}': a list of ints is an Int64 array, and {bad[0]} "
                                      "does not fit in Int64 (use a numpy uint64 array)")
            return ARRAY | INT64, struct.pack(f"<{len(value)}q", *value)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return ARRAY | FLOAT64, struct.pack(f"<{len(value)}d", *value)
    raise InvalidArgument(f"tag '{name}': a value of type {type(value).__name__} cannot be a tag "
                          "(int, float, str, bytes, numpy scalars and numeric arrays can)")


def decode(code: int, payload: Any) -> Any:
    """The Python value of a tag read back (see the module's doc)."""
    if code & ARRAY:
        fmt, dt = _NUMERIC[code & ~ARRAY]
        if _np is not None:
            return _np.frombuffer(payload, dtype=dt).copy()
        n = len(payload) // struct.calcsize(fmt)
        return list(struct.unpack(f"<{n}{fmt}", payload))
    if code in (INT64, FLOAT64, STRING, BYTES) or _np is None:
        return payload
    return _np.dtype(_NUMERIC[code][1]).type(payload)


def to_list(tags: Dict[str, Any] | None) -> List[Tuple[str, int, Any]] | None:
    if tags is None:
        return None
    if not isinstance(tags, dict):
        raise InvalidArgument(f"tags must be a dict of name -> value, got {type(tags).__name__}")
    out = []
    for name, value in tags.items():
        if not isinstance(name, str) or not name:
            raise InvalidArgument(f"a tag name must be a non-empty str, got {name!r}")
        code, payload = encode(name, value)
        out.append((name, code, payload))
    return out


def to_dict(items: List[Tuple[str, int, Any]]) -> Dict[str, Any]:
    return {name: decode(code, payload) for name, code, payload in items}


# ---- Query conditions ----

class Condition:
    """One condition on a tag, for Store.query / Store.query_all."""

    __slots__ = ("op", "value", "upper")
    EXISTS, EQUAL, RANGE, PREFIX, WILDCARD = 0, 1, 2, 3, 4

    def __init__(self, op: int, value: Any = None, upper: Any = None) -> None:
        self.op, self.value, self.upper = op, value, upper

    def __repr__(self) -> str:
        names = ["exists", "equal", "range", "prefix", "wildcard"]
        if self.op == self.EXISTS:
            return "cairn.exists"
        if self.op == self.RANGE:
            return f"cairn.range({self.value!r}, {self.upper!r})"
        return f"cairn.{names[self.op]}({self.value!r})"


exists = Condition(Condition.EXISTS)


def equal(value: Any) -> Condition:
    """The tag equals `value` (numbers compare by value whatever their width)."""
    return Condition(Condition.EQUAL, value)


def range(lo: Any, hi: Any) -> Condition:  # noqa: A001 (cairn.range, as in the issue)
    """The tag lies in [lo, hi] (numbers by value, str/bytes bytewise)."""
    return Condition(Condition.RANGE, lo, hi)


def prefix(p: str | bytes) -> Condition:
    """The tag is a str or bytes starting with `p`."""
    return Condition(Condition.PREFIX, p)


def wildcard(pattern: str | bytes) -> Condition:
    """The tag is a str or bytes matching a shell pattern (* and ?)."""
    return Condition(Condition.WILDCARD, pattern)


def conditions(where: Any, kw: Dict[str, Any]) -> List[tuple]:
    """The extension's form of query conditions given as a dict and/or keywords."""
    items: List[Tuple[str, Any]] = []
    if where is not None:
        if isinstance(where, dict):
            items.extend(where.items())
        else:
            items.extend(where)
    items.extend(kw.items())
    out = []
    for name, cond in items:
        if not isinstance(cond, Condition):
            cond = equal(cond)
        if cond.op == Condition.EXISTS:
            out.append((name, 0, None, None))
        elif cond.op == Condition.EQUAL:
            out.append((name, 1, encode(name, cond.value), None))
        elif cond.op == Condition.RANGE:
            out.append((name, 2, encode(name, cond.value), encode(name, cond.upper)))
        else:
            if not isinstance(cond.value, (str, bytes)):
                raise InvalidArgument(f"query on '{name}': a prefix or wildcard must be str or bytes")
            out.append((name, cond.op, cond.value, None))
    return out
