#!/usr/bin/env python3
# Interleaved write+restart pairs of catalogue_bench for several builds.
# usage: catgrow-ab.py OUT ROUNDS SIZES SYSTEM name=binary ...
import json, os, random, shutil, subprocess, sys, time
out, rounds, sizes, system = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3].split(",")], sys.argv[4]
builds = dict(a.split("=", 1) for a in sys.argv[5:])
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
d = "/tmp/catgrow-store"
with open(out, "a") as f:
    for r in range(rounds):
        for n in sizes:
            order = list(builds); random.shuffle(order)
            for b in order:
                shutil.rmtree(d, ignore_errors=True)
                rec = dict(build=b, objects=n, system=system, round=r, load=os.getloadavg()[0], t=time.strftime("%H:%M:%S"))
                for phase in ("write", "restart"):
                    if phase == "restart":
                        subprocess.run(["sync"])
                        open("/proc/sys/vm/drop_caches", "w").write("1\n")
                    p = subprocess.run(["mpiexec", "-n", "1", builds[b], phase, system, d, str(n), "100"],
                                       env=env, capture_output=True, text=True)
                    if p.returncode: sys.exit(p.stdout + p.stderr)
                    j = json.loads(p.stdout.strip().splitlines()[-1])
                    for k, v in j.items():
                        if k.endswith(("_s", "_cpu_s", "_faults")) and v: rec[k] = v
                    if phase == "restart": rec["rss"] = j["peak_rss_kib"]
                f.write(json.dumps(rec) + "\n"); f.flush()
                print(b, n, "ck %.3f/%.3f open %.3f/%.3f read %.3f/%.3f ck2 %.3f/%.3f load %.1f" % (
                    rec.get("checkpoint_s", 0), rec.get("checkpoint_cpu_s", 0), rec.get("open_s", 0), rec.get("open_cpu_s", 0),
                    rec.get("verify_s", 0), rec.get("verify_cpu_s", 0), rec.get("checkpoint2_s", 0), rec.get("checkpoint2_cpu_s", 0), rec["load"]), flush=True)
shutil.rmtree(d, ignore_errors=True)
