#!/usr/bin/env python3
"""Large catalogues (streamed index tables) under power cuts, kill -9 and a
full disk. Outside test; not in ctest (minutes per run, heavy).

  bigcat_torture.py BUILD WORKDIR MODE TRIALS [NKEYS] [NP,NP..]

MODE:
  power  chains of jobs (2 rounds each) cut at a random fault-journal call
         (CAIRN_FAULT_JOURNAL/CUT, the replay of tests/power_loss_test.py:
         unsynced writes undone, or torn in half the trials); after each cut
         `cairn verify --all` and `bigcat check` at another rank count.
  kill   jobs killed -9 (all ranks, or one rank) at a random moment, most
         often inside a commit's table write; then the same checks.
  fsize  a fresh store per trial, RLIMIT_FSIZE somewhere inside the table
         of a round: the commit must fail cleanly and, once the limit is
         lifted, the same handle must commit; then the checks.
Each trial picks async/sync, staging or not, keep_revisions 2 or 0 from the
seed (CAIRN_SEED). Failures are printed with FAIL and the run exits 1.
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import power_loss_test as plt  # noqa: E402


def main():
    build, work, mode, trials = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    nkeys = int(sys.argv[5]) if len(sys.argv) > 5 else 1200000
    nps = [int(x) for x in (sys.argv[6] if len(sys.argv) > 6 else "1,2").split(",")]
    seed = int(os.environ.get("CAIRN_SEED", random.randrange(1 << 16)))
    rng = random.Random(seed)
    print(f"seed {seed}, mode {mode}, {trials} trials, {nkeys} keys per rank, ranks {nps}", flush=True)
    exe = os.path.join(build, "tests", "breaker_bigcat")
    tool = os.path.join(build, "tools", "cairn")
    if not os.path.exists(tool):
        tool = os.path.join(build, "cairn")
    env0 = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_odls_base_sigkill_timeout="0")
    for k in ("CAIRN_FAULT_JOURNAL", "CAIRN_FAULT_CUT"):
        env0.pop(k, None)
    os.makedirs(work, exist_ok=True)
    failures = []
    stats = {"cut": 0, "uncut": 0, "tear": 0, "killed": 0, "commit_failed": 0, "checks": 0}

    def run(np, args, env, timeout=900):
        p = subprocess.run(["mpiexec", "-n", str(np), exe] + args, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")

    def checks(store, what):
        if not os.path.exists(store + ".acked") and not os.path.isdir(store):
            return True
        p = subprocess.run([tool, "verify", store, "--all"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=900)
        out = p.stdout.decode(errors="replace")
        if p.returncode != 0 and os.path.exists(store + ".acked"):
            failures.append(f"{what}: cairn verify --all rc {p.returncode}:\n{out[-3000:]}")
            print(f"FAIL {what}: verify\n{out[-3000:]}", flush=True)
            return False
        np = rng.choice([1, 2, 3])
        rc, out = run(np, ["check", store], env0)
        stats["checks"] += 1
        if rc != 0 and os.path.exists(store + ".acked"):
            failures.append(f"{what}: bigcat check at {np} ranks rc {rc}:\n{out[-3000:]}")
            print(f"FAIL {what}: check at {np}\n{out[-3000:]}", flush=True)
            return False
        print(f"  {what}: verify ok, check at {np} ranks: {out.strip().splitlines()[-1] if out.strip() else ''}",
              flush=True)
        return True

    def options():
        if os.environ.get("BIG_FORCE_OPTS"):  # e.g. '{"BIG_KEEP": "2"}': sync, no staging
            return json.loads(os.environ["BIG_FORCE_OPTS"])
        e = {}
        a = rng.random() < 0.5
        if a:
            e["BIG_ASYNC"] = "1"
        if rng.random() < 0.5:
            e["BIG_STAGING"] = str(rng.choice([8, 64]) << 20)
        e["BIG_KEEP"] = rng.choice(["2", "2", "0", "1"])
        return e

    t0 = time.time()
    est = {}  # journal calls of an uncut job, per rank count
    t = 0
    chain = 0
    while t < trials:
        chain += 1
        store = os.path.join(work, f"{mode}{chain}")
        journal = os.path.join(work, f"j{chain}")
        shutil.rmtree(store, ignore_errors=True)
        for f in (store + ".acked", journal):
            if os.path.exists(f):
                os.unlink(f)
        opts = options()
        for k in range(4 if mode != "fsize" else 1):
            if t >= trials:
                break
            t += 1
            np = rng.choice(nps)
            env = dict(env0, **opts)
            what = f"trial {t} (chain {chain}, np {np}, {opts})"
            if mode == "power":
                env["CAIRN_FAULT_JOURNAL"] = journal
                start = plt.journal_calls(journal)
                # The first job of a chain runs uncut (a committed base, and
                # the number of calls a job makes); later ones are cut
                # anywhere in that many calls (most of them table pieces).
                n = int(est[np] * 1.1) if np in est and k > 0 else 0
                cut = start + rng.randint(0, max(n - 1, 0)) if n else None
                if cut is not None:
                    env["CAIRN_FAULT_CUT"] = str(cut)
                rc, out = run(np, ["write", store, "2", str(nkeys)], env)
                calls, was_cut, _ = plt.read_journal(journal) if os.path.exists(journal) else (0, 0, [])
                if "BIGCAT FAIL" in out or (rc != 0 and not was_cut):
                    failures.append(f"{what}: writer rc {rc}:\n{out[-3000:]}")
                    print(f"FAIL {what}\n{out[-3000:]}", flush=True)
                    break
                if was_cut:
                    stats["cut"] += 1
                else:
                    stats["uncut"] += 1
                    est[np] = calls - start
                tear = rng.random() < 0.5
                stats["tear"] += tear
                plt.replay(journal, rng, tear, lambda m: print("  " + m, flush=True))
                os.unlink(journal)
                print(f"{what}: cut at {cut - start if cut else None} of ~{n} calls ({'cut' if was_cut else 'ran to the end'}), "
                      f"tear={tear}", flush=True)
            elif mode == "kill":
                p = subprocess.Popen(["mpiexec", "-n", str(np), exe, "write", store, "3", str(nkeys)], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
                delay = rng.uniform(0.5, 12.0)
                try:
                    out, _ = p.communicate(timeout=delay)
                    rc = p.returncode
                    out = out.decode(errors="replace")
                    if rc != 0 or "BIGCAT FAIL" in out:
                        failures.append(f"{what}: writer rc {rc}:\n{out[-3000:]}")
                        print(f"FAIL {what}\n{out[-3000:]}", flush=True)
                        break
                    print(f"{what}: finished before the kill at {delay:.1f} s", flush=True)
                except subprocess.TimeoutExpired:
                    whole = rng.random() < 0.6

                    def kill_session():
                        # Open MPI puts ranks in process groups of their own:
                        # every process of the job's session goes.
                        ps = subprocess.run(["ps", "-e", "-o", "pid=,sid="], stdout=subprocess.PIPE, text=True).stdout
                        for line in ps.splitlines():
                            q, sid = line.split()
                            if int(sid) == p.pid:
                                try:
                                    os.kill(int(q), signal.SIGKILL)
                                except ProcessLookupError:
                                    pass
                    if whole:
                        kill_session()
                    else:
                        kids = subprocess.run(["pgrep", "-f", "-P", str(p.pid), "breaker_bigcat"],
                                              stdout=subprocess.PIPE).stdout.split()
                        if kids:
                            os.kill(int(rng.choice(kids)), signal.SIGKILL)
                        else:
                            kill_session()
                    try:
                        p.communicate(timeout=60)
                    except subprocess.TimeoutExpired:
                        kill_session()
                        p.communicate()
                    time.sleep(0.5)
                    kill_session()  # a rank left behind would still write
                    stats["killed"] += 1
                    print(f"{what}: killed ({'whole job' if whole else 'one rank'}) at {delay:.1f} s", flush=True)
            elif mode == "fsize":
                # The table of round 1 is about 80-100 bytes per key: cut inside it.
                env["BIG_FSIZE"] = str(rng.randint(1 << 20, nkeys * 80))
                if os.environ.get("FSIZE_ON_BASE") == "1":
                    # A committed catalogue first: the limit then falls in a
                    # later round's table, whose base is a streamed table.
                    rc, out = run(np, ["write", store, "1", str(nkeys)], dict(env0, **opts))
                    if rc != 0:
                        failures.append(f"{what}: base writer rc {rc}:\n{out[-3000:]}")
                        break
                rc, out = run(np, ["write", store, "2", str(nkeys)], env)
                if rc != 0 or "BIGCAT FAIL" in out:
                    failures.append(f"{what}: writer rc {rc}:\n{out[-3000:]}")
                    print(f"FAIL {what}\n{out[-3000:]}", flush=True)
                    break
                stats["commit_failed"] += out.count("COMMIT FAILED")
                print(f"{what}: {env['BIG_FSIZE']} bytes allowed: "
                      f"{[l for l in out.splitlines() if 'FAILED' in l or 'streamed' in l]}", flush=True)
            if not checks(store, what):
                break
        shutil.rmtree(store, ignore_errors=True)
    print(f"{mode}: {t} trials, {stats}, failures: {len(failures)} ({time.time() - t0:.0f} s)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
