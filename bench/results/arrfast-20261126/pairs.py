# Per-repetition ratios of two systems in an ab.py JSON: median [min-max] of A/B.
import json, statistics, sys
d = json.load(open(sys.argv[1])); a, b = sys.argv[2], sys.argv[3]
cells = {}
for r in d["results"]:
    if r.get("phase") == "read": cells.setdefault((r["pattern"], r["rep"]), {})[r["system"]] = r["mib_s"]
pats = sorted({p for p, _ in cells})
for p in pats:
    xs = sorted(v[a] / v[b] for (q, _), v in cells.items() if q == p and a in v and b in v)
    if xs: print(f"{p}: {a}/{b} median {statistics.median(xs):.2f} [{xs[0]:.2f}-{xs[-1]:.2f}] n={len(xs)} loads {d['loads'][0][0]:.1f}..{d['loads'][-1][0]:.1f}")
