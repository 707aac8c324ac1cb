#!/usr/bin/env python3
"""A sample of `cairn verify` runs on damaged copies of a 2-rank store.

corruption_test flips thousands of bytes in process; this runs the real
command line on a few dozen: one random byte flipped in the manifest header,
an older manifest record, the newest record (the newest revision is then
the one before it, and verify reports the damaged record), the data file header, an index
table and a value chunk. `cairn verify` must exit non-zero and name what is
damaged (the record, file or key); `cairn get` of a damaged value must fail
with Corruption and print no data.

Usage: verify_sample_test.py CRASH_WRITER CAIRN_TOOL MPIEXEC [SAMPLES_PER_KIND]
"""
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

writer, tool, mpiexec = sys.argv[1:4]
per_kind = int(sys.argv[4]) if len(sys.argv) > 4 else 4
if os.environ.get("CAIRN_LONG_TESTS", "0") not in ("", "0"):
    per_kind = 100
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
seed = int(os.environ.get("CAIRN_SEED", random.randrange(1 << 30)))
print(f"seed {seed} (set CAIRN_SEED to repeat)")
rng = random.Random(seed)


def run(*args):
    return subprocess.run(list(args), env=env, capture_output=True)


tmp = tempfile.mkdtemp(prefix="cairn-verify-sample-")
try:
    ref = os.path.join(tmp, "ref")
    for rev in ("1", "2"):
        r = run(mpiexec, "-n", "2", writer, ref, "write", rev)
        if r.returncode != 0:
            sys.exit(f"setup failed: {r.stderr.decode()}")
    man = open(os.path.join(ref, "MANIFEST"), "rb").read()
    records, off = [], 64
    while off + 16 <= len(man):
        n = struct.unpack_from("<I", man, off)[0] + 16
        records.append((off, off + n))
        off += n
    assert len(records) == 2, records
    info = json.loads(run(tool, "info", "-r", "1", "--json", ref).stdout)
    tables = [(ns["index_offset"], ns["index_offset"] + ns["index_bytes"]) for ns in info["namespaces"]]
    # Revision 1's chunked values of a rank (crash_writer's v0 of 3,000 bytes,
    # then v1 of 43,000: both above inline_value_limit) start the first extent
    # (1 MiB, the extent size); verify must name the key whose chunk was hit.
    kinds = {
        "manifest header": ("MANIFEST", [(0, 64)], "2", "manifest"),
        "older manifest record": ("MANIFEST", [records[0]], "2", "MANIFEST"),
        "newest manifest record": ("MANIFEST", [records[1]], "", "MANIFEST"),
        "data file header": ("data.00000", [(0, 48)], "1", "data.00000"),
        "index table": ("data.00000", tables, "1", "index"),
        "value chunk": ("data.00000", [(1 << 20, (1 << 20) + 46000)], "1", "key 'v"),
    }
    failures = trials = 0
    for kind, (name, ranges, rev, must_name) in kinds.items():
        for _ in range(per_kind):
            trials += 1
            work = os.path.join(tmp, "work")
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(ref, work)
            b, e = rng.choice(ranges)
            at, mask = rng.randrange(b, e), rng.randrange(1, 256)
            with open(os.path.join(work, name), "r+b") as f:
                f.seek(at)
                c = f.read(1)[0]
                f.seek(at)
                f.write(bytes([c ^ mask]))
            v = run(tool, "verify", *(["-r", rev] if rev else []), work)
            out = (v.stdout + v.stderr).decode(errors="replace")
            what = f"{kind} ({name}+{at} ^{mask}, verify -r {rev})"
            if v.returncode == 0:
                failures += 1
                print(f"FAIL {what}: verify passed:\n{out}")
            elif must_name not in out and must_name.lower() not in out.lower():
                failures += 1
                print(f"FAIL {what}: verify does not name {must_name}:\n{out}")
            if kind == "value chunk":
                # The first extent went to whichever rank asked first, and the
                # byte fell in v0 or v1: verify names both, and get must fail.
                m = re.search(r"rank (\d+) key '(v[01])'", out)
                g = run(tool, "get", "-r", "1", "--rank", m.group(1) if m else "0", work, m.group(2) if m else "v1")
                if g.returncode == 0 or g.stdout or b"Corruption" not in g.stderr:
                    failures += 1
                    print(f"FAIL {what}: cairn get: exit {g.returncode}, {len(g.stdout)} bytes out, {g.stderr!r}")
    print(f"cairn verify samples: {trials}, failures: {failures}")
    sys.exit(1 if failures else 0)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
