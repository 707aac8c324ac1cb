import json, os, random, shutil, subprocess, sys, statistics
bins = {"main": "/work/wt/integ/build/bench/catalogue/catalogue_bench",
        "new": "/work/wt/samesave/build/bench/catalogue/catalogue_bench"}
sysname, objs, tags, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
res = {k: [] for k in bins}
rng = random.Random(11)
def run(b, phase, d):
    p = subprocess.run([b, phase, sysname, d, objs, tags], capture_output=True, text=True, env=env)
    if p.returncode: sys.exit(p.stdout + p.stderr)
    return json.loads([l for l in p.stdout.splitlines() if l.startswith("{")][-1])
for rep in range(reps):
    order = list(bins); rng.shuffle(order)
    for k in order:
        d = f"/tmp/cab/{k}"
        shutil.rmtree(d, ignore_errors=True)
        w = run(bins[k], "write", d)
        r = run(bins[k], "restart", d)
        row = dict(ckpt=w["checkpoint_s"], open=r["open_s"], verify=r["verify_s"], ckpt2=r["checkpoint2_s"])
        res[k].append(row)
        print(rep, k, row, os.getloadavg()[0], flush=True)
for k, rows in res.items():
    out = []
    for f in ("ckpt", "open", "verify", "ckpt2"):
        xs = [r[f] for r in rows]
        out.append(f"{f} {min(xs):.3f}/{statistics.median(xs):.3f}/{max(xs):.3f}")
    ratios = [r["ckpt2"] / r["ckpt"] for r in rows]
    print(k, " | ".join(out), "| ckpt2/ckpt per run min/med/max %.2f/%.2f/%.2f" % (min(ratios), statistics.median(ratios), max(ratios)),
          "| ratio of medians %.2f" % (statistics.median([r["ckpt2"] for r in rows]) / statistics.median([r["ckpt"] for r in rows])))
