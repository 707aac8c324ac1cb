#!/usr/bin/env python3
"""The restart chain (chain.sh: C++ at 4 ranks, Python at 3, C at 2, C++ at 1;
the model in bigcat.cc "chain") under power cuts instead of kill -9: each
step's job runs under the fault journal and is cut at a random call
(CAIRN_FAULT_CUT), the unsynced writes are undone or torn (the replay of
tests/power_loss_test.py), then `cairn verify --all` and every retained
revision checked at 1, 2, 3 and 4 ranks; the next step's job restarts from
what survived. Usage: chain_power.py BUILD WORKDIR STEPS  (CAIRN_SEED)"""
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import power_loss_test as plt  # noqa: E402

build, work, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
seed = int(os.environ.get("CAIRN_SEED", random.randrange(1 << 16)))
rng = random.Random(seed)
print(f"seed {seed}", flush=True)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
store, journal = os.path.join(work, "store"), os.path.join(work, "journal")
env0 = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_odls_base_sigkill_timeout="0",
            PYTHONPATH=os.path.join(build, "python"))
for k in ("CAIRN_FAULT_JOURNAL", "CAIRN_FAULT_CUT"):
    env0.pop(k, None)
tool = os.path.join(build, "tools", "cairn")


def writer(kind, np, rounds):
    exe = {"cpp": [os.path.join(build, "tests", "breaker_bigcat"), "chainwrite", store, str(rounds)],
           "py": [os.path.join(build, "venv", "bin", "python"), os.path.join(HERE, "py_chain.py"), store, str(rounds)],
           "c": [os.path.join(build, "tests", "breaker_chain_c"), store, str(rounds)]}[kind]
    return ["mpiexec", "-n", str(np)] + exe


def run(cmd, env, timeout=600):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace")


def fail(msg):
    print("CHAIN POWER FAIL: " + msg, flush=True)
    sys.exit(1)


kinds = [("cpp", 4), ("py", 3), ("c", 2), ("cpp", 1)]
est = {}
cuts = 0
for k in range(steps):
    kind, np = kinds[k % 4]
    env = dict(env0, CAIRN_FAULT_JOURNAL=journal)
    if (kind, np) in est and os.path.isdir(store):
        cut = rng.randint(0, est[(kind, np)])
        env["CAIRN_FAULT_CUT"] = str(cut)
    else:
        cut = None
    rc, out = run(writer(kind, np, 4), env)
    calls, was_cut, _ = plt.read_journal(journal) if os.path.exists(journal) else (0, 0, [])
    if "CHAIN FAIL" in out or "BIGCAT FAIL" in out or (rc != 0 and not was_cut):
        fail(f"step {k} ({kind} at {np}), rc {rc}:\n{out[-3000:]}")
    if not was_cut:
        est[(kind, np)] = calls
    cuts += bool(was_cut)
    tear = rng.random() < 0.5
    plt.replay(journal, rng, tear, lambda m: None)
    os.unlink(journal)
    acked = plt.last_acked(store)
    msg = f"step {k} ({kind} at {np}): {'cut at call %d of %d' % (cut, est.get((kind, np), 0)) if was_cut else 'ran to the end'}, tear={tear}, last acked {acked}"
    if not os.path.isdir(store) or acked == 0:
        print(msg + " (nothing committed yet)", flush=True)
        continue
    rc, out = run([tool, "verify", store, "--all"], env0)
    if rc != 0:
        fail(f"{msg}: verify --all rc {rc}:\n{out[-3000:]}")
    for m in (1, 2, 3, 4):
        rc, out = run(["mpiexec", "-n", str(m), os.path.join(build, "tests", "breaker_bigcat"), "chaincheck", store], env0)
        if rc != 0:
            fail(f"{msg}: chaincheck at {m} ranks rc {rc}:\n{out[-3000:]}")
    print(msg + "; " + out.strip().splitlines()[-1], flush=True)
print(f"chain_power: {steps} steps, {cuts} cut inside a job, no failure", flush=True)
