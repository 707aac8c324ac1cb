#!/usr/bin/env python3
"""Independent reader for the cairn on-disk format, version 2 (and 1).

Written from doc/format.md alone, to prove that the document is enough to read
a store. Python 3 standard library only, plus the `xxhash` package for the
XXH3-64 checksums (pip install xxhash); with --no-verify the checksums are not
checked and xxhash is not needed.

Usage:
  cairn_reader.py [--no-verify] STORE ls
  cairn_reader.py [--no-verify] STORE keys [--revision R] [--rank R]
  cairn_reader.py [--no-verify] STORE get KEY [--rank R] [--revision R]
  cairn_reader.py [--no-verify] STORE dump [--revision R]
  cairn_reader.py [--no-verify] STORE arrays [--revision R] [--blocks]
  cairn_reader.py [--no-verify] STORE array NAME [--select SEL] [--revision R]

`keys` skips reserved keys (first byte 0x00: global arrays' descriptors and
blocks); `arrays` lists the global arrays (JSON), `array` writes a box of
one (SEL: per dimension, comma-separated, a:b, a:, :b, : or an index a) as
raw row-major elements.

`--rank` takes a rank number or `shared` (the shared namespace). Exit status:
0 success, 1 usage / not found, 2 Corruption, 3 NotSupported.
"""

import argparse
import hashlib
import json
import math
import os
import struct
import sys

FORMAT_VERSION = 1            # data files and index tables
MANIFEST_VERSION = 2          # the manifest (2: retention records)
SHARED_NS = 0xFFFFFFFF

MANIFEST_MAGIC = b"CAIRNMAN"
DATA_MAGIC = b"CAIRNDAT"
INDEX_MAGIC = b"CAIRNIDX"
MANIFEST_HEADER_LEN = 64
DATA_HEADER_LEN = 48          # bytes used by the data-file header
DATA_HEADER_RESERVED = 4096   # bytes reserved for it
INDEX_HEADER_LEN = 48
MAX_RECORD_PAYLOAD = 1 << 30
REC_REVISION = 1
REC_REVISION_SPACE = 2
REC_DROP = 3
REC_PIN = 4
REC_UNPIN = 5
KNOWN_RECORDS = (1, 2, 3, 4, 5)
DESCRIPTOR_LEN = 48
MAX_KEY_LEN = 65535

# Tag type codes.
T_NAMES = {1: "int8", 2: "int16", 3: "int32", 4: "int64",
           5: "uint8", 6: "uint16", 7: "uint32", 8: "uint64",
           9: "float32", 10: "float64", 11: "string", 12: "bytes"}
T_WIDTH = {1: 1, 2: 2, 3: 4, 4: 8, 5: 1, 6: 2, 7: 4, 8: 8, 9: 4, 10: 8}
T_STRUCT = {1: "b", 2: "h", 3: "i", 4: "q", 5: "B", 6: "H", 7: "I", 8: "Q",
            9: "f", 10: "d"}
ARRAY_BASE = 0x40


class CairnError(Exception):
    kind = "Error"
    status = 1

    def __str__(self):
        return "%s: %s" % (self.kind, self.args[0] if self.args else "")


class Corruption(CairnError):
    kind = "Corruption"
    status = 2


class NotSupported(CairnError):
    kind = "NotSupported"
    status = 3


class NotFound(CairnError):
    kind = "NotFound"
    status = 1


# --------------------------------------------------------------------------
# Checksum

_xxh3 = None


def _load_xxhash():
    global _xxh3
    try:
        import xxhash  # noqa: F401
    except ImportError:
        sys.stderr.write(
            "cairn_reader: the Python package 'xxhash' is required to verify "
            "XXH3-64 checksums.\n  Install it with:  python3 -m pip install "
            "xxhash\n  or run with --no-verify to skip all checksum checks.\n")
        sys.exit(4)
    _xxh3 = xxhash.xxh3_64_intdigest
    if _xxh3(b"") != 0x2D06800538D394C2:
        sys.stderr.write("cairn_reader: xxhash gives the wrong XXH3-64 test "
                         "vector for zero bytes\n")
        sys.exit(4)


def checksum(data):
    return _xxh3(data)


# --------------------------------------------------------------------------
# Primitive decoding


class Cursor:
    """Reads primitive encodings from a bytes object within [pos, end)."""

    def __init__(self, buf, pos=0, end=None, what="data"):
        self.buf = buf
        self.pos = pos
        self.end = len(buf) if end is None else end
        self.what = what

    def remaining(self):
        return self.end - self.pos

    def _need(self, n, field):
        if n < 0 or self.pos + n > self.end:
            raise Corruption("%s: %s runs past the end (needs %d bytes at "
                             "offset %d, %d left)" % (self.what, field, n,
                                                      self.pos,
                                                      self.end - self.pos))

    def raw(self, n, field="bytes"):
        self._need(n, field)
        b = self.buf[self.pos:self.pos + n]
        self.pos += n
        return b

    def u8(self, field="u8"):
        self._need(1, field)
        v = self.buf[self.pos]
        self.pos += 1
        return v

    def u16(self, field="u16"):
        return struct.unpack("<H", self.raw(2, field))[0]

    def u32(self, field="u32"):
        return struct.unpack("<I", self.raw(4, field))[0]

    def u64(self, field="u64"):
        return struct.unpack("<Q", self.raw(8, field))[0]

    def varint(self, field="varint"):
        result = 0
        for i in range(10):
            self._need(1, field)
            b = self.buf[self.pos]
            self.pos += 1
            if i == 9 and b > 1:
                raise Corruption("%s: %s: malformed varint (10th byte %d > 1)"
                                 % (self.what, field, b))
            result |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                return result
        raise Corruption("%s: %s: varint longer than 10 bytes"
                         % (self.what, field))

    def varint32(self, field="varint32"):
        v = self.varint(field)
        if v > 0xFFFFFFFF:
            raise Corruption("%s: %s: varint32 value %d does not fit 32 bits"
                             % (self.what, field, v))
        return v

    def zigzag(self, field="zigzag"):
        v = self.varint(field)
        return (v >> 1) ^ -(v & 1)

    def bytes_(self, field="bytes"):
        n = self.varint(field + " length")
        return self.raw(n, field)


# --------------------------------------------------------------------------
# Manifest


class Descriptor:
    __slots__ = ("ns", "file_id", "flags", "offset", "length", "checksum",
                 "objects", "value_bytes")

    def to_json(self):
        return {"file_id": self.file_id, "flags": self.flags,
                "offset": self.offset, "length": self.length,
                "checksum": "0x%016x" % self.checksum,
                "objects": self.objects, "value_bytes": self.value_bytes}


class Revision:
    def __init__(self):
        self.number = 0
        self.parent = 0
        self.time_ns = 0
        self.ranks = 0
        self.files = 0
        self.high_water = []
        self.descriptors = []   # ranks 0..R-1, then shared
        self.record_offset = 0

    def namespaces(self):
        """(label, ns id, descriptor) for ranks then shared."""
        out = []
        for i, d in enumerate(self.descriptors):
            if i < self.ranks:
                out.append((i, i, d))
            else:
                out.append(("shared", SHARED_NS, d))
        return out

    def summary(self):
        return {
            "revision": self.number,
            "parent": self.parent,
            "time_ns": self.time_ns,
            "time": iso_time(self.time_ns),
            "ranks": self.ranks,
            "files": self.files,
            "high_water": list(self.high_water),
            "objects": sum(d.objects for d in self.descriptors),
            "value_bytes": sum(d.value_bytes for d in self.descriptors),
            "index_bytes": sum(d.length for d in self.descriptors),
        }


def iso_time(ns):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ns // 10**9))


class Manifest:
    def __init__(self):
        self.version = 0
        self.store_id = b""
        self.created_ns = 0
        self.revisions = []      # retained revisions, oldest first
        self.dropped = set()     # removed by drop records or expiry
        self.pinned = set()
        self.intact_end = 0      # end of the last intact record
        self.file_size = 0
        self.torn_tail = 0       # bytes after the last intact record
        self.damaged = []        # (offset, length) of damaged records skipped


def parse_manifest(path, verify):
    try:
        with open(path, "rb") as f:
            buf = f.read()
    except FileNotFoundError:
        raise NotFound("no MANIFEST at %s" % path)
    m = Manifest()
    m.file_size = len(buf)
    if len(buf) < MANIFEST_HEADER_LEN:
        raise Corruption("MANIFEST: file of %d bytes is shorter than the "
                         "64-byte header" % len(buf))
    c = Cursor(buf, 0, MANIFEST_HEADER_LEN, "MANIFEST header")
    magic = c.raw(8)
    version = c.u32()
    hlen = c.u32()
    store_id = c.raw(16)
    created = c.u64()
    flags = c.u32()  # bit 0: a revision was committed; other bits ignored
    c.raw(12)  # reserved: ignored on read
    stored = c.u64()
    if magic != MANIFEST_MAGIC:
        raise Corruption("MANIFEST: bad magic %r" % magic)
    if verify and checksum(buf[0:56]) != stored:
        raise Corruption("MANIFEST: header checksum mismatch")
    if version > MANIFEST_VERSION:
        raise NotSupported("MANIFEST: format version %d is newer than %d"
                           % (version, MANIFEST_VERSION))
    if version < 1:
        raise Corruption("MANIFEST: format version %d" % version)
    if hlen != MANIFEST_HEADER_LEN:
        raise Corruption("MANIFEST: header length %d, expected 64" % hlen)
    m.version = version
    m.store_id = store_id
    m.created_ns = created

    pos = MANIFEST_HEADER_LEN
    last_rev = 0
    retained = {}  # number -> Revision, in log order
    while pos < len(buf):
        rec = _record_at(buf, pos, verify)
        if rec is None:
            # A damaged record: the log goes on at the first later offset
            # where a record of any type is intact (doc/format.md,
            # "Damaged records"; one of an unknown type is then refused
            # below); none: a torn (or damaged) final record.
            # Without checksums (--no-verify) a record cannot be recognized
            # reliably: the damage then ends the log.
            nxt = None
            for p in range(pos + 1, len(buf) - 15 if verify else 0):
                if struct.unpack_from("<I", buf, p + 4)[0] != 0 and \
                        _record_at(buf, p, True) is not None:
                    nxt = p
                    break
            if nxt is None:
                m.torn_tail = len(buf) - pos
                break
            m.damaged.append((pos, nxt - pos))
            pos = nxt
            continue
        lenient = bool(m.damaged)  # a lost record may explain what follows
        L, rtype, payload = rec
        if rtype not in KNOWN_RECORDS:
            raise NotSupported("MANIFEST: record type %d at offset %d"
                               % (rtype, pos))
        where = "MANIFEST record at offset %d" % pos

        def remove(number, how):
            if lenient and number not in retained:
                return  # the lost record held this revision, or removed it
            if lenient:
                m.pinned.discard(number)  # the lost record was its unpin
            if number not in retained:
                raise Corruption("%s: %s of revision %d, which is not retained"
                                 % (where, how, number))
            if number in m.pinned:
                raise Corruption("%s: %s of pinned revision %d"
                                 % (where, how, number))
            del retained[number]
            m.dropped.add(number)

        if rtype in (REC_REVISION, REC_REVISION_SPACE):
            expires = []
            if rtype == REC_REVISION:
                r = _parse_revision(payload, pos)
            else:
                c = Cursor(payload, what=where)
                blen = c.u32()
                r = _parse_revision(c.raw(blen), pos)
                c.varint()  # the writer's extent size: informational
                n = c.varint()
                prev = None
                for _ in range(n):
                    fid, start, length = c.varint32(), c.varint(), c.varint()
                    if length == 0 or fid >= r.files:
                        raise Corruption("%s: malformed live range" % where)
                    if prev and (fid, start) < (prev[0], prev[1] + prev[2]):
                        raise Corruption("%s: live ranges out of order" % where)
                    prev = (fid, start, length)
                for _ in range(c.varint()):
                    expires.append(c.varint())
                if c.remaining():
                    raise Corruption("%s: %d trailing bytes" % (where, c.remaining()))
            if r.number <= last_rev:
                raise Corruption("MANIFEST: revision %d at offset %d does not "
                                 "follow revision %d" % (r.number, pos, last_rev))
            last_rev = r.number
            for e in expires:
                remove(e, "expiry")
            retained[r.number] = r
        else:
            if len(payload) != 8:
                raise Corruption("%s: payload of %d bytes, expected 8" % (where, len(payload)))
            number = struct.unpack("<Q", payload)[0]
            if rtype == REC_DROP:
                remove(number, "drop")
            elif number not in retained and lenient:
                pass  # about a revision a lost record held or removed
            elif number not in retained:
                raise Corruption("%s: pin/unpin of revision %d, which is not retained"
                                 % (where, number))
            elif rtype == REC_PIN:
                m.pinned.add(number)
            else:
                m.pinned.discard(number)
        pos += 8 + L + 8
    if flags & 1 and last_rev == 0:
        raise Corruption("MANIFEST: no intact revision record after the header "
                         "(offset 64, %d bytes in the file), although the header "
                         "says a revision was committed" % len(buf))
    m.intact_end = pos
    m.revisions = list(retained.values())
    return m


def _record_at(buf, pos, verify):
    """(L, type, payload) if a record with intact framing and checksum
    starts at pos, else None."""
    if len(buf) - pos < 16:
        return None
    L, rtype = struct.unpack_from("<II", buf, pos)
    if L > MAX_RECORD_PAYLOAD or pos + 8 + L + 8 > len(buf):
        return None
    if verify:
        stored = struct.unpack_from("<Q", buf, pos + 8 + L)[0]
        if checksum(buf[pos:pos + 8 + L]) != stored:
            return None
    return L, rtype, buf[pos + 8:pos + 8 + L]


def _parse_revision(payload, rec_off):
    what = "MANIFEST revision record at offset %d" % rec_off
    c = Cursor(payload, what=what)
    r = Revision()
    r.record_offset = rec_off
    r.number = c.u64()
    r.parent = c.u64()
    r.time_ns = c.u64()
    r.ranks = c.u32()
    r.files = c.u32()
    expect = 32 + 8 * r.files + DESCRIPTOR_LEN * (r.ranks + 1)
    if len(payload) != expect:
        raise Corruption("%s: payload length %d, expected 32 + 8F + 48(R+1) "
                         "= %d (R=%d, F=%d)" % (what, len(payload), expect,
                                                r.ranks, r.files))
    if r.number < 1:
        raise Corruption("%s: revision number 0" % what)
    r.high_water = [c.u64() for _ in range(r.files)]
    for i in range(r.ranks + 1):
        d = Descriptor()
        d.ns = i if i < r.ranks else SHARED_NS
        d.file_id = c.u32()
        d.flags = c.u32()           # reserved: ignored
        d.offset = c.u64()
        d.length = c.u64()
        d.checksum = c.u64()
        d.objects = c.u64()
        d.value_bytes = c.u64()
        if d.length and d.file_id >= r.files:
            raise Corruption("%s: descriptor %d names data file %d >= F=%d"
                             % (what, i, d.file_id, r.files))
        r.descriptors.append(d)
    return r


# --------------------------------------------------------------------------
# Data files


class Store:
    def __init__(self, path, verify=True):
        self.path = path
        self.verify = verify
        self.manifest = parse_manifest(os.path.join(path, "MANIFEST"), verify)
        self._files = {}
        self._headers = {}

    def data_path(self, file_id):
        return os.path.join(self.path, "data.%05d" % file_id)

    def data_file(self, file_id):
        f = self._files.get(file_id)
        if f is None:
            p = self.data_path(file_id)
            try:
                f = open(p, "rb")
            except FileNotFoundError:
                raise Corruption("data file %s is missing" % p)
            self._files[file_id] = f
            self._headers[file_id] = self._check_data_header(file_id, f)
        return f

    def _check_data_header(self, file_id, f):
        name = "data.%05d" % file_id
        f.seek(0)
        buf = f.read(DATA_HEADER_LEN)
        if len(buf) < DATA_HEADER_LEN:
            raise Corruption("%s: shorter than its header" % name)
        c = Cursor(buf, what=name + " header")
        magic = c.raw(8)
        version = c.u32()
        fid = c.u32()
        store_id = c.raw(16)
        c.raw(8)  # reserved
        stored = c.u64()
        if magic != DATA_MAGIC:
            raise Corruption("%s: bad magic %r" % (name, magic))
        if self.verify and checksum(buf[0:40]) != stored:
            raise Corruption("%s: header checksum mismatch" % name)
        if version > FORMAT_VERSION:
            raise NotSupported("%s: format version %d" % (name, version))
        if version < 1:
            raise Corruption("%s: format version %d" % (name, version))
        if fid != file_id:
            raise Corruption("%s: header says data file id %d" % (name, fid))
        if store_id != self.manifest.store_id:
            raise Corruption("%s: store id %s differs from the manifest's %s"
                             % (name, store_id.hex(),
                                self.manifest.store_id.hex()))
        return {"file": name, "version": version, "file_id": fid,
                "store_id": store_id.hex(),
                "size": os.fstat(f.fileno()).st_size}

    def read_at(self, file_id, offset, length, what):
        if offset < DATA_HEADER_RESERVED and length:
            raise Corruption("%s: offset %d lies in the data file header"
                             % (what, offset))
        f = self.data_file(file_id)
        f.seek(offset)
        b = f.read(length)
        if len(b) != length:
            raise Corruption("%s: data.%05d ends before offset %d + %d"
                             % (what, file_id, offset, length))
        return b

    def close(self):
        for f in self._files.values():
            f.close()

    # ---- revisions

    def revision(self, number=None):
        revs = self.manifest.revisions
        if not revs:
            raise NotFound("the store has no committed revision")
        if number is None:
            return revs[-1]
        for r in revs:
            if r.number == number:
                return r
        if number in self.manifest.dropped:
            raise NotFound("revision %d was dropped" % number)
        raise NotFound("no revision %d (have %s)"
                       % (number, ", ".join(str(r.number) for r in revs)))

    # ---- index tables

    def table(self, rev, index):
        """Parse the index table of namespace `index` (0..R-1, R = shared)."""
        d = rev.descriptors[index]
        ns = index if index < rev.ranks else SHARED_NS
        label = "shared" if ns == SHARED_NS else "rank %d" % index
        what = "revision %d %s index table (data.%05d+%d)" % (
            rev.number, label, d.file_id, d.offset)
        if d.length == 0:
            return Table(ns, rev.number, [], [])
        buf = self.read_at(d.file_id, d.offset, d.length, what)
        if self.verify and checksum(buf) != d.checksum:
            raise Corruption("%s: bytes do not match the descriptor checksum"
                             % what)
        return parse_table(buf, what, self.verify, ns)


class Entry:
    __slots__ = ("key", "kind", "size", "inline", "chunks", "tags")


class Chunk:
    __slots__ = ("file_id", "offset", "stored_len", "codec", "raw_len",
                 "checksum")

    def to_json(self):
        return {"file_id": self.file_id, "offset": self.offset,
                "stored_length": self.stored_len, "codec": self.codec,
                "raw_length": self.raw_len,
                "checksum": "0x%016x" % self.checksum}


class Table:
    def __init__(self, ns, revision, names, entries, flags=0, version=1):
        self.ns = ns
        self.revision = revision
        self.names = names
        self.entries = entries
        self.flags = flags
        self.version = version

    def find(self, key):
        lo, hi = 0, len(self.entries)
        while lo < hi:
            mid = (lo + hi) // 2
            k = self.entries[mid].key
            if k < key:
                lo = mid + 1
            elif k > key:
                hi = mid
            else:
                return self.entries[mid]
        return None


def parse_table(buf, what, verify, expect_ns):
    if len(buf) < INDEX_HEADER_LEN + 8:
        raise Corruption("%s: %d bytes, shorter than header + checksum"
                         % (what, len(buf)))
    stored = struct.unpack_from("<Q", buf, len(buf) - 8)[0]
    if verify and checksum(buf[:-8]) != stored:
        raise Corruption("%s: table checksum mismatch" % what)
    end = len(buf) - 8
    c = Cursor(buf, 0, end, what)
    magic = c.raw(8)
    version = c.u16()
    flags = c.u16()
    ns = c.u32()
    revision = c.u64()
    E = c.u64()
    N = c.u64()
    c.u64()  # reserved
    if magic != INDEX_MAGIC:
        raise Corruption("%s: bad magic %r" % (what, magic))
    if version > FORMAT_VERSION:
        raise NotSupported("%s: format version %d" % (what, version))
    if version < 1:
        raise Corruption("%s: format version %d" % (what, version))
    if ns != expect_ns:
        raise Corruption("%s: table is for namespace 0x%x, expected 0x%x"
                         % (what, ns, expect_ns))
    # Every name and entry takes at least one byte.
    if E + N > end - INDEX_HEADER_LEN:
        raise Corruption("%s: counts E=%d N=%d do not fit in the table"
                         % (what, E, N))
    names = []
    seen = set()
    for i in range(N):
        nm = c.bytes_("tag name %d" % i)
        if nm in seen:
            raise Corruption("%s: tag name %r appears twice" % (what, nm))
        seen.add(nm)
        names.append(nm)
    entries = []
    prev = None
    for i in range(E):
        body = c.bytes_("entry %d" % i)
        e = parse_entry(body, "%s entry %d" % (what, i), names)
        if prev is not None and not prev < e.key:
            raise Corruption("%s: entry %d key %r is not above %r"
                             % (what, i, e.key, prev))
        prev = e.key
        entries.append(e)
    if c.pos != end:
        raise Corruption("%s: %d bytes after the last entry"
                         % (what, end - c.pos))
    return Table(ns, revision, names, entries, flags, version)


def parse_entry(body, what, names):
    c = Cursor(body, what=what)
    e = Entry()
    e.key = c.bytes_("key")
    if not 1 <= len(e.key) <= MAX_KEY_LEN:
        raise Corruption("%s: key of %d bytes" % (what, len(e.key)))
    e.kind = c.u8("value kind")
    e.size = c.varint("value size")
    e.inline = None
    e.chunks = []
    if e.kind == 0:
        e.inline = c.raw(e.size, "inline value")
    elif e.kind == 1:
        n = c.varint("chunk count")
        if n > c.remaining():
            raise Corruption("%s: chunk count %d does not fit" % (what, n))
        total = 0
        for j in range(n):
            ch = Chunk()
            ch.file_id = c.varint32("chunk %d file id" % j)
            ch.offset = c.varint("chunk %d offset" % j)
            ch.stored_len = c.varint("chunk %d stored length" % j)
            ch.codec = c.u8("chunk %d codec" % j)
            if ch.codec != 0:
                ch.raw_len = c.varint("chunk %d raw length" % j)
            else:
                ch.raw_len = ch.stored_len
            ch.checksum = c.u64("chunk %d checksum" % j)
            total += ch.raw_len
            e.chunks.append(ch)
        if total != e.size:
            raise Corruption("%s: chunks add up to %d bytes, value size is %d"
                             % (what, total, e.size))
    else:
        raise NotSupported("%s: value kind %d" % (what, e.kind))
    ntags = c.varint("tag count")
    if ntags > c.remaining():
        raise Corruption("%s: tag count %d does not fit" % (what, ntags))
    e.tags = []
    seen = set()
    for j in range(ntags):
        tw = "%s tag %d" % (what, j)
        nid = c.varint32("tag %d name id" % j)
        if nid >= len(names):
            raise Corruption("%s: name id %d, dictionary has %d names"
                             % (tw, nid, len(names)))
        if nid in seen:
            raise Corruption("%s: tag name %r repeated" % (tw, names[nid]))
        seen.add(nid)
        code = c.u8("tag %d type" % j)
        e.tags.append((names[nid], code, decode_tag(c, code, tw)))
    if c.pos != c.end:
        raise Corruption("%s: %d bytes after the last tag"
                         % (what, c.end - c.pos))
    return e


def _check_fits(v, code, what):
    w = T_WIDTH[code] * 8
    if code <= 4:
        ok = -(1 << (w - 1)) <= v < (1 << (w - 1))
    else:
        ok = 0 <= v < (1 << w)
    if not ok:
        raise Corruption("%s: value %d does not fit %s" % (what, v,
                                                           T_NAMES[code]))
    return v


def decode_tag(c, code, what):
    if 1 <= code <= 4:
        return _check_fits(c.zigzag(), code, what)
    if 5 <= code <= 8:
        return _check_fits(c.varint(), code, what)
    if code == 9:
        return struct.unpack("<f", c.raw(4, "float32"))[0]
    if code == 10:
        return struct.unpack("<d", c.raw(8, "float64"))[0]
    if code == 11 or code == 12:
        return c.bytes_(T_NAMES[code])
    if ARRAY_BASE + 1 <= code <= ARRAY_BASE + 10:
        t = code - ARRAY_BASE
        n = c.varint("array length")
        w = T_WIDTH[t]
        if n > c.remaining() // w:
            raise Corruption("%s: array of %d %s does not fit"
                             % (what, n, T_NAMES[t]))
        raw = c.raw(n * w, "array")
        return list(struct.unpack("<%d%s" % (n, T_STRUCT[t]), raw))
    raise NotSupported("%s: tag type code 0x%02x" % (what, code))


def type_name(code):
    if code in T_NAMES:
        return T_NAMES[code]
    if ARRAY_BASE + 1 <= code <= ARRAY_BASE + 10:
        return T_NAMES[code - ARRAY_BASE] + "[]"
    return "0x%02x" % code


def json_float(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def tag_json(code, v):
    """Plain JSON value of a tag: numbers, strings (UTF-8 text), bytes as
    "0x" + lowercase hex, arrays as lists."""
    base = code - ARRAY_BASE if code > ARRAY_BASE else code
    if base in (9, 10):
        return [json_float(x) for x in v] if isinstance(v, list) \
            else json_float(v)
    if code == 11:
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return {"hex": v.hex()}
    if code == 12:
        return "0x" + v.hex()
    return v


def key_json(k):
    try:
        return k.decode("utf-8")
    except UnicodeDecodeError:
        return k.decode("utf-8", "surrogateescape")


def read_value(store, entry, what):
    if entry.kind == 0:
        return entry.inline
    parts = []
    for j, ch in enumerate(entry.chunks):
        cw = "%s chunk %d" % (what, j)
        if ch.codec != 0:
            raise NotSupported("%s: codec %d" % (cw, ch.codec))
        b = store.read_at(ch.file_id, ch.offset, ch.stored_len, cw)
        if store.verify and checksum(b) != ch.checksum:
            raise Corruption("%s: checksum mismatch (data.%05d+%d, %d bytes)"
                             % (cw, ch.file_id, ch.offset, ch.stored_len))
        parts.append(b)
    return b"".join(parts)


# --------------------------------------------------------------------------
# Global arrays (doc/format.md, "Global arrays")

ARRAY_MAGIC = 0x59524143
ARRAY_DESC_PREFIX = b"\x00a"
ARRAY_BLOCK_PREFIX = b"\x00A"
MAX_ARRAY_DIMS = 16


class ArrayDesc:
    __slots__ = ("name", "dtype", "shape", "flags", "blocks", "tags",
                 "regular", "stats")


def parse_array_desc(name, buf, tags, what, ranks):
    """The descriptor's bytes -> ArrayDesc with blocks as (ns, seq, start,
    count); `ranks`: the revision's namespaces (bounds identity placement,
    whose block count no byte count limits)."""
    c = Cursor(buf, what=what)
    if c.u32() != ARRAY_MAGIC:
        raise Corruption("%s: bad magic" % what)
    version = c.u8("version")
    if version > 1:
        raise NotSupported("%s: descriptor version %d" % (what, version))
    if version < 1:
        raise Corruption("%s: descriptor version 0" % what)
    dtype = c.u8("dtype")
    if dtype not in T_WIDTH:
        raise Corruption("%s: dtype code %d" % (what, dtype))
    d = c.u8("dimensions")
    if not 1 <= d <= MAX_ARRAY_DIMS:
        raise Corruption("%s: %d dimensions" % (what, d))
    flags = c.u8("flags")
    if flags & ~7:
        raise Corruption("%s: unknown flag bits 0x%02x" % (what, flags))
    regular, identity, stats = bool(flags & 1), bool(flags & 2), bool(flags & 4)
    if identity and not regular:
        raise Corruption("%s: identity placement without a regular grid"
                         % what)
    shape = [c.u64("shape") for _ in range(d)]
    B = c.u64("block count")
    c.u32("highest namespace")
    cell = [c.u64("cell shape") for _ in range(d)] if regular else None
    # Bytes still expected for B blocks, checked before any allocation.
    per_block = (0 if identity else 8) + (0 if regular else 16 * d) + \
        (16 if stats else 0)
    if identity and B > ranks:
        raise Corruption("%s: identity placement of %d blocks over %d ranks"
                         % (what, B, ranks))
    if B * per_block != c.remaining():
        raise Corruption("%s: %d bytes left for %d blocks of %d bytes each"
                         % (what, c.remaining(), B, per_block))
    if regular:
        if any(b == 0 for b in cell):
            raise Corruption("%s: a zero cell extent" % what)
        grid = [-(-shape[k] // cell[k]) for k in range(d)]
        n = 1
        for g in grid:
            n *= g
        if n != B:
            raise Corruption("%s: regular grid of %d cells, %d blocks"
                             % (what, n, B))
    place = [(i, 0) for i in range(B)] if identity else \
        [(c.u32("namespace"), c.u32("seq")) for _ in range(B)]
    blocks = []
    for i in range(B):
        if regular:
            coord, rest = [], i
            for k in reversed(range(d)):
                coord.append(rest % grid[k])
                rest //= grid[k]
            coord.reverse()
            start = [coord[k] * cell[k] for k in range(d)]
            count = [min(cell[k], shape[k] - start[k]) for k in range(d)]
        else:
            start = [c.u64("block start") for _ in range(d)]
            count = [c.u64("block count") for _ in range(d)]
            for k in range(d):
                if start[k] + count[k] > shape[k]:
                    raise Corruption("%s: block %d passes the shape in "
                                     "dimension %d" % (what, i, k))
        blocks.append((place[i][0], place[i][1], start, count))
    st = []
    if stats:
        fmt = "<dd" if dtype in (9, 10) else ("<qq" if dtype <= 4 else "<QQ")
        st = [struct.unpack(fmt, c.raw(16, "statistics")) for _ in range(B)]
    a = ArrayDesc()
    a.name, a.dtype, a.shape, a.flags, a.blocks, a.tags = \
        name, dtype, shape, flags, blocks, tags
    a.regular, a.stats = regular, st
    return a


def load_arrays(store, rev):
    """The arrays of a revision, in name order: from the shared table."""
    t = store.table(rev, rev.ranks)
    out = []
    for e in t.entries:
        if not e.key.startswith(ARRAY_DESC_PREFIX):
            continue
        name = e.key[len(ARRAY_DESC_PREFIX):]
        what = "revision %d array %r descriptor" % (rev.number, name)
        out.append(parse_array_desc(name, read_value(store, e, what), e.tags,
                                    what, rev.ranks))
    return out


def parse_select(text, shape, name):
    """[(start, count)] per dimension (NumPy-style, no steps, no clipping)."""
    items = [x.strip() for x in text.split(",")] if text and text.strip() \
        else []
    if len(items) > len(shape):
        raise CairnError("selection %r has %d dimensions, array %r has %d"
                         % (text, len(items), name, len(shape)))
    box = []
    for k, n in enumerate(shape):
        it = items[k] if k < len(items) else ":"
        try:
            if ":" in it:
                a, b = it.split(":")
                lo = int(a) if a.strip() else 0
                hi = int(b) if b.strip() else n
                lo, hi = lo + n if lo < 0 else lo, hi + n if hi < 0 else hi
                ok = 0 <= lo <= hi <= n
            else:
                lo = int(it)
                lo = lo + n if lo < 0 else lo
                hi = lo + 1
                ok = 0 <= lo < n
        except ValueError:
            ok = False
        if not ok:
            raise CairnError("selection %r: bad or out-of-shape item %r in "
                             "dimension %d of array %r (extent %d)"
                             % (text, it, k, name, n))
        box.append((lo, hi - lo))
    return box


def read_array_box(store, rev, a, box):
    """The box's elements, row-major, as bytes; every block that overlaps it
    is read whole (and verified) from its rank's table."""
    w = T_WIDTH[a.dtype]
    d = len(a.shape)
    qs = [b[0] for b in box]
    qc = [b[1] for b in box]
    total = w
    for n in qc:
        total *= n
    out = bytearray(total)
    if total == 0:
        return bytes(out)
    tables = {}
    for ns, seq, bs, bc in a.blocks:
        lo = [max(qs[k], bs[k]) for k in range(d)]
        hi = [min(qs[k] + qc[k], bs[k] + bc[k]) for k in range(d)]
        if any(lo[k] >= hi[k] for k in range(d)):
            continue
        if ns >= rev.ranks:
            raise Corruption("revision %d array %r: block in namespace %d of "
                             "%d" % (rev.number, a.name, ns, rev.ranks))
        if ns not in tables:
            tables[ns] = store.table(rev, ns)
        key = ARRAY_BLOCK_PREFIX + a.name + b"\x00" + struct.pack(">I", seq)
        what = "revision %d rank %d array %r block %d" % (rev.number, ns,
                                                          a.name, seq)
        e = tables[ns].find(key)
        if e is None:
            raise Corruption("%s: its object is missing" % what)
        n = w
        for x in bc:
            n *= x
        if e.size != n:
            raise Corruption("%s: %d bytes, its box holds %d" % (what, e.size,
                                                               n))
        data = read_value(store, e, what)
        # Copy rows along the last dimension of the intersection.
        run = (hi[-1] - lo[-1]) * w
        idx = lo[:-1]
        while True:
            src = 0
            dst = 0
            for k in range(d - 1):
                src = src * bc[k] + (idx[k] - bs[k])
                dst = dst * qc[k] + (idx[k] - qs[k])
            src = (src * bc[-1] + lo[-1] - bs[-1]) * w
            dst = (dst * qc[-1] + lo[-1] - qs[-1]) * w
            out[dst:dst + run] = data[src:src + run]
            k = d - 2
            while k >= 0:
                idx[k] += 1
                if idx[k] < hi[k]:
                    break
                idx[k] = lo[k]
                k -= 1
            if k < 0:
                break
    return bytes(out)


# --------------------------------------------------------------------------
# Commands


def parse_rank(s):
    if s is None:
        return None
    if s == "shared":
        return "shared"
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError("rank must be a number or 'shared'")
    return v


def ns_index(rev, rank):
    if rank == "shared" or rank == -1 or rank == SHARED_NS:
        return rev.ranks
    if not 0 <= rank < rev.ranks:
        raise NotFound("revision %d has ranks 0..%d, not %s"
                       % (rev.number, rev.ranks - 1, rank))
    return rank


def cmd_ls(store, args):
    out = [r.summary() for r in store.manifest.revisions]
    print(json.dumps(out, indent=1))
    if store.manifest.torn_tail:
        sys.stderr.write("note: MANIFEST ends with %d bytes of an incomplete "
                         "record (ignored)\n" % store.manifest.torn_tail)


def cmd_keys(store, args):
    rev = store.revision(args.revision)
    idxs = range(rev.ranks + 1) if args.rank is None \
        else [ns_index(rev, args.rank)]
    out = []
    for i in idxs:
        t = store.table(rev, i)
        label = i if i < rev.ranks else "shared"
        for e in t.entries:
            if e.key.startswith(b"\x00"):
                continue  # reserved: global arrays
            out.append({"rank": label, "key": key_json(e.key),
                        "size": e.size, "inline": e.kind == 0,
                        "tags": {key_json(n): tag_json(code, v)
                                 for n, code, v in e.tags}})
    print(json.dumps(out, indent=1))


def cmd_get(store, args):
    rev = store.revision(args.revision)
    rank = 0 if args.rank is None else args.rank
    i = ns_index(rev, rank)
    key = os.fsencode(args.key)
    t = store.table(rev, i)
    e = t.find(key)
    if e is None:
        raise NotFound("revision %d rank %s has no key %r"
                       % (rev.number, rank, args.key))
    data = read_value(store, e, "revision %d rank %s key %r"
                      % (rev.number, rank, args.key))
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def stat_json(x):
    x = float(x)
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return x


def cmd_arrays(store, args):
    rev = store.revision(args.revision)
    out = []
    for a in load_arrays(store, rev):
        j = {"name": key_json(a.name), "dtype": T_NAMES[a.dtype],
             "shape": a.shape, "blocks": len(a.blocks),
             "regular": a.regular,
             "tags": {key_json(n): tag_json(code, v) for n, code, v in a.tags},
             "tag_types": {key_json(n): type_name(code)
                           for n, code, v in a.tags}}
        if args.blocks:
            j["block_list"] = [{"rank": ns, "start": st, "count": ct}
                               for ns, seq, st, ct in a.blocks]
            # A block's statistics, as `cairn arrays --blocks --json` gives
            # them: doubles ("nan", "inf" as strings); a minimum above the
            # maximum marks a block put without them (doc/format.md).
            for b, (lo, hi) in zip(j["block_list"], a.stats):
                if not lo > hi:
                    b["min"], b["max"] = stat_json(lo), stat_json(hi)
        out.append(j)
    print(json.dumps(out, indent=1))


def cmd_array(store, args):
    rev = store.revision(args.revision)
    name = os.fsencode(args.name)
    for a in load_arrays(store, rev):
        if a.name == name:
            box = parse_select(args.select or "", a.shape, args.name)
            sys.stdout.buffer.write(read_array_box(store, rev, a, box))
            sys.stdout.buffer.flush()
            return
    raise NotFound("revision %d has no array %r" % (rev.number, args.name))


def cmd_dump(store, args):
    m = store.manifest
    revs = m.revisions if args.revision is None \
        else [store.revision(args.revision)]
    out = {"store": store.path,
           "verified": store.verify,
           "manifest": {"version": m.version, "store_id": m.store_id.hex(),
                        "created_ns": m.created_ns,
                        "size": m.file_size, "intact_end": m.intact_end,
                        "torn_tail_bytes": m.torn_tail},
           "revisions": []}
    for rev in revs:
        rj = rev.summary()
        rj["record_offset"] = rev.record_offset
        rj["namespaces"] = []
        for i, d in enumerate(rev.descriptors):
            label = i if i < rev.ranks else "shared"
            t = store.table(rev, i)
            nj = {"rank": label, "descriptor": d.to_json(),
                  "table": {"version": t.version, "flags": t.flags,
                            "namespace": t.ns, "revision": t.revision,
                            "names": [key_json(n) for n in t.names]},
                  "entries": []}
            if d.length:
                if len(t.entries) != d.objects:
                    raise Corruption("revision %d %s: descriptor says %d "
                                     "objects, table has %d" % (
                                         rev.number, label, d.objects,
                                         len(t.entries)))
                if sum(e.size for e in t.entries) != d.value_bytes:
                    raise Corruption("revision %d %s: descriptor value bytes "
                                     "differ from the table's" % (
                                         rev.number, label))
            for e in t.entries:
                val = read_value(store, e, "revision %d rank %s key %r" % (
                    rev.number, label, e.key))
                ej = {"key": key_json(e.key), "key_hex": e.key.hex(),
                      "kind": "inline" if e.kind == 0 else "chunked",
                      "size": e.size,
                      "sha256": hashlib.sha256(val).hexdigest(),
                      "tags": [{"name": key_json(n), "type": type_name(code),
                                "code": code, "value": tag_json(code, v)}
                               for n, code, v in e.tags]}
                if e.kind == 1:
                    ej["chunks"] = [ch.to_json() for ch in e.chunks]
                nj["entries"].append(ej)
            rj["namespaces"].append(nj)
        out["revisions"].append(rj)
    out["data_files"] = [store._headers[k] for k in sorted(store._headers)]
    print(json.dumps(out, indent=1))


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="cairn_reader.py",
        description="Independent reader of cairn stores (format version 1)")
    p.add_argument("--no-verify", action="store_true",
                   help="do not check checksums (no xxhash needed)")
    p.add_argument("store")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("ls", help="list committed revisions (JSON)")
    s.add_argument("--no-verify", action="store_true", default=None,
                   dest="no_verify2", help=argparse.SUPPRESS)
    s = sub.add_parser("keys", help="list keys of a revision (JSON)")
    s.add_argument("--revision", "-r", type=int)
    s.add_argument("--rank", type=parse_rank)
    s.add_argument("--no-verify", action="store_true", default=None,
                   dest="no_verify2", help=argparse.SUPPRESS)
    s = sub.add_parser("get", help="write a value to standard output")
    s.add_argument("key")
    s.add_argument("--rank", type=parse_rank)
    s.add_argument("--revision", "-r", type=int)
    s.add_argument("--no-verify", action="store_true", default=None,
                   dest="no_verify2", help=argparse.SUPPRESS)
    s = sub.add_parser("dump", help="dump everything (JSON)")
    s.add_argument("--revision", "-r", type=int)
    s.add_argument("--no-verify", action="store_true", default=None,
                   dest="no_verify2", help=argparse.SUPPRESS)
    s = sub.add_parser("arrays", help="list global arrays (JSON)")
    s.add_argument("--revision", "-r", type=int)
    s.add_argument("--blocks", action="store_true")
    s.add_argument("--no-verify", action="store_true", default=None,
                   dest="no_verify2", help=argparse.SUPPRESS)
    s = sub.add_parser("array", help="write a box of a global array")
    s.add_argument("name")
    s.add_argument("--select", default="")
    s.add_argument("--revision", "-r", type=int)
    s.add_argument("--no-verify", action="store_true", default=None,
                   dest="no_verify2", help=argparse.SUPPRESS)
    # "--select -2,1:3" (a leading negative index, as `cairn get` takes it):
    # argparse would take "-2,1:3" for an option; joined, it is a value.
    given = list(sys.argv[1:] if argv is None else argv)
    argv, i = [], 0
    while i < len(given):
        if given[i] == "--select" and i + 1 < len(given):
            argv.append("--select=" + given[i + 1])
            i += 2
        else:
            argv.append(given[i])
            i += 1
    args = p.parse_args(argv)
    verify = not (args.no_verify or getattr(args, "no_verify2", None))
    if verify:
        _load_xxhash()
    try:
        store = Store(args.store, verify)
        try:
            {"ls": cmd_ls, "keys": cmd_keys, "get": cmd_get,
             "dump": cmd_dump, "arrays": cmd_arrays,
             "array": cmd_array}[args.cmd](store, args)
        finally:
            store.close()
    except CairnError as e:
        sys.stderr.write("cairn_reader: %s\n" % e)
        return e.status
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
