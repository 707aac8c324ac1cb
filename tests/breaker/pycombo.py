"""The Python package writing and verifying combo's model (tests/breaker/combo.cc),
so a store can be written by one and resumed/verified by the other.
  mpiexec -n N python pycombo.py write STORE MODEL SEED ROUNDS KEEP
  mpiexec -n N python pycombo.py verify STORE MODEL"""
import os
import random
import struct
import sys

import numpy as np
import xxhash
from mpi4py import MPI

import cairn

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
mode, store, model = sys.argv[1], sys.argv[2], sys.argv[3]


def die(msg):
    sys.stderr.write("PYCOMBO FAIL rank %d: %s\n" % (rank, msg))
    sys.stderr.flush()
    comm.Abort(3)


def tags_hash(tags):
    buf = b"T"
    for name, code, v in sorted(tags, key=lambda t: t[0].encode()):
        buf += name.encode() + b"\0" + bytes([code])
        if 1 <= code <= 4:
            buf += struct.pack("<q", int(v))
        elif 5 <= code <= 8:
            buf += struct.pack("<Q", int(v))
        elif code in (9, 10):
            buf += struct.pack("<d", float(v))
        else:
            buf += v if isinstance(v, bytes) else v.encode()
        buf += b"|"
    return xxhash.xxh3_64_intdigest(buf)


def h(b):
    return xxhash.xxh3_64_intdigest(bytes(b))


def write_sync(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)
    fd = os.open(os.path.dirname(path), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def ser(m):
    return "".join("%s %d %d %d\n" % (k, *m[k]) for k in sorted(m, key=lambda k: k.encode()))


def parse(path):
    m = {}
    for line in open(path):
        k, a, b, c = line.split()
        m[k] = (int(a), int(b), int(c))
    return m


def arr_shape(gen):
    return (7 + gen % 11, 3 + gen % 5)


def arr_block(gen, r0, nr, cols):
    i = np.arange(r0, r0 + nr, dtype=np.int64)[:, None]
    j = np.arange(cols, dtype=np.int64)[None, :]
    if gen % 2:
        return (gen * 1000 + i * 37 + j).astype(np.float64)
    return ((gen * 31 + i * 7 + j) & 0x7FFF).astype(np.int16)


def read_ns(st, ns):
    m = {}
    for k, n, tags in st._s.list(ns):
        v = st.get(k, rank=None if ns == -1 else ns) if ns != -1 else st.get(k)
        if len(v) != n:
            die("size list/get %s" % k)
        m[k] = (n, h(v), tags_hash(st._s.tags(k, ns)))
    return m


def check_array(st, a, where):
    present, gen, m, none_rank = a
    names = [x.name for x in st.arrays()]
    if not present:
        if "G" in names:
            die(where + ": G should be absent")
        return
    if "G" not in names:
        die(where + ": G missing")
    shape = arr_shape(gen)
    got = st.array("G")[...]
    want = np.zeros(shape, dtype=np.float64 if gen % 2 else np.int16)
    for r in range(m):
        if r == none_rank:
            continue
        r0 = shape[0] * r // m
        nr = shape[0] * (r + 1) // m - r0
        want[r0:r0 + nr] = arr_block(gen, r0, nr, shape[1])
    if got.shape != want.shape or got.dtype != want.dtype or not (got == want).all():
        die(where + ": G contents differ")


def verify():
    if not os.path.exists(os.path.join(store, "MANIFEST")):
        return
    with cairn.Store(store, comm=comm, mode="r") as st:
        listed = [r.revision for r in st.revisions()]
    n = 0
    for rev in listed:
        base = os.path.join(model, "%d" % rev)
        if not os.path.exists(base + ".done"):
            continue
        with cairn.Store(store, comm=comm, mode="r", revision=rev) as st:
            w = st.writer_ranks
            for ns in range(w):
                if not os.path.exists(base + ".ns%d" % ns):
                    die("rev %d: model lacks ns %d" % (rev, ns))
                if ns % size == rank:
                    got = {}
                    for k, sz, tags in st._s.list(ns):
                        v = st.get(k, rank=ns)
                        got[k] = (sz, h(v), tags_hash(st._s.tags(k, ns)))
                    if got != parse(base + ".ns%d" % ns):
                        die("rev %d ns %d differs from model" % (rev, ns))
            if os.path.exists(base + ".ns%d" % w):
                die("rev %d: writer_ranks %d but model has more" % (rev, w))
            if rank == 0 and os.path.exists(base + ".shared"):
                got = {}
                for k, sz, tags in st._s.list(-2):
                    v = st._s.get_bytes(k, -2)
                    got[k] = (sz, h(v), tags_hash(st._s.tags(k, -2)))
                if got != parse(base + ".shared"):
                    die("rev %d shared differs" % rev)
            if os.path.exists(base + ".array"):
                check_array(st, [int(x) for x in open(base + ".array").read().split()], "rev %d" % rev)
        n += 1
    if rank == 0:
        print("pyverify ok: %d revisions" % n, flush=True)


def write(seed, rounds, keep):
    rng = random.Random(seed * 1000003 + rank)
    grng = random.Random(seed * 7919)
    extra = {"compact_index_limit": int(os.environ["COMBO_CIL"])} if os.environ.get("COMBO_CIL") else {}
    with cairn.Store(store, comm=comm, keep_revisions=keep, chunk_size=4096, extent_size=65536,
                     write_buffer_size=65536, **extra) as st:
        r0 = st.revision
        state, shared = {}, {}
        arr = None
        if r0 > 0:
            if rank < st.writer_ranks:
                state = read_ns(st, -1)
            if rank == 0:
                for k, n, t in st._s.list(-2):
                    shared[k] = (n, h(st._s.get_bytes(k, -2)), tags_hash(st._s.tags(k, -2)))
            base = os.path.join(model, "%d" % r0)
            if os.path.exists(base + ".done"):
                if rank < st.writer_ranks and parse(base + ".ns%d" % rank) != state:
                    die("restart: own namespace differs from model rev %d" % r0)
                if os.path.exists(base + ".array"):
                    arr = [int(x) for x in open(base + ".array").read().split()]
                    check_array(st, arr, "restart")
        for rnd in range(rounds):
            for _ in range(rng.randint(1, 10)):
                key = "k%d" % rng.randrange(30) + ("x" * 200 if rng.random() < 0.3 else "")
                w = rng.random()
                if w < 0.5:
                    v = np.frombuffer(rng.randbytes(rng.choice([0, 50, 2047, 2049, 5000, 30000])), np.uint8)
                    tags = {"round": np.int32(rnd), "r": np.uint64(rank), "f": 0.25 * rnd, "s": "str%d" % rnd}
                    st.put(key, v, tags=tags)
                    state[key] = (len(v), h(v), tags_hash(st._s.tags(key, -1)))
                elif w < 0.6 and key in state:
                    st.delete(key)
                    del state[key]
                elif w < 0.8 and state:
                    k = rng.choice(sorted(state))
                    st.set_tag(k, "e", np.float32(rng.random()))
                    n, vh, _ = state[k]
                    state[k] = (n, vh, tags_hash(st._s.tags(k, -1)))
                else:
                    sk = "s%d" % rng.randrange(4)
                    data = bytearray()
                    with st.open_stream(sk, "wb", tags={"stream": sk}) as f:
                        for _ in range(rng.randint(0, 5)):
                            b = rng.randbytes(rng.randrange(9000))
                            f.write(b)
                            data += b
                    state[sk] = (len(data), h(data), tags_hash(st._s.tags(sk, -1)))
            if rank == 0 and rng.random() < 0.3:
                k = "sh%d" % rng.randrange(5)
                v = rng.randbytes(rng.randrange(5000))
                st.put_shared(k, v, tags={"shared": rnd})
                shared[k] = (len(v), h(v), tags_hash(st._s.tags(k, -2)))
            ac = grng.randrange(10)
            gen = seed * 100000 + rnd * 10 + grng.randrange(10)
            if rnd == 0 and r0 > 0 and ac >= 3:
                ac = 0
            if ac < 3:
                none_rank = gen % size if size > 1 else -1
                shape = arr_shape(gen)
                a0 = shape[0] * rank // size
                nr = shape[0] * (rank + 1) // size - a0
                if rank != none_rank:
                    st.put_array("G", arr_block(gen, a0, nr, shape[1]), start=(a0, 0), global_shape=shape,
                                 tags={"gen": np.uint64(gen)})
                arr = [1, gen, size, none_rank]
            elif ac == 3 and arr is not None and arr[0]:
                st.delete_array("G")
                arr = [0, 0, 1, -1]
            if grng.random() < 0.5:
                rev = st.commit()
            else:
                rev = st.commit_async().wait()
            base = os.path.join(model, "%d" % rev)
            write_sync(base + ".ns%d" % rank, ser(state))
            if rank == 0:
                write_sync(os.path.join(model, "keep"), str(keep))
                write_sync(base + ".shared", ser(shared))
                if arr is not None:
                    write_sync(base + ".array", "%d %d %d %d\n" % tuple(arr))
            comm.Barrier()
            if rank == 0:
                write_sync(base + ".done", "ok\n")
    if rank == 0:
        print("pywrite ok", flush=True)


if mode == "write":
    write(int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
else:
    verify()
