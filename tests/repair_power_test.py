#!/usr/bin/env python3
"""`cairn repair` cut by a power loss at each of its file-system calls
(doc/interactions.md, `repair` x `power`).

The stores are those of repair_kill_test.sh (written by crash_writer at 1, 2
and 4 ranks, then damaged; every byte durable): revision 3's final record
damaged (newest intact 2, next commit 4), revision 3's record damaged
between 2 and 4 (keep 3: newest 4, next 5), a commit of 3 killed half-way
through its record (newest 2, next 3). `cairn repair` runs under the fault
journal (src/io/fault_journal.h) and is cut at its call K, for every K from
0 to one past its last (the power lost after it ended), once with the
unsynced writes undone and once torn (power_loss_test.py's replay: writes,
new directory entries and renames not made durable by an fsync are undone,
or in tear mode each survives at random). Then:
- every MANIFEST.damaged-* copy is the original manifest, whole, and if
  MANIFEST is no longer the original one such a copy exists;
- a second `cairn repair` succeeds and `cairn verify --all` passes;
- in one of the two trials of each cut (undone and torn in turn), jobs too:
  a read-only open in another process finds the newest intact revision,
  which reads back exactly (crash_writer check-ro), and after the second
  repair the next commit works and `cairn verify --all` passes again.
The cut at repair's last directory fsync (the one that makes the new
MANIFEST durable) is where a copy whose entry was not yet durable could be
lost while the rename survives: 12 more torn trials cut there check the
files, the second repair and verify.

Usage: repair_power_test.py CRASH_WRITER CAIRN_TOOL MPIEXEC
CAIRN_SEED repeats a run; CAIRN_VERBOSE=1 prints every trial.
"""
import glob
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from power_loss_test import SYNCDIR, journal_calls, read_journal, replay  # noqa: E402

KINDS = {"final": (2, 4, "2"), "middle": (4, 5, "3"), "torn": (2, 3, "2")}  # newest, next, keep


class Test:
    def __init__(self, writer, tool, mpiexec, tmp, rng, log):
        self.writer, self.tool, self.mpiexec, self.tmp, self.rng, self.log = writer, tool, mpiexec, tmp, rng, log
        self.env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                        OMPI_MCA_rmaps_base_oversubscribe="1")
        for k in ("CAIRN_FAULT_JOURNAL", "CAIRN_FAULT_CUT", "CAIRN_CRASH_POINT", "CAIRN_CRASH_RANK",
                  "CAIRN_TEST_PARENT"):
            self.env.pop(k, None)
        self.failures = []

    def run(self, np, store, mode, rev, keep, extra=None):
        env = dict(self.env, CAIRN_TEST_KEEP=keep, **(extra or {}))
        p = subprocess.run([self.mpiexec, "-n", str(np), self.writer, store, mode, str(rev)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        return p.returncode, p.stdout.decode(errors="replace")

    def tool_run(self, *args, extra=None):
        p = subprocess.run([self.tool, *args], env=dict(self.env, **(extra or {})), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=120)
        return p.returncode, p.stdout.decode(errors="replace")

    def base(self, np, kind):
        """The damaged store for (np, kind), built once, every byte durable."""
        b = os.path.join(self.tmp, f"base-{np}-{kind}")
        if os.path.isdir(b):
            return b
        keep = KINDS[kind][2]
        for rev in (1, 2):
            rc, out = self.run(np, b, "write", rev, keep)
            if rc:
                raise RuntimeError(f"setup np={np} {kind}: write {rev}:\n{out}")
        man = os.path.join(b, "MANIFEST")
        s2 = os.path.getsize(man)
        if kind == "torn":
            rc, _ = self.run(np, b, "write", 3, keep, {"CAIRN_CRASH_POINT": "torn_manifest", "CAIRN_CRASH_RANK": "0"})
            if rc == 0 or os.path.getsize(man) <= s2:
                raise RuntimeError(f"setup np={np} torn: the commit of 3 was not cut in its record")
        else:
            for rev in (3, 4) if kind == "middle" else (3,):
                rc, out = self.run(np, b, "write", rev, keep)
                if rc:
                    raise RuntimeError(f"setup np={np} {kind}: write {rev}:\n{out}")
                if rev == 3:
                    s3 = os.path.getsize(man)
            with open(man, "r+b") as f:  # a byte inside revision 3's record
                f.seek((s2 + s3) // 2)
                c = f.read(1)
                f.seek((s2 + s3) // 2)
                f.write(bytes([c[0] ^ 0x5A]))
        return b

    def fail(self, what, detail=""):
        self.failures.append(f"{what}\n{detail}".rstrip())
        print(f"FAIL: {what}\n{detail}".rstrip(), flush=True)

    def trial(self, n, np, kind, cut, tear, light=False):
        """Repair cut at journal call `cut`, the replay, then the checks."""
        newest, nxt, keep = KINDS[kind]
        base = self.base(np, kind)
        store, journal = os.path.join(self.tmp, f"s{n}"), os.path.join(self.tmp, f"j{n}")
        shutil.copytree(base, store)
        with open(os.path.join(base, "MANIFEST"), "rb") as f:
            orig = f.read()
        what = f"trial {n} (np={np}, {kind}, cut at call {cut}, tear={tear})"
        rc, out = self.tool_run("repair", store, extra={"CAIRN_FAULT_JOURNAL": journal, "CAIRN_FAULT_CUT": str(cut)})
        _, was_cut, _ = read_journal(journal)
        if not was_cut and rc != 0:
            return self.fail(f"{what}: the uncut repair failed", out)
        replay(journal, self.rng, tear, self.log)
        with open(os.path.join(store, "MANIFEST"), "rb") as f:
            now = f.read()
        copies = glob.glob(os.path.join(store, "MANIFEST.damaged-*"))
        for c in copies:
            with open(c, "rb") as f:
                if f.read() != orig:
                    self.fail(f"{what}: {os.path.basename(c)} is not the original manifest, whole")
        if now != orig and not copies:
            self.fail(f"{what}: MANIFEST was replaced but no MANIFEST.damaged-* copy of the original survived")
        if not light:
            rc, out = self.run(np, store, "check-ro", newest, keep)
            if rc:
                self.fail(f"{what}: newest revision {newest} after the cut (read-only)", out)
        rc, out = self.tool_run("repair", store)
        if rc:
            return self.fail(f"{what}: the second repair failed", out)
        rc, out = self.tool_run("verify", "--all", store)
        if rc:
            return self.fail(f"{what}: cairn verify --all after the second repair", out)
        if not light:
            rc, out = self.run(np, store, "write", nxt, keep, {"CAIRN_TEST_PARENT": str(newest)})
            if rc:
                return self.fail(f"{what}: the next commit ({nxt}) after the repairs", out)
            rc, out = self.tool_run("verify", "--all", store)
            if rc:
                return self.fail(f"{what}: cairn verify --all after commit {nxt}", out)
        self.log(f"{what}: {'cut' if was_cut else 'ran to the end'}, MANIFEST "
                 f"{'replaced' if now != orig else 'the original'}, {len(copies)} copies")
        shutil.rmtree(store)
        os.unlink(journal)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    writer, tool, mpiexec = sys.argv[1:4]
    seed = int(os.environ.get("CAIRN_SEED", random.randrange(1 << 16)))
    print(f"seed {seed} (set CAIRN_SEED to repeat)", flush=True)
    rng = random.Random(seed)
    verbose = os.environ.get("CAIRN_VERBOSE", "0") != "0"
    log = (lambda m: print(m, flush=True)) if verbose else (lambda m: None)
    tmp = tempfile.mkdtemp(prefix="cairn-repair-power-", dir=os.environ.get("TMPDIR"))
    t0 = time.time()
    try:
        t = Test(writer, tool, mpiexec, tmp, rng, log)
        # The calls of an uncut repair, and which is its last directory fsync.
        probe, pj = os.path.join(tmp, "probe"), os.path.join(tmp, "probe.j")
        shutil.copytree(t.base(1, "final"), probe)
        rc, out = t.tool_run("repair", probe, extra={"CAIRN_FAULT_JOURNAL": pj})
        if rc:
            print(f"FAIL: the uncut repair under the journal failed:\n{out}")
            return 1
        calls = journal_calls(pj)
        recs = read_journal(pj)[2]
        last_dir_sync = max(i for i, r in enumerate(recs) if r[0] == SYNCDIR)
        n = 0
        for cut in range(calls + 1):
            for tear in (cut % 2 == 1, cut % 2 == 0):  # the first of the two runs the jobs
                t.trial(n, [1, 2, 4][n % 3], list(KINDS)[(n // 3 + n) % 3], cut, tear, light=tear != (cut % 2 == 1))
                n += 1
        for i in range(12):
            t.trial(n, 1, list(KINDS)[i % 3], last_dir_sync, True, light=True)
            n += 1
        print(f"repair cut by power loss: {n} trials ({calls} journaled calls in a repair, each cut undone "
              f"and torn, 12 more torn at its last directory fsync); failures: {len(t.failures)} "
              f"({time.time() - t0:.0f} s)")
        return 1 if t.failures else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
