# Interleaved A/B of array_bench read cells (branch arrfast): this branch's
# binary under the variants below, the base binary (main before the
# change) and HDF5 contiguous, reading stores written once (one per format,
# under ROOT/ab-MIB-WRITERS, written by NEW).
# usage: ab.py NEW BASE MIB WRITERS READERS REPS PATTERNS VARIANTS OUT.json [HDF5JOBS] [ROOT] [EXTRA]
#   VARIANTS: name=THREADS,...  e.g. one=1,two=2: array_bench --read_threads
#   (ArrayReadOptions::read_threads of split.patch); with the unchanged
#   code pass new=2 (the flag is ignored). The first experiments (ab-*,
#   ab2-*, ab3-*) ran a build that read its knobs from the environment
#   instead: CAIRN_X_SPLIT (the window bytes from which two threads read;
#   0: never) and CAIRN_X_REQ (the coalescing reader's request bytes).
#   HDF5JOBS: the HDF5 read jobs of a repetition, separated by "/", each
#   the --modes of one job: "ind" (default), "ind,coll" (one job reading
#   independently, then collectively: the runs before this branch),
#   "ind/coll" (one job per mode: each mode's read is its job's first, as
#   cairn's is). A mode read by a job after another is labelled with
#   "-2nd" when the job has more than one mode.
#   EXTRA: flags added to every read job, e.g. "--prime=1" (array_bench:
#   read each file whole before evicting it, so that every timed read
#   starts from the same state at the device).
import json, os, random, statistics, subprocess, sys
new, basebin, mib, w, m, reps, pats, variants, out = sys.argv[1:10]
h5jobs = (sys.argv[10] if len(sys.argv) > 10 else "ind").split("/")
root = (sys.argv[11] if len(sys.argv) > 11 and sys.argv[11] else "/tmp/arrfast") + f"/ab-{mib}-{w}"
read_extra = sys.argv[12].split() if len(sys.argv) > 12 else []
w, m, reps = int(w), int(m), int(reps)
systems = {"base": (basebin, "cairn", [])}
for j in h5jobs:
    systems["hdf5-contig:" + j] = (new, "hdf5-contig", [f"--modes={j}"])
for v in variants.split(","):
    name, threads = v.split("=")
    systems[name] = (new, "cairn", [f"--read_threads={threads}"])
env0 = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
            OMPI_MCA_rmaps_base_oversubscribe="1")
def run(cmd, extra):
    p = subprocess.run(["mpiexec"] + cmd + extra, env=env0, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode: sys.exit(p.stdout + p.stderr)
    return [json.loads(l[7:]) for l in p.stdout.splitlines() if l.startswith("RESULT ")]
for sysname in ("cairn", "hdf5-contig"):  # one store per format, read by every variant
    d = f"{root}/{sysname}"
    if not os.path.exists(d):
        run(["-n", str(w), new, "--phase=write", f"--system={sysname}", f"--dir={d}", f"--mib={mib}"], [])
res, loads = [], [os.getloadavg()]
rng = random.Random(7)
for rep in range(reps):
    order = list(systems); rng.shuffle(order)
    for s in order:
        prog, sysname, extra = systems[s]
        seen = set()
        for r in run(["-n", str(m), prog, "--phase=read", f"--writers={w}", f"--seed={rep}",
                      f"--system={sysname}", f"--dir={root}/{sysname}", f"--mib={mib}", f"--patterns={pats}"] + read_extra, extra):
            if sysname == "cairn": r["system"] = s
            elif "," in s:  # several modes in one job: which read came first
                r["system"] += "" if r["pattern"] not in seen else "-2nd"
                seen.add(r["pattern"])
            r["rep"] = rep; r["load"] = os.getloadavg()[0]
            res.append(r)
    loads.append(os.getloadavg())
json.dump({"cmd": sys.argv, "loads": loads, "results": res}, open(out, "w"), indent=1)
cells = {}
for r in res:
    if r.get("phase") == "read": cells.setdefault((r["pattern"], r["system"]), []).append(r)
print(f"{mib} MiB per writer, {w} -> {m}, {reps} interleaved reps; load {loads[0][0]:.2f} .. {loads[-1][0]:.2f}")
print("| pattern | system | MiB/s median | min | max | requests (median) |\n|---|---|---|---|---|---|")
for (p, s), rs in sorted(cells.items()):
    xs = [r["mib_s"] for r in rs]
    print(f"| {p} | {s} | {statistics.median(xs):.0f} | {min(xs):.0f} | {max(xs):.0f} | "
          f"{statistics.median([r['read_requests'] for r in rs]):.0f} |")
