#!/usr/bin/env python3
"""kill -9 torture of combo (features together), with the cairn tool run on
the live store and after each kill, the library verifier at another rank
count and the independent reader.
Usage: torture.py BUILD WORKDIR CYCLES [SEED]"""
import hashlib
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time

build, work, cycles = sys.argv[1], sys.argv[2], int(sys.argv[3])
seed0 = int(sys.argv[4]) if len(sys.argv) > 4 else int(time.time())
here = os.path.dirname(os.path.abspath(__file__))
combo = os.path.join(build, "tests", "breaker_combo")
if not os.path.exists(combo):
    combo = os.path.join(build, "breaker_combo")
tool = os.path.join(build, "tools", "cairn")
py = os.path.join(build, "venv", "bin", "python")
store = os.path.join(work, "store")
model = os.path.join(work, "model")
rnd = random.Random(seed0)
stats = {}


def bump(k):
    stats[k] = stats.get(k, 0) + 1


def cap():
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 30, 1 << 30))
    if os.environ.get("COMBO_CIL_MIX") == "1":
        # Each job (writer, verify, pinread; C++ or Python) its own
        # compact_index_limit: 0 streams or writes apart every table, 300
        # some, 65536 (the default) gathers them; stores written with one
        # and opened with another.
        os.environ["COMBO_CIL"] = random.SystemRandom().choice(["0", "300", "65536"])
    os.setsid()


def fail(msg):
    print("TORTURE FAIL:", msg, flush=True)
    keep = work + ".fail-%d" % int(time.time())
    shutil.copytree(work, keep)
    print("saved to", keep, "stats", stats, flush=True)
    sys.exit(1)


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout,
                           preexec_fn=cap)
    except subprocess.TimeoutExpired:
        fail("timeout (hang?) of %s" % cmd)
    return p


def manifest_sum():
    try:
        return hashlib.sha256(open(os.path.join(store, "MANIFEST"), "rb").read()).hexdigest()
    except FileNotFoundError:
        return None


def session_pids(sid):
    out = subprocess.run(["ps", "-e", "-o", "pid=,sid="], capture_output=True, text=True).stdout
    return [int(l.split()[0]) for l in out.splitlines() if int(l.split()[1]) == sid]


def group_alive(sid):
    return bool(session_pids(sid))


def kill_session(sid):
    for pid in session_pids(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def ranks_of(pgid):
    out = subprocess.run(["ps", "-o", "pid=,pgid=,comm="], capture_output=True, text=True,
                         ).stdout if False else subprocess.run(
        ["ps", "-e", "-o", "pid=,sid=,comm="], capture_output=True, text=True).stdout
    pids = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and int(f[1]) == pgid and f[2].startswith("breaker_combo"):
            pids.append(int(f[0]))
    return pids


def live_tools():
    """The tool on a store a job is writing: reads must work or fail cleanly;
    writes must be refused (the writer lock)."""
    if not os.path.exists(os.path.join(store, "MANIFEST")):
        return
    c = rnd.choice(["ls", "verify", "keys", "arrays", "space", "info", "repair", "pin", "drop",
                    "get"])
    bump("live_" + c)
    if c in ("ls", "space", "info", "arrays", "keys"):
        p = run([tool, c, store, "--json"])
        if p.returncode not in (0,) :
            # A read of a live store may race an expiry (documented); note it.
            bump("live_%s_rc%d" % (c, p.returncode))
            if p.returncode == 2:
                print("NOTE live %s exit 2: %s %s" % (c, p.stdout[-300:], p.stderr[-300:]), flush=True)
    elif c == "verify":
        p = run([tool, "verify", store])
        if p.returncode == 2:
            # Damage reported on a live store: is the revision still retained?
            # (A writer may expire and reuse it meanwhile: documented.)
            import re
            m = re.search(r"^revision (\d+):", p.stdout, re.M)
            l = run([tool, "ls", store, "--json"])
            try:
                listed = [r["revision"] for r in json.loads(l.stdout)]
            except Exception:
                listed = []
            rv = int(m.group(1)) if m else -1
            print("NOTE live verify rc2 of revision %d; still listed after: %s" % (rv, rv in listed), flush=True)
            if rv in listed:
                bump("live_verify_rc2_retained")
                keep = work + ".live-%d" % int(time.time())
                shutil.copytree(store, keep)
                print("NOTE copied store to", keep, flush=True)
        if p.returncode != 0:
            bump("live_verify_rc%d" % p.returncode)
            print("NOTE live verify exit %d: %s %s" % (p.returncode, p.stdout[-400:], p.stderr[-400:]),
                  flush=True)
    elif c == "get":
        p = run([tool, "get", store, "G", "--select", ":", "--npy", "-o", os.path.join(work, "g.npy")])
        bump("live_get_rc%d" % p.returncode)
    else:
        before = manifest_sum()
        args = {"repair": [tool, "repair", store], "pin": [tool, "pin", store, "1"],
                "drop": [tool, "drop", store, "1"]}[c]
        p = run(args)
        bump("live_%s_rc%d" % (c, p.returncode))
        if p.returncode == 0:
            # It changed a store a job holds the lock of?
            print("NOTE live %s exit 0 while a job writes: %s %s" % (c, p.stdout[-300:],
                                                                    p.stderr[-300:]), flush=True)
            if c != "repair" or "nothing" not in (p.stdout + p.stderr).lower():
                fail("cairn %s succeeded on a store held by a writer: %s %s" % (c, p.stdout, p.stderr))


def events_append(line):
    path = os.path.join(model, "events")
    with open(path, "a") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


def tool_edits():
    """The tool pins, unpins or drops a revision between jobs (recorded in the
    model's events as the writer does: pins after, unpins and drops before)."""
    if not os.path.exists(os.path.join(store, "MANIFEST")):
        return
    p = run([tool, "ls", store, "--json"])
    try:
        revs = json.loads(p.stdout)
    except Exception:
        fail("ls --json after kill: %s %s" % (p.stdout[-300:], p.stderr[-300:]))
    if not revs:
        return
    r = rnd.choice(revs)
    act = rnd.choice(["pin", "unpin", "drop"])
    if act == "drop" and r is revs[-1]:
        # Not the newest: the revisions it expired are gone, and the model
        # could not tell a lost revision from one it legitimately expired.
        act = "pin"
    if act == "pin":
        p = run([tool, "pin", store, str(r["revision"])])
        if p.returncode == 0:
            events_append("pin %d" % r["revision"])
    else:
        events_append("%s %d" % (act, r["revision"]))
        p = run([tool, act, store, str(r["revision"])])
    bump("tool_%s_rc%d" % (act, p.returncode))
    if p.returncode not in (0, 1) or (act != "drop" and p.returncode != 0) or \
            (act == "drop" and p.returncode == 1 and not r.get("pinned")):
        fail("cairn %s %d: rc %d %s %s" % (act, r["revision"], p.returncode, p.stdout, p.stderr))


def after_kill(cycle):
    if rnd.random() < 0.3:
        tool_edits()
    p = run([tool, "verify", store, "--all"])
    if os.path.exists(os.path.join(store, "MANIFEST")) and p.returncode != 0:
        fail("cairn verify --all exit %d after kill: %s %s" % (p.returncode, p.stdout, p.stderr))
    m = rnd.randint(1, 4)
    p = run(["mpiexec", "-n", str(m), combo, "verify", store, model], timeout=300)
    if p.returncode != 0:
        fail("combo verify at %d ranks: %s %s" % (m, p.stdout[-2000:], p.stderr[-3000:]))
    bump("verify_ok")
    if os.environ.get("MIXED") == "1":
        m = rnd.randint(1, 4)
        p = run(["mpiexec", "-n", str(m), py, os.path.join(here, "pycombo.py"), "verify", store, model],
                timeout=300)
        if p.returncode != 0:
            fail("pycombo verify at %d ranks: %s %s" % (m, p.stdout[-2000:], p.stderr[-3000:]))
        bump("pyverify_ok")
    if cycle % 2 == 0:
        p = run([py, os.path.join(here, "reader_check.py"), store, model], timeout=300)
        if p.returncode != 0:
            fail("reader_check: %s %s" % (p.stdout[-3000:], p.stderr[-2000:]))
        bump("reader_ok")
        # cairn ls vs the reader's ls
        if os.path.exists(os.path.join(store, "MANIFEST")):
            a = run([tool, "ls", store, "--json"])
            b = run([py, os.path.join(here, "..", "..", "tools", "cairn_reader.py"), store, "ls"])
            try:
                ra = [r["revision"] for r in json.loads(a.stdout)]
                rb = [r.get("revision", r.get("number")) for r in json.loads(b.stdout)]
            except Exception as e:  # noqa
                fail("ls json: %s | %s | %s" % (e, a.stdout[:500], b.stdout[:500]))
            if ra != rb:
                fail("cairn ls %s vs reader ls %s" % (ra, rb))
    if cycle % 5 == 0 and os.path.exists(os.path.join(store, "MANIFEST")):
        before = manifest_sum()
        p = run([tool, "repair", store])
        bump("repair_rc%d" % p.returncode)
        if p.returncode != 0:
            fail("repair after kill exit %d: %s %s" % (p.returncode, p.stdout, p.stderr))
        if manifest_sum() != before:
            print("NOTE repair rewrote the manifest after a kill: %s" % (p.stdout + p.stderr), flush=True)
            bump("repair_rewrote")


def main():
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(model)
    for cycle in range(cycles):
        m = rnd.randint(1, 4)
        keep = rnd.choice([1, 2, 2, 3])
        staging = rnd.choice([0, 1 << 20])
        rounds = rnd.randint(10, 200)
        seed = seed0 * 1000 + cycle
        args = ["mpiexec", "-n", str(m), combo, "write", store, model, str(seed), str(rounds),
                str(keep), str(staging)]
        use_py = os.environ.get("MIXED") == "1" and rnd.random() < 0.5
        if use_py:
            args = ["mpiexec", "-n", str(m), py, os.path.join(here, "pycombo.py"), "write", store, model,
                    str(seed), str(rounds // 3 + 1), str(keep)]
            bump("py_writer")
        if not use_py and rnd.random() < 0.12 and os.path.exists(os.path.join(store, "MANIFEST")):
            p = run([tool, "ls", store, "--json"])
            try:
                revs = [r["revision"] for r in json.loads(p.stdout)]
            except Exception:
                revs = []
            revs = [r for r in revs if os.path.exists(os.path.join(model, "%d.done" % r))]
            if revs:
                args.append(str(rnd.choice(revs)))
                bump("rollback")
        logf = open(os.path.join(work, "write.log"), "w")
        proc = subprocess.Popen(args, stdout=logf, stderr=subprocess.STDOUT, preexec_fn=cap)
        kill_mode = rnd.choice(["group", "group", "rank", "rank", "mpiexec", "none"])
        deadline = time.time() + rnd.uniform(0.2, 4.0)
        while time.time() < deadline and proc.poll() is None:
            if rnd.random() < 0.3:
                live_tools()
            time.sleep(rnd.uniform(0.05, 0.4))
        killed = False
        if proc.poll() is None and kill_mode != "none":
            if kill_mode == "group":
                kill_session(proc.pid)
            elif kill_mode == "mpiexec":
                os.kill(proc.pid, signal.SIGKILL)
            else:
                pids = ranks_of(proc.pid)
                if pids:
                    os.kill(rnd.choice(pids), signal.SIGKILL)
            killed = True
            bump("kill_" + kill_mode)
        try:
            proc.wait(timeout=400)
        except subprocess.TimeoutExpired:
            kill_session(proc.pid)
            proc.wait()
            fail("writer did not end within 400 s (kill mode %s)" % kill_mode)
        t0 = time.time()
        while group_alive(proc.pid):
            if time.time() - t0 > 30:
                kill_session(proc.pid)
                fail("ranks left alive 30 s after mpiexec ended (kill %s)" % kill_mode)
            time.sleep(0.2)
        logf.close()
        out = open(os.path.join(work, "write.log")).read()
        if "EFBIG-ABORT" in out and "COMBO FAIL" not in out:
            killed = True
            bump("efbig_abort")
        if "COMBO FAIL" in out or "PYCOMBO FAIL" in out or "Traceback" in out or (not killed and proc.returncode != 0):
            fail("writer failed (rc %d, killed %s): %s" % (proc.returncode, killed, out[-3000:]))
        if not killed:
            bump("completed")
        after_kill(cycle)
        if cycle % 10 == 0:
            print("cycle %d stats %s" % (cycle, stats), flush=True)
    print("DONE %d cycles stats %s" % (cycles, stats), flush=True)


main()
