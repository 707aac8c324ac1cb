import subprocess, random, statistics, sys, os
F, off, ln, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
M = 1 << 20
V = {"plain1M": f"0 {M}", "pread32M": f"0 {32*M}", "slide8M": f"1 {M} {8*M}", "slide16M": f"1 {M} {16*M}",
     "slide32M": f"1 {M} {32*M}", "win8M": f"2 {M} {8*M}", "win4M": f"2 {M} {4*M}", "win16M": f"2 {M} {16*M}"}
if len(sys.argv) > 5: V = {k: V[k] for k in sys.argv[5].split(",")}
res = {k: [] for k in V}
rng = random.Random(1); l0 = os.getloadavg()[0]
for r in range(reps):
    ks = list(V); rng.shuffle(ks)
    for k in ks:
        out = subprocess.run(["./probe", F, off, ln] + V[k].split(), capture_output=True, text=True).stdout
        res[k].append(float(out.split()[0]))
print(f"load {l0:.1f} -> {os.getloadavg()[0]:.1f}")
for k, xs in res.items():
    print(f"{k:10s} {statistics.median(xs):7.0f} [{min(xs):.0f}-{max(xs):.0f}]")
