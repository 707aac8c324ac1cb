# Interleaved A/B of array_bench read cells (branch arrread): this branch's
# binary, main's binary, and HDF5 contiguous, reading stores written once
# (one per format, under /tmp/arrread/ab-MIB-WRITERS). During the
# experiment the branch's binary read knobs from its environment
# (CAIRN_X_AHEAD, CAIRN_X_HEAD; the variants of the README's tables); the
# kept code reads none, so for it pass one variant, e.g. new=0:0.
# usage: ab.py NEW MAIN MIB WRITERS READERS REPS PATTERNS VARIANTS OUT.json [HDF5MODES]
#   VARIANTS: name=AHEAD:HEAD,...  e.g. new0=0:0,h4=16777216:4194304
import json, os, random, shutil, statistics, subprocess, sys
new, main, mib, w, m, reps, pats, variants, out = sys.argv[1:10]
h5modes = sys.argv[10] if len(sys.argv) > 10 else "ind"
w, m, reps = int(w), int(m), int(reps)
systems = {"main": (main, "cairn", {}), "hdf5-contig": (new, "hdf5-contig", {})}
for v in variants.split(","):
    name, knobs = v.split("=")
    ahead, head, first, tables = (knobs.split(":") + ["0", "0"])[:4]
    systems[name] = (new, "cairn", {"CAIRN_X_AHEAD": ahead, "CAIRN_X_HEAD": head, "CAIRN_X_FIRST": first,
                                    "CAIRN_X_TABLES": tables})
base = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
            OMPI_MCA_rmaps_base_oversubscribe="1")
root = f"/tmp/arrread/ab-{mib}-{w}"
def run(cmd, extra):
    env = dict(base, **extra)
    xs = sum([["-x", k] for k in extra], [])
    p = subprocess.run(["mpiexec"] + xs + cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode: sys.exit(p.stdout + p.stderr)
    return [json.loads(l[7:]) for l in p.stdout.splitlines() if l.startswith("RESULT ")]
for sysname in ("cairn", "hdf5-contig"):  # one store per format, read by every variant
    d = f"{root}/{sysname}"
    if not os.path.exists(d):
        run(["-n", str(w), new, "--phase=write", f"--system={sysname}", f"--dir={d}", f"--mib={mib}"], {})
res, loads = [], [os.getloadavg()]
rng = random.Random(7)
for rep in range(reps):
    order = list(systems); rng.shuffle(order)
    for s in order:
        prog, sysname, extra = systems[s]
        modes = h5modes if sysname.startswith("hdf5") else "ind"
        for r in run(["-n", str(m), prog, "--phase=read", f"--writers={w}", f"--seed={rep}", f"--modes={modes}",
                      f"--system={sysname}", f"--dir={root}/{sysname}", f"--mib={mib}", f"--patterns={pats}"], extra):
            if sysname == "cairn": r["system"] = s
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
