#!/usr/bin/env python3
"""Checks what `cairn get ARRAY --select ...` wrote against the arrays of
tests/array_tool_writer.cc (whose elements are formulas of their indices).

  array_check.py npy FILE ARRAY SELECT   FILE is a .npy of ARRAY[SELECT]
  array_check.py raw FILE ARRAY SELECT   FILE is ARRAY[SELECT]'s raw elements

The expected values and shape are computed here in plain Python (NumPy's
rules: "a" drops its dimension, "a:b" keeps it, negatives count from the
end). The .npy header is parsed here too; when NumPy is importable, the file
is also loaded with numpy.load and compared with NumPy's own slicing of the
whole array, so the header must be one NumPy accepts. Exit 0 if all agree.
"""
import ast
import itertools
import struct
import sys

ARRAYS = {
    # name: (shape, struct code, .npy descr, element formula)
    "temp": ((7, 10, 4), "d", "<f8", lambda i, j, k: i * 10000 + j * 100 + k + 0.5),
    "mask": ((5, 9), "h", "<i2", lambda i, j: 7 * i * j - 100),
    "grid": ((8, 8), "B", "|u1", lambda i, j: i * 8 + j),
}


def parse_select(text, shape):
    """[(start, stop, keep)] per dimension, NumPy's rules without clipping."""
    items = [t.strip() for t in text.split(",")] if text.strip() else []
    out = []
    for d, n in enumerate(shape):
        t = items[d] if d < len(items) else ":"
        if ":" in t:
            a, b = t.split(":")
            lo = int(a) if a.strip() else 0
            hi = int(b) if b.strip() else n
            lo += n if lo < 0 else 0
            hi += n if hi < 0 else 0
            out.append((lo, hi, True))
        else:
            i = int(t)
            i += n if i < 0 else 0
            out.append((i, i + 1, False))
    return out


def expected(name, select):
    shape, code, descr, f = ARRAYS[name]
    sel = parse_select(select, shape)
    values = [f(*idx) for idx in itertools.product(*(range(lo, hi) for lo, hi, _ in sel))]
    out_shape = tuple(hi - lo for lo, hi, keep in sel if keep)
    return out_shape, code, descr, values


def read_npy(data):
    if data[:6] != b"\x93NUMPY" or data[6:8] != b"\x01\x00":
        raise SystemExit(f"not a version 1.0 .npy file: {data[:8]!r}")
    hlen = struct.unpack_from("<H", data, 8)[0]
    if (10 + hlen) % 64 != 0 or data[10 + hlen - 1:10 + hlen] != b"\n":
        raise SystemExit(f"header of {hlen} bytes not padded to 64 / not ended by a newline")
    header = ast.literal_eval(data[10:10 + hlen].decode("latin1"))
    return header, data[10 + hlen:]


def main():
    mode, path, name, select = sys.argv[1:5]
    shape, code, descr, values = expected(name, select)
    data = open(path, "rb").read()
    if mode == "npy":
        header, body = read_npy(data)
        want = {"descr": descr, "fortran_order": False, "shape": shape}
        if header != want:
            raise SystemExit(f"header {header} != {want}")
    else:
        body = data
    got = list(struct.unpack(f"<{len(body) // struct.calcsize(code)}{code}", body)) \
        if len(body) % struct.calcsize(code) == 0 else None
    if got != values:
        raise SystemExit(f"{len(body)} bytes of data differ from the {len(values)} expected elements"
                         f" (first got {got[:5] if got else None}, want {values[:5]})")
    try:
        import numpy as np
    except ImportError:
        print("numpy not importable: checked with the plain-Python .npy parser only")
        return
    if mode == "npy":
        full_shape, _, _, f = ARRAYS[name]
        full = np.array([f(*i) for i in itertools.product(*map(range, full_shape))],
                        dtype=np.dtype(descr)).reshape(full_shape)
        a = np.load(path)
        index = tuple(slice(lo if lo != 0 else None, hi) if keep else lo
                      for lo, hi, keep in parse_select(select, full_shape))
        want = full[index]
        if a.dtype != want.dtype or a.shape != want.shape or not np.array_equal(a, want):
            raise SystemExit(f"numpy.load: {a.dtype} {a.shape} != {want.dtype} {want.shape} or values differ")
    print("ok")


if __name__ == "__main__":
    main()
