#!/usr/bin/env python3
"""Power loss at random cut points, which kill -9 cannot test.

kill -9 keeps the page cache, so a crash test passes even without a needed
fsync. Here every mutating file-system call of cairn is journaled
(CAIRN_FAULT_JOURNAL, src/io/fault_journal.h) by all ranks of every job
since the last simulated power loss; the job is cut at a random journal
record (CAIRN_FAULT_CUT: that call and every later one of any rank never
happen), and then this script throws away what was not durable:

- a file's writes and truncations after its last fsync are undone, newest
  first (the old bytes and size come from the journal);
- in "tear" mode (half the trials) a random subset survives instead, at page
  granularity as write-back does: the file size is its size after a random
  number v of those writes, whose data survived with it (data before
  metadata, as in ext4's default ordered mode), and each 4 KiB page also
  keeps its later writes up to a random one of them; with --zeros the size
  says nothing of the data (pages within it may read as zeros, as on old
  XFS or ext4 data=writeback);
- a file or directory created after the last fsync of its directory is
  removed with everything in it (in tear mode, each survives or not at
  random).

Then the writer (power_loss_writer.cc) reopens the store and checks it: the
newest revision is the last one it reported committed before the cut, or
the one after (whose commit point may have been reached), and it and every
retained revision read back intact; `cairn verify` passes; and it commits
more revisions, which the next cut interrupts. Workloads: put, flush,
commit, asynchronous commit, with and without staging, keep_revisions = 2
(extents are reused), at 1, 2 and 4 ranks; in three workloads of eight
(flag g) global arrays too: one put again every other revision, one put
at revision 1 only and carried while the space around it is reused; in
three (flag u) the last rank changes nothing in two revisions of three, so
its index table is reused from a revision retention has expired; in
three (flag t) a write stream, flushed in parts, is open across every
commit and closed in the next round; in two (flag p) each job pins the
revision it reopened at, and every pin reported done must survive; in
three (flag e) a key put at revision 1 only has its tags edited (SetTags,
SetTag, DeleteTag, no put) by every later revision, and each checked
revision's tags must be its own, found by Query and QueryAll.

--resize: restarts on other rank counts instead: the jobs of one store run
at 1, 2 and 4 ranks in turn (each job's first commit is at a new rank
count), with flag r (every key rewritten each revision; every namespace of
each revision checked, whatever its writer count), plain, asynchronous,
staged, or both.

Usage: power_loss_test.py POWER_LOSS_WRITER CAIRN_TOOL MPIEXEC [TRIALS]
TRIALS defaults to 104, 13 stores of 8 cuts (CAIRN_LONG_TESTS=1: 1,040).
CAIRN_SEED repeats a run; CAIRN_VERBOSE=1 prints every cut and replay.
--zeros: tear harder (not in CI; see the tear mode above).
--slow-fsync: the data fsync of ranks other than 0 is delayed by 30 ms
(CAIRN_TEST_FSYNC_DELAY_MS: asynchronous and synchronous commits, Flush),
at 2 and 4 ranks only, asynchronous and synchronous workloads in turn
(SLOW_FLAGS), so that a commit step that does not wait for the other
ranks' fsyncs before rank 0 appends the record is seen by the cuts.
--lock: after every cut and its replay, the writer lock (lock_check): a
job takes the store (flag L: checks it, then holds it), and a second job's
writable open must fail on every rank naming the holder's pid.
--big: flag B instead (BIG_FLAGS, at 1 and 2 ranks in turn): a namespace
of 60,000 keys put at revision 1, then a few puts and tag edits per
revision, so each rank's index table (over 4 MiB) is built from its base
and written in pieces (WriteBuiltTable, src/store/commit_tables.cc) over
space reused from expired revisions; every key's value and tags, and
Query, are checked. Each store's first job runs uncut (see cut_trials).
--same: flag i instead (SAME_FLAGS, at 1, 2 and 4 ranks): each rank
puts all its small objects again every revision, unchanged except in one
revision of three (one value or one tag changed), so its index table (and
rank 0's shared one) is reused as it lies in the others (samesave,
MakeNextTable); its large values, and the close of a stream left open
across the commits between (t), come only with its changes; synchronous,
asynchronous, staged. Every commit checks that exactly the unchanged
namespaces' tables were reused, and every retained revision is read back.
--drop: --big with DropBehind's lags lowered (CAIRN_TEST_TABLE_DROP_LAG =
256 KiB: pages dropped behind a table being written once 512 KiB of it
are written, writeback waited for 1.25 MiB behind its end; by default
32 MiB and 80 MiB, which no other power-loss workload reaches), so that
cuts land among those drops and waits; the run fails if no wait for
writeback was journaled.
--across-nodes: flags ACROSS_FLAGS at 4 ranks, two data files each shared
by two ranks, with CAIRN_TEST_SUBFILE_ACROSS_NODES=1 (src/store/open.cc):
the ranks of a shared file are taken for ranks of different nodes, so each
fsyncs the file itself (the commit's path for a file spread across nodes),
and the replay makes a file's fsync durable for the writes of the process
that called it only (page caches apart, as on two nodes).
--failed-record: a commit whose manifest record's fsync fails, then a power
cut that keeps the record and loses its cut-back (failed_record): the
failed revision must not appear.
--every-cut: EVERY_CUT's jobs (a pin, commits, a manifest compaction) cut
at every one of their calls in turn instead of at random ones (every_cut).
--first-open-dies: the case of issue 10 item 8 instead, labelled as such: a
first job creates a store and is killed (-9, no power loss) before its first
commit; a second job commits; then the power is cut.
--first-commit-entries: a new store's first commit cut at each call between
a data file's fsync and the first revision record, the unsynced writes
undone and every directory entry not made durable kept but MANIFEST's
(first_commit_entries): the restart must open the store.

Journal layout (little-endian; written by src/io/fault_journal.cc): header
"CAIRNFJ1", u64 calls so far, u64 cut mark; then records: u32 kind, u32 pid,
u64 a, u64 b, u64 c, u32 path length, u32 data length, path, data. Kinds:
1 write (a offset, b length, c old size, data the overwritten bytes),
2 fsync of a file, 3 truncate (a new size, c old size, data the bytes cut
off), 4 file created, 5 directory created, 6 fsync of a directory, 7 rename
(path the source, a 1 if the target existed, data the target's path, a NUL,
the target's bytes before the rename), 8 a wait for writeback
(sync_file_range: nothing durable, ignored by the replay). A rename is durable once its
directory is fsynced after it; the replay undoes one that is not: the
renamed file goes back to its old name and the target gets its old bytes.
(The target's bytes are as the rename found them: cairn renames only over
a manifest whose appends were fsynced.)
CAIRN_MANIFEST_COMPACT_BYTES, passed on to the writer, makes manifest
compactions (and so renames) frequent: see tests/CMakeLists.txt.
"""
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

WRITE, SYNC, TRUNCATE, CREATE, MKDIR, SYNCDIR, RENAME, WRITEBACK = 1, 2, 3, 4, 5, 6, 7, 8
PAGE = 4096


def read_journal(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24 or data[:8] != b"CAIRNFJ1":
        raise ValueError(f"{path}: not a fault journal")
    calls, cut = struct.unpack_from("<QQ", data, 8)
    recs, pos = [], 24
    while pos < len(data):
        kind, pid, a, b, c, plen, dlen = struct.unpack_from("<IIQQQII", data, pos)
        pos += 40
        p = data[pos:pos + plen].decode()
        pos += plen
        d = data[pos:pos + dlen]
        pos += dlen
        recs.append((kind, p, a, b, c, d, pid))
    return calls, cut, recs


def journal_calls(path):
    if not os.path.exists(path):
        return 0
    with open(path, "rb") as f:
        h = f.read(24)
    return struct.unpack_from("<Q", h, 8)[0] if len(h) == 24 else 0


def rename_target(rec):
    """The target path of a rename record."""
    d = rec[5]
    return d[:d.index(b"\0")].decode()


def undo(fd, rec, pages=None):
    """Restores what one write or truncate replaced (only within `pages`, if given)."""
    kind, _, a, b, c, old = rec[:6]
    if kind == WRITE:
        lo, hi = a, a + b
    else:
        lo, hi = a, max(a, c)
    # The bytes before the call: `old` below the old size, nothing beyond it
    # (zeros, cut off later by the size chosen for the file).
    before = old + bytes(hi - lo - len(old))
    if pages is None:
        os.pwrite(fd, before, lo)
        os.ftruncate(fd, c)
        return
    for p in pages:
        s, e = max(lo, p * PAGE), min(hi, (p + 1) * PAGE)
        if s < e:
            os.pwrite(fd, before[s - lo:e - lo], s)


def replay(journal, rng, tear, log, zeros=False, lose_entry=None, per_process=False, truncate_lost=False):
    """Leaves on disk only what was durable at the end of the journal.
    lose_entry: a chosen outcome for the new directory entries instead of
    the random one of tear mode: an entry not made durable is removed if
    lose_entry(path), and survives otherwise (one of the outcomes tear
    mode draws from). per_process: a file's fsync makes durable only the
    writes of the process that called it, as if each process ran on a node
    of its own (page caches apart): --across-nodes. truncate_lost: a file
    whose unsynced calls include a truncation keeps every call before its
    last truncation and loses that one and the later ones (one of the
    prefixes tear mode draws from): --failed-record."""
    _, _, recs = read_journal(journal)
    pending = {}  # file -> its writes and truncates since its last fsync
    for r in recs:
        if r[0] in (WRITE, TRUNCATE):
            pending.setdefault(r[1], []).append(r)
        elif r[0] == SYNC:
            pending[r[1]] = [w for w in pending.get(r[1], []) if per_process and w[6] != r[6]]
        elif r[0] == RENAME:
            # The source's file now has the target's name; the target's
            # old file is gone (its bytes are in the record).
            to = rename_target(r)
            pending[to] = pending.pop(r[1], [])
    undone = kept = 0
    for path, ops in pending.items():
        if not ops or not os.path.exists(path):
            continue
        fd = os.open(path, os.O_RDWR)
        try:
            if truncate_lost and any(r[0] == TRUNCATE for r in ops):
                keep = max(i for i, r in enumerate(ops) if r[0] == TRUNCATE)
                for r in reversed(ops[keep:]):
                    undo(fd, r)
                undone += len(ops) - keep
                kept += keep
            elif not tear:
                for r in reversed(ops):
                    undo(fd, r)
                undone += len(ops)
            elif any(r[0] == TRUNCATE for r in ops):
                keep = rng.randint(0, len(ops))  # a prefix survives
                for r in reversed(ops[keep:]):
                    undo(fd, r)
                undone += len(ops) - keep
                kept += keep
            else:
                # The file size is its size after a random number v of
                # these writes. Ordered mode (ext4's default): the data of
                # writes before v survived with that size; per page, the
                # later writes up to a random one of them survive too.
                # zeros: v says nothing of the data (a size that reached the
                # disk before the data, as old XFS did: the rest reads as 0).
                v = rng.randint(0, len(ops))
                writes_of = {}
                for i, r in enumerate(ops):
                    for p in range(r[2] // PAGE, (r[2] + max(r[3], 1) - 1) // PAGE + 1):
                        writes_of.setdefault(p, []).append(i)
                keep_upto = {p: rng.randint(0 if zeros else sum(1 for i in w if i < v), len(w))
                             for p, w in writes_of.items()}
                for i in range(len(ops) - 1, -1, -1):
                    r = ops[i]
                    pages = [p for p in range(r[2] // PAGE, (r[2] + max(r[3], 1) - 1) // PAGE + 1)
                             if writes_of[p].index(i) >= keep_upto[p]]
                    undo(fd, r, pages)
                    undone += 1 if pages else 0
                    kept += 0 if pages else 1
                size = ops[v][4] if v < len(ops) else os.fstat(fd).st_size
                os.ftruncate(fd, size)
        finally:
            os.close(fd)
    # Directory entries: durable once their directory was fsynced after them.
    removed = 0
    last_dir_sync = {}
    for i, r in enumerate(recs):
        if r[0] == SYNCDIR:
            last_dir_sync[r[1]] = i
    renamed = 0
    for i in range(len(recs) - 1, -1, -1):
        kind, path = recs[i][0], recs[i][1]
        if kind == RENAME:
            to = rename_target(recs[i])
            if last_dir_sync.get(os.path.dirname(to), -1) > i or (tear and rng.random() < 0.5):
                continue
            # Undo: the file goes back to its old name, the target gets its
            # old bytes (or goes away if there was none).
            if os.path.exists(to):
                os.replace(to, path)
            if recs[i][2]:
                with open(to, "wb") as f:
                    f.write(recs[i][5][len(to.encode()) + 1:])
            renamed += 1
            continue
        if kind not in (CREATE, MKDIR):
            continue
        if last_dir_sync.get(os.path.dirname(path), -1) > i:
            continue
        if lose_entry is not None and not lose_entry(path):
            continue
        if lose_entry is None and tear and rng.random() < 0.5:
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
            removed += 1
        elif os.path.exists(path):
            os.unlink(path)
            removed += 1
    log(f"replay{' (tear)' if tear else ''}: {len(recs)} records, {undone} unsynced writes undone"
        f"{f', {kept} kept' if tear else ''}, {removed} unsynced entries removed, {renamed} renames undone")


def last_acked(store):
    try:
        with open(store + ".acked") as f:
            lines = f.read().split()
        return int(lines[-1]) if lines else 0
    except FileNotFoundError:
        return 0


class Runner:
    def __init__(self, writer, tool, mpiexec, tmp, rng):
        self.writer, self.tool, self.mpiexec, self.tmp, self.rng = writer, tool, mpiexec, tmp, rng
        self.env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                        OMPI_MCA_rmaps_base_oversubscribe="1",
                        # A cut rank exits at once; the others are killed
                        # without the 1 s grace of SIGTERM (they are frozen
                        # by the journal anyway): 0.6 s per cut instead of 2.
                        OMPI_MCA_odls_base_sigkill_timeout="0")
        for k in ("CAIRN_FAULT_JOURNAL", "CAIRN_FAULT_CUT", "CAIRN_CRASH_POINT", "CAIRN_CRASH_RANK"):
            self.env.pop(k, None)

    def run(self, np, store, revs, flags, journal=None, cut=None, extra=None):
        env = dict(self.env)
        if journal:
            env["CAIRN_FAULT_JOURNAL"] = journal
        if cut is not None:
            env["CAIRN_FAULT_CUT"] = str(cut)
        env.update(extra or {})
        if "--drop" in sys.argv:
            # DropBehind's lags lowered from 16 and 64 MiB to 256 KiB and
            # 1 MiB, so that the 5 MB tables of flag B reach its drops and
            # its waits for writeback.
            env["CAIRN_TEST_TABLE_DROP_LAG"] = str(256 << 10)
        if "--across-nodes" in sys.argv:
            env["CAIRN_TEST_SUBFILE_ACROSS_NODES"] = "1"
        if "--slow-fsync" in sys.argv:
            # The data fsync of ranks other than 0 is delayed (asynchronous
            # and synchronous commits, Flush): a commit step that did not
            # wait for it would append the record first, and a cut between
            # the two would lose committed data.
            env["CAIRN_TEST_FSYNC_DELAY_MS"] = "30"
        p = subprocess.run([self.mpiexec, "-n", str(np), self.writer, store, str(revs), flags],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        return p.returncode, p.stdout.decode(errors="replace")

    def start(self, np, store, revs, flags):
        """A job in the background (no journal), with its output in a file."""
        out = open(store + ".job", "wb")
        return subprocess.Popen([self.mpiexec, "-n", str(np), self.writer, store, str(revs), flags],
                                env=self.env, stdout=out, stderr=subprocess.STDOUT), out

    def verify(self, store):
        p = subprocess.run([self.tool, "verify", store], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=120)
        return p.returncode, p.stdout.decode(errors="replace")


FLAGS = ["e", "aup", "fgte", "su", "ast", "afgu", "sftp", "asfge"]  # g: global arrays, u: a rank unchanged, t: a stream open across commits, p: pins, e: tag edits without a put
RESIZE_FLAGS = ["r", "arp", "sr", "asfr"]  # --resize: r, each job at another rank count
# --slow-fsync: asynchronous and synchronous commits in turn, at 2 and 4
# ranks only (rank 0's fsync is not delayed, so 1 rank would test nothing);
# "2f": two data files, so the synchronous commit's fsync is by each file's
# leader (rank 2 of 4 leads the second).
BIG_FLAGS = ["B", "aB", "sfB", "asB"]  # --big: plain, asynchronous, staged + Flush, both
# --same: i with a stream (synchronous, asynchronous + staged, staged +
# Flush + pins) at 2 and 4 ranks, where a rank's table is reused while
# another's is not; asynchronous without a stream at 1 rank.
SAME_FLAGS = [("it", 2), ("asit", 4), ("sitp", 4), ("afi", 1)]
# --across-nodes: two data files at 4 ranks, each shared by two ranks taken
# for ranks of two nodes: plain, asynchronous, staged + Flush, asynchronous
# + staged + a stream.
ACROSS_FLAGS = ["2", "a2", "2sf", "a2st"]
SLOW_FLAGS = ["aup", "e", "ast", "su", "asfge", "2f", "afgu", "sftp"]


def lock_check(r, np, store, flags):
    """--lock: after a cut and its replay, a writer takes the store (its LOCK
    as the replay left it: an older holder's text, empty, or gone) and holds
    it; a second job's writable open must then fail on every rank, naming the
    holder's host and rank 0's pid (not the text of a holder from before the
    cut). Returns a failure message, or None."""
    for f in (store + ".held", store + ".release"):
        if os.path.exists(f):
            os.unlink(f)
    holder, out = r.start(np, store, 0, flags + "L")
    try:
        for _ in range(600):
            if os.path.exists(store + ".held") or holder.poll() is not None:
                break
            time.sleep(0.05)
        if not os.path.exists(store + ".held"):
            holder.wait(timeout=60)
            with open(store + ".job", errors="replace") as f:
                return f"the first writer after the cut did not take the store:\n{f.read()}"
        with open(store + ".held") as f:
            pids = f.read().split()
        rc, text = r.run(np, store, 1, flags)
        want = (f"open: IOError: store {store} is open for writing by host {socket.gethostname()}, "
                f"pid {pids[0]}, ")
        if rc == 0 or text.count(want) != np:
            return (f"a second writer beside the holder (pids {' '.join(pids)}) was not refused on every rank "
                    f"naming it (rc {rc}, wanted {np} x '{want}'):\n{text}")
        return None
    finally:
        open(store + ".release", "w").close()
        try:
            rc = holder.wait(timeout=120)
        except subprocess.TimeoutExpired:
            holder.kill()
            rc = -1
        out.close()
        for f in (store + ".held", store + ".release", store + ".job"):
            if os.path.exists(f) and (rc == 0 or not f.endswith(".job")):
                os.unlink(f)
        if rc != 0:
            return f"the holder failed (rc {rc}); its output is in {store}.job"


def cut_trials(r, trials, log, zeros, resize=False):
    """The main test: chains of cut, replay, reopen-and-check on one store."""
    failures = []
    stats = {"cut": 0, "ran_to_end": 0, "tear": 0, "newer": 0, "store_gone": 0, "lock_checks": 0,
             "writeback_waits": 0}
    big = "--big" in sys.argv or "--drop" in sys.argv
    est = {}  # journal calls of the last uncut run, per (np, first run of a store)
    chain_len = 8
    t = 0
    chain = 0
    while t < trials:
        np = [1, 2, 4][chain % 3]
        flags = (RESIZE_FLAGS if resize else FLAGS)[chain % (len(RESIZE_FLAGS) if resize else len(FLAGS))]
        if "--slow-fsync" in sys.argv:
            np = [2, 4][(chain // 2) % 2] if SLOW_FLAGS[chain % len(SLOW_FLAGS)] != "2f" else 4
            flags = SLOW_FLAGS[chain % len(SLOW_FLAGS)]
        if big:
            np = [1, 2][chain % 2]
            flags = BIG_FLAGS[chain % len(BIG_FLAGS)]
        if "--same" in sys.argv:
            flags, np = SAME_FLAGS[chain % len(SAME_FLAGS)]
        if "--across-nodes" in sys.argv:
            np, flags = 4, ACROSS_FLAGS[chain % len(ACROSS_FLAGS)]
        store = os.path.join(r.tmp, f"s{chain}")
        journal = os.path.join(r.tmp, f"j{chain}")
        chain += 1
        for k in range(min(chain_len, trials - t)):
            t += 1
            if resize:  # every job of the chain at another rank count than the one before
                np = [1, 2, 4][(chain + k) % 3]
            start = journal_calls(journal)
            # Below the calls the last whole run of this kind made, so most
            # cuts land inside the job (a first run creates the store).
            key = (np, k == 0)
            n = est.get(key, 20 * np + (10 if k == 0 else 0))
            cut = start + r.rng.randint(0, max(n - 1, 0))
            if big and k == 0:
                # The store's first job runs uncut (journaled: its trial is
                # a power loss after it ended), so that the cuts land in the
                # revisions whose large tables are built from the base, not
                # in revision 1's 60,000 puts, which would take most of them.
                cut = None
            before = last_acked(store)
            revs = 3
            t0 = time.time()
            rc, out = r.run(np, store, revs, flags, journal=journal, cut=cut)
            calls, was_cut, recs = read_journal(journal) if os.path.exists(journal) else (0, 0, [])
            stats["writeback_waits"] += sum(1 for rec in recs if rec[0] == WRITEBACK)
            what = f"trial {t} (np={np}, flags={flags}, " + (f"cut at call {cut - start} of the run)" if cut is not None else "uncut)")
            if "CHECK FAILED" in out or (rc != 0 and not was_cut):
                failures.append(f"{what}: the restart after the previous cut found:\n{out}")
                log(f"FAIL {what}\n{out}")
                break  # the store is broken: a new chain
            if was_cut:
                stats["cut"] += 1
            else:
                stats["ran_to_end"] += 1  # the power goes off after the job ended
                est[key] = calls - start
            tear = r.rng.random() < 0.5
            stats["tear"] += tear
            replay(journal, r.rng, tear, log, zeros, per_process="--across-nodes" in sys.argv)
            os.unlink(journal)
            after = last_acked(store)
            if not os.path.isdir(store):
                stats["store_gone"] += 1
            # The power is back: the store must verify (if anything was
            # reported committed), and the next trial's writer checks the rest.
            if after > 0:
                vrc, vout = r.verify(store)
                if vrc != 0:
                    failures.append(f"{what}: cairn verify after the cut (tear={tear}):\n{vout}")
                    log(f"FAIL {what}: cairn verify (tear={tear})\n{vout}")
                    break
            if "--lock" in sys.argv:
                why = lock_check(r, np, store, flags)
                stats["lock_checks"] += 1
                if why:
                    failures.append(f"{what}: the writer lock after the cut (tear={tear}): {why}")
                    log(f"FAIL {what}: the writer lock after the cut\n{why}")
                    break
            log(f"{what}: {'cut' if was_cut else 'ran to the end'}, reported committed {before}->{after}, "
                f"tear={tear}, {time.time() - t0:.1f} s")
        else:
            # The last cut of the chain is checked by one more run, uncut.
            rc, out = r.run(np, store, 1, flags)
            if rc != 0:
                failures.append(f"chain {chain - 1} (np={np}, flags={flags}): the final check found:\n{out}")
                log(f"FAIL final check of chain {chain - 1}\n{out}")
    return failures, stats


def failed_record(r, trials, log):
    """A commit whose manifest record's fsync fails (EIO), then a power
    loss. The store's revisions 1 and 2 are made uncut; the journaled job
    commits revision 3 with CAIRN_TEST_FAIL_MANIFEST_FSYNC=1 (the job's
    first fsync of MANIFEST, the record's, fails before the call) and stops
    (writer flag F: revision 3 listed in STORE.failed). The writer cut the
    record back (truncation) and fsynced that; the power then goes off with
    every call before the file's last unsynced truncation kept and the
    truncation lost (the other unsynced writes undone). The restart must
    find revision 2, not the failed 3 ("If any rank fails, no revision is
    made"): the record must not come back. 1 and 2 ranks, synchronous,
    asynchronous, staged."""
    failures = []
    kinds = [(1, "F"), (2, "aF"), (1, "asF"), (2, "sF")]
    for t in range(trials):
        np, flags = kinds[t % len(kinds)]
        store, journal = os.path.join(r.tmp, f"r{t}"), os.path.join(r.tmp, f"r{t}.j")
        what = f"trial {t} (np={np}, flags={flags})"
        rc, out = r.run(np, store, 2, flags)
        if rc != 0:
            failures.append(f"{what}: making revisions 1 and 2 failed:\n{out}")
            continue
        rc, out = r.run(np, store, 1, flags, journal=journal, extra={"CAIRN_TEST_FAIL_MANIFEST_FSYNC": "1"})
        try:
            with open(store + ".failed") as f:
                failed = f.read().split()
        except FileNotFoundError:
            failed = []
        if rc != 0 or failed != ["3"]:
            failures.append(f"{what}: the commit of revision 3 did not fail as it should (rc {rc}, "
                            f"failed {failed}):\n{out}")
            continue
        replay(journal, r.rng, False, log, truncate_lost=True)
        os.unlink(journal)
        rc, out = r.run(np, store, 1, flags)
        if rc != 0:
            failures.append(f"{what}: after the power cut the restart found:\n{out}")
            log(f"FAIL {what}\n{out}")
        else:
            log(f"{what}: revision 3 absent")
    return failures


# --every-cut: (ranks, flags) of the jobs cut at every call.
EVERY_CUT = [(1, "p"), (2, "asp")]


def every_cut(r, log):
    """One job cut at every one of its calls in turn, instead of at random
    ones: a store of a few revisions is made uncut (jobs without pins); an
    uncut, journaled reference run of the job on a copy (flag p: a pin of
    the revision it reopened at, then 3 commits, one of which compacts the
    manifest: CAIRN_MANIFEST_COMPACT_BYTES=512; the store gets one more
    revision until it does) gives its calls N; then for each K in 0..N a
    copy is cut at call K, replayed (undone, or torn on odd K), and checked
    as a restart (the usual writer's check, cairn verify). So the few calls between a durability point and the next one
    that covers it are all cut: a pin record before the next manifest
    fsync, a compacted manifest renamed before the next record's fsync.
    Fails if no reference job compacted the manifest."""
    failures = []
    cuts = 0
    env = {"CAIRN_MANIFEST_COMPACT_BYTES": "512"}

    def copy(src, dst):
        shutil.copytree(src, dst)
        for ext in (".acked", ".pinned"):
            if os.path.exists(src + ext):
                shutil.copy(src + ext, dst + ext)

    for w, (np, flags) in enumerate(EVERY_CUT):
        base = os.path.join(r.tmp, f"c{w}")
        # One more revision (uncut, not journaled) until the job's reference
        # run on a copy compacts the manifest.
        compacts = False
        for made in range(12):
            rc, out = r.run(np, base, 1, flags.replace("p", "") or "-", extra=env)
            if rc != 0:
                return failures + [f"making the store (np={np}, flags={flags}) failed:\n{out}"], cuts
            ref, refj = f"{base}-ref{made}", f"{base}-ref{made}.j"
            copy(base, ref)
            rc, out = r.run(np, ref, 3, flags, journal=refj, extra=env)
            if rc != 0:
                return failures + [f"the uncut reference run (np={np}, flags={flags}) failed:\n{out}"], cuts
            calls = journal_calls(refj)
            compacts = any(rec[0] == RENAME for rec in read_journal(refj)[2])
            if compacts:
                break
        if not compacts:
            failures.append(f"np={np}, flags={flags}: no reference job compacted the manifest")
        for cut in range(calls + 1):
            store, journal = f"{base}-{cut}", f"{base}-{cut}.j"
            copy(base, store)
            tear = cut % 2 == 1
            r.run(np, store, 3, flags, journal=journal, cut=cut, extra=env)
            replay(journal, r.rng, tear, log)
            cuts += 1
            what = f"np={np}, flags={flags}, cut at call {cut} of {calls} (tear={tear})"
            why = None
            if last_acked(store) > 0:
                vrc, vout = r.verify(store)
                if vrc != 0:
                    why = f"cairn verify after the cut:\n{vout}"
            if why is None:
                rc, out = r.run(np, store, 1, flags, extra=env)
                if rc != 0:
                    why = f"the restart after the cut found:\n{out}"
            if why:
                failures.append(f"{what}: {why}")
                log(f"FAIL {what}: {why}")
            else:
                log(f"{what}: intact")
            shutil.rmtree(store)
            for f in (journal, store + ".acked", store + ".pinned"):
                if os.path.exists(f):
                    os.unlink(f)
    return failures, cuts


def first_open_dies(r, trials, log):
    """Issue 10 item 8: a job creates the store and dies (kill -9) before its
    first commit; the next job commits; then the power fails. Three kinds:
    the store directory made by the first job; made before, durably (mkdir,
    fsync of its parent), so only the files in it are at stake; an existing
    store with one data file, which the first job opens with two
    (Options::subfiles = 2), so it creates the second data file."""
    failures = []
    kinds = ["store directory made by the first job", "store directory made durably before",
             "second data file made by the first job"]
    for t in range(trials):
        kind = t % 3
        np = 2 if kind == 2 else [1, 2][(t // 3) % 2]
        flags = "2" if kind == 2 else "-"
        store = os.path.join(r.tmp, f"f{t}")
        journal = os.path.join(r.tmp, f"fj{t}")
        if kind == 1:
            os.mkdir(store)
            fd = os.open(r.tmp, os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)
        if kind == 2:
            rc, out = r.run(np, store, 1, "-", journal=journal)  # revision 1, durable
        rc, out = r.run(np, store, 1, flags, journal=journal, extra={"CAIRN_CRASH_POINT": "before_manifest"})
        rc, out = r.run(np, store, 2, flags, journal=journal)
        if rc != 0:
            failures.append(f"trial {t}: the second job failed:\n{out}")
            continue
        replay(journal, r.rng, False, log)
        os.unlink(journal)
        rc, out = r.run(np, store, 1, flags)
        if rc != 0:
            failures.append(f"trial {t} (np={np}, {kinds[kind]}): "
                            f"after the power cut, {last_acked(store)} was reported "
                            f"committed, but the restart found:\n{out}")
            log(f"FAIL trial {t}\n{out}")
    return failures


def first_commit_entries(r, trials, log):
    """A new store's first commit cut after a data file's fsync and before
    the revision record, with the replay's outcome for the directory
    entries chosen instead of drawn: every entry not made durable survives
    except MANIFEST's (an outcome tear mode draws with probability 1/4 or
    less, the cut window being a few calls). The store directory is made
    durably before the job, as a job script would. A correct store made
    MANIFEST's header and entry durable before any data file existed, so
    the next job opens it; a MANIFEST lost beside a data file with durable
    bytes reads as a lost manifest, and the open refuses the store although
    nothing was ever committed. The cut points: every call from the first
    data file fsync of an uncut reference run up to its manifest record's
    fsync, plus two (the order of the ranks' calls varies); the run fails
    unless some cut lands with a data file fsynced and the store directory
    not fsynced since the data files were made."""
    failures = []
    reached = 0
    t = 0
    kinds = [(1, "-"), (2, "a"), (2, "-"), (1, "as")]
    for k in range(trials):
        if t >= trials:
            break
        np, flags = kinds[k % len(kinds)]
        # The reference run: the calls of this job on a store made the same way.
        ref, refj = os.path.join(r.tmp, f"e-ref{t}"), os.path.join(r.tmp, f"e-ref{t}.j")
        os.mkdir(ref)
        rc, out = r.run(np, ref, 1, flags, journal=refj)
        if rc != 0:
            return failures + [f"the uncut reference run failed:\n{out}"], reached
        recs = read_journal(refj)[2]
        data_sync = min(i for i, rec in enumerate(recs) if rec[0] == SYNC and "/data." in rec[1])
        record = min(i for i, rec in enumerate(recs)
                     if rec[0] == SYNC and rec[1].endswith("/MANIFEST") and i > data_sync)
        for cut in range(data_sync, min(record + 3, len(recs) + 1)):
            if t >= trials:
                break
            store, journal = os.path.join(r.tmp, f"e{t}"), os.path.join(r.tmp, f"e{t}.j")
            os.mkdir(store)
            fd = os.open(r.tmp, os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)
            r.run(np, store, 1, flags, journal=journal, cut=cut)
            cut_recs = read_journal(journal)[2]
            # The window: a data file fsynced, and the store directory not
            # fsynced since the data files were made (so the entries made
            # before them are durable only if they were synced before).
            made = max((i for i, rec in enumerate(cut_recs) if rec[0] == CREATE and "/data." in rec[1]), default=-1)
            if any(rec[0] == SYNC and "/data." in rec[1] for rec in cut_recs) and not any(
                    rec[0] == SYNCDIR and rec[1] == store and i > made for i, rec in enumerate(cut_recs)):
                reached += 1
            replay(journal, r.rng, False, log, lose_entry=lambda p: os.path.basename(p) == "MANIFEST")
            os.unlink(journal)
            rc, out = r.run(np, store, 1, flags)
            what = f"trial {t} (np={np}, flags={flags}, cut at call {cut}, record fsync at {record} uncut)"
            if rc != 0:
                failures.append(f"{what}: after the power cut, {last_acked(store)} was reported committed, "
                                f"but the restart found:\n{out}")
                log(f"FAIL {what}\n{out}")
            else:
                log(f"{what}: reopened")
            t += 1
    if reached == 0:
        failures.append("no cut landed between a data file's fsync and its directory's")
    return failures, reached


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) < 3:
        print(__doc__)
        return 2
    writer, tool, mpiexec = args[:3]
    long_form = os.environ.get("CAIRN_LONG_TESTS", "0") not in ("", "0")
    seed = int(os.environ.get("CAIRN_SEED", random.randrange(1 << 16)))
    print(f"seed {seed} (set CAIRN_SEED to repeat)", flush=True)
    rng = random.Random(seed)
    verbose = os.environ.get("CAIRN_VERBOSE", "0") != "0"
    log = lambda m: print(m, flush=True) if (verbose or m.startswith("FAIL")) else None
    tmp = tempfile.mkdtemp(prefix="cairn-power-loss-", dir=os.environ.get("TMPDIR"))
    r = Runner(writer, tool, mpiexec, tmp, rng)
    t0 = time.time()
    try:
        if "--failed-record" in sys.argv:
            trials = int(args[3]) if len(args) > 3 else 8
            failures = failed_record(r, trials, log)
            print(f"a commit whose record fsync failed, then a power cut: {trials} trials; failures: "
                  f"{len(failures)} ({time.time() - t0:.0f} s)")
        elif "--every-cut" in sys.argv:
            failures, cuts = every_cut(r, log)
            print(f"one job cut at every call: {cuts} cuts; failures: {len(failures)} ({time.time() - t0:.0f} s)")
        elif "--first-commit-entries" in sys.argv:
            trials = int(args[3]) if len(args) > 3 else 12
            failures, reached = first_commit_entries(r, trials, log)
            print(f"first commit cut after a data fsync, MANIFEST's entry lost if not durable: {trials} trials, "
                  f"{reached} with a data file fsynced and its directory not; failures: {len(failures)} "
                  f"({time.time() - t0:.0f} s)")
        elif "--first-open-dies" in sys.argv:
            trials = int(args[3]) if len(args) > 3 else 4
            failures = first_open_dies(r, trials, log)
            print(f"first open dies before its first commit, then a power cut: {trials} trials, "
                  f"failures: {len(failures)} ({time.time() - t0:.0f} s)")
        else:
            trials = int(args[3]) if len(args) > 3 else (1040 if long_form else 104)
            failures, stats = cut_trials(r, trials, log, "--zeros" in sys.argv, "--resize" in sys.argv)
            if "--drop" in sys.argv and stats["writeback_waits"] == 0:
                failures.append("no wait for writeback was journaled: the tables no longer reach DropBehind's "
                                "wait (CAIRN_TEST_TABLE_DROP_LAG, src/store/commit_tables.cc)")
            print(f"power-loss cuts: {trials} trials ({stats['cut']} cut inside a job, {stats['ran_to_end']} after "
                  f"it ended; {stats['tear']} torn; store directory lost {stats['store_gone']} times, each "
                  f"before anything was reported committed"
                  f"{'; %d writer-lock checks' % stats['lock_checks'] if stats['lock_checks'] else ''}"
                  f"{'; %d waits for writeback' % stats['writeback_waits'] if stats['writeback_waits'] else ''}); "
                  f"failures: {len(failures)} "
                  f"({time.time() - t0:.0f} s)")
        for f in failures[:5]:
            print("FAIL: " + f)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
