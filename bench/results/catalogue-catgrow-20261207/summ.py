#!/usr/bin/env python3
import json, sys, statistics as st
rows = [json.loads(l) for f in sys.argv[1:] for l in open(f)]
keys = ["checkpoint_s", "checkpoint_cpu_s", "open_s", "open_cpu_s", "verify_s", "verify_cpu_s", "checkpoint2_s", "checkpoint2_cpu_s"]
groups = {}
for r in rows:
    r["restart_s"] = r.get("open_s", 0) + r.get("verify_s", 0)
    r["restart_cpu_s"] = r.get("open_cpu_s", 0) + r.get("verify_cpu_s", 0)
    r["ratio2"] = r["checkpoint2_s"] / r["checkpoint_s"]
    r["ratio2_cpu"] = r["checkpoint2_cpu_s"] / r["checkpoint_cpu_s"]
    groups.setdefault((r["system"], r["build"], r["objects"]), []).append(r)
med = {}
for (s, b, n), rs in sorted(groups.items()):
    print("%s %s %d (n=%d)" % (s, b, n, len(rs)))
    for k in keys + ["restart_s", "restart_cpu_s", "ratio2", "ratio2_cpu"]:
        v = sorted(x.get(k, 0) for x in rs)
        med[(s, b, n, k)] = st.median(v)
        print("  %-18s %.3f / %.3f / %.3f" % (k, v[0], st.median(v), v[-1]))
for (s, b, n, k), v in sorted(med.items()):
    if n == 1000000 and (s, b, 100000, k) in med and k in ("checkpoint_s", "checkpoint_cpu_s", "restart_s", "restart_cpu_s", "checkpoint2_s", "checkpoint2_cpu_s"):
        print("linearity %s %s %s: %.1fx" % (s, b, k, v / med[(s, b, 100000, k)]))
