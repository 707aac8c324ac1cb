# Interleaved A/B of array-bench read cells: one binary (this branch) with the
# pipeline on and off (CAIRN_READ_PIPELINE=0), main's binary, and HDF5 contiguous.
# usage: ab2.py MIB WRITERS READERS REPS PATTERNS OUT.json
# "pipeline-on/off" need build/ to be a build of commit d5e242f (CAIRN_READ_PIPELINE is out since 05ca5b5).
import json, os, subprocess, sys, statistics, shutil
mib, w, m, reps, pats, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
NEW = "build/bench/arrays/array_bench"  # run from the top of the tree
MAIN = "build-main/bench/arrays/array_bench"  # main, built out of tree
systems = {"pipeline-on": (NEW, "cairn", "1"), "pipeline-off": (NEW, "cairn", "0"),
           "main": (MAIN, "cairn", "1"), "hdf5-contig": (NEW, "hdf5-contig", "1")}
base = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
def run(cmd, pipe):
    env = dict(base, CAIRN_READ_PIPELINE=pipe)
    p = subprocess.run(["mpiexec", "-x", "CAIRN_READ_PIPELINE"] + cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode: sys.exit(p.stdout + p.stderr)
    return [json.loads(l[7:]) for l in p.stdout.splitlines() if l.startswith("RESULT ")]
for s, (prog, sysname, pipe) in systems.items():
    if s == "pipeline-off": continue  # reads pipeline-on's store
    d = f"/tmp/readpipe/ab2-{s}"
    shutil.rmtree(d, ignore_errors=True)
    run(["-n", str(w), prog, "--phase=write", f"--system={sysname}", f"--dir={d}", f"--mib={mib}"], pipe)
res = []
loads = [os.getloadavg()]
import random
rng = random.Random(1)
for rep in range(reps):
    order = list(systems); rng.shuffle(order)
    for s in order:
        prog, sysname, pipe = systems[s]
        d = f"/tmp/readpipe/ab2-{'pipeline-on' if s == 'pipeline-off' else s}"
        for r in run(["-n", str(m), prog, "--phase=read", f"--writers={w}", f"--seed={rep}", "--modes=ind",
                      f"--system={sysname}", f"--dir={d}", f"--mib={mib}", f"--patterns={pats}"], pipe):
            r["system"] = s; r["rep"] = rep; r["load"] = os.getloadavg()[0]
            res.append(r)
    loads.append(os.getloadavg())
json.dump({"cmd": sys.argv, "loads": loads, "results": res}, open(out, "w"), indent=1)
cells = {}
for r in res:
    if r.get("phase") == "read": cells.setdefault((r["pattern"], r["system"]), []).append(r["mib_s"])
print(f"{mib} MiB per writer, {w} -> {m}, {reps} interleaved reps; load {loads[0][0]:.1f} .. {loads[-1][0]:.1f}")
print("| pattern | system | median | min | max |\n|---|---|---|---|---|")
for (p, s), xs in sorted(cells.items()):
    print(f"| {p} | {s} | {statistics.median(xs):.0f} | {min(xs):.0f} | {max(xs):.0f} |")
