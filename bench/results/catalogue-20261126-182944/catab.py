# Interleaved A/B of the update cell: catalogue_bench built against the library before (/tmp/catbase) and after (/tmp/catnew).
# usage: catab.py REPS K1,K2
import json, os, subprocess, statistics, sys, shutil
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
reps = int(sys.argv[1]); ks = [int(x) for x in sys.argv[2].split(",")]
res = {}
for r in range(reps):
    for k in ks:
        for v in (["base", "new"] if r % 2 == 0 else ["new", "base"]):
            b = f"/tmp/cat{v}/bench/catalogue/catalogue_bench"; d = "/tmp/catab-store"
            shutil.rmtree(d, ignore_errors=True)
            subprocess.run(["mpiexec", "-n", "1", b, "write", "cairn-commit", d, "100000", "100"], env=env, check=True, capture_output=True)
            subprocess.run(["sync"]); open("/proc/sys/vm/drop_caches", "w").write("1\n")
            p = subprocess.run(["mpiexec", "-n", "1", b, "restart", "cairn-commit", d, "100000", "100"], env=dict(env, CATALOGUE_UPDATE=str(k)), check=True, capture_output=True, text=True)
            j = json.loads(p.stdout.strip().splitlines()[-1])
            res.setdefault((v, k), []).append(j["update_s"])
shutil.rmtree("/tmp/catab-store", ignore_errors=True)
for (v, k), xs in sorted(res.items()):
    print(f"{v:5} K={k:5} update s min/median/max {min(xs):.4f} / {statistics.median(xs):.4f} / {max(xs):.4f}  ({len(xs)} runs) {' '.join('%.3f'%x for x in xs)}")
for k in ks:
    print(f"K={k}: new/base median ratio {statistics.median(res[('new',k)])/statistics.median(res[('base',k)]):.2f}")
