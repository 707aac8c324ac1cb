#!/usr/bin/env python3
"""Checks the recorded revisions of a combo store with tools/cairn_reader.py
(the independent reader): every retained recorded revision's namespaces,
shared namespace and array G must match the model combo wrote.
Usage: reader_check.py STORE MODEL"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import cairn_reader as cr  # noqa: E402
import xxhash  # noqa: E402


def tags_hash(tags):
    buf = b"T"
    for name, code, v in sorted(tags, key=lambda t: t[0]):
        buf += name + b"\0" + bytes([code])
        if 1 <= code <= 4:
            buf += struct.pack("<q", v)
        elif 5 <= code <= 8:
            buf += struct.pack("<Q", v)
        elif code in (9, 10):
            buf += struct.pack("<d", v)
        else:
            buf += v if isinstance(v, bytes) else v.encode()
        buf += b"|"
    return xxhash.xxh3_64_intdigest(buf)


def parse_ns(path):
    m = {}
    with open(path) as f:
        for line in f:
            k, size, vh, th = line.split()
            m[k] = (int(size), int(vh), int(th))
    return m


def arr_expected(gen, m, none_rank):
    rows, cols = 7 + gen % 11, 3 + gen % 5
    f64 = gen % 2 == 1
    es = 8 if f64 else 2
    out = bytearray(rows * cols * es)
    for r in range(m):
        if r == none_rank:
            continue
        r0 = rows * r // m
        nr = rows * (r + 1) // m - r0
        for i in range(nr):
            for j in range(cols):
                o = ((r0 + i) * cols + j) * es
                if f64:
                    out[o:o + 8] = struct.pack("<d", float(gen * 1000 + (r0 + i) * 37 + j))
                else:
                    out[o:o + 2] = struct.pack("<h", (gen * 31 + (r0 + i) * 7 + j) & 0x7fff)
    return (rows, cols), (10 if f64 else 2), bytes(out)


def main():
    store, model = sys.argv[1], sys.argv[2]
    if not os.path.exists(os.path.join(store, "MANIFEST")):
        print("reader: no store")
        return 0
    cr._load_xxhash()
    s = cr.Store(store)
    checked = 0
    bad = []
    for rev in s.manifest.revisions:
        base = os.path.join(model, "%d" % rev.number)
        if not os.path.exists(base + ".done"):
            continue
        for i in range(rev.ranks + 1):
            label = "shared" if i == rev.ranks else "ns%d" % i
            mp = base + "." + label
            if not os.path.exists(mp):
                bad.append("rev %d: reader sees %s, model has none" % (rev.number, label))
                continue
            want = parse_ns(mp)
            got = {}
            t = s.table(rev, i)
            for e in t.entries:
                if e.key.startswith(b"\0"):
                    continue
                val = cr.read_value(s, e, "rev %d %s" % (rev.number, label))
                got[e.key.decode()] = (e.size, xxhash.xxh3_64_intdigest(val), tags_hash(e.tags))
            if got != want:
                diff = sorted(set(got.items()) ^ set(want.items()))[:4]
                bad.append("rev %d %s: reader differs from model: %s" % (rev.number, label, diff))
        if os.path.exists(base + ".ns%d" % rev.ranks):
            bad.append("rev %d: reader says %d ranks, model has more" % (rev.number, rev.ranks))
        if os.path.exists(base + ".array"):
            present, gen, m, none_rank = (int(x) for x in open(base + ".array").read().split())
            arrs = {a.name: a for a in cr.load_arrays(s, rev)}
            if not present:
                if b"G" in arrs:
                    bad.append("rev %d: array G present, model says absent" % rev.number)
            else:
                shape, dt, want = arr_expected(gen, m, none_rank)
                a = arrs.get(b"G")
                if a is None:
                    bad.append("rev %d: array G missing" % rev.number)
                elif tuple(a.shape) != shape or a.dtype != dt:
                    bad.append("rev %d: array G shape/dtype %s %s" % (rev.number, a.shape, a.dtype))
                else:
                    got = cr.read_array_box(s, rev, a, [(0, shape[0]), (0, shape[1])])
                    if bytes(got) != want:
                        bad.append("rev %d: array G contents differ" % rev.number)
        checked += 1
    for b in bad:
        print("READER MISMATCH:", b)
    print("reader: %d revisions checked, %d problems" % (checked, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
