#!/usr/bin/env python3
"""Runs the global-array benchmark (array_bench) and prints the tables of
bench/arrays/README.md.

For each repetition, for each writer count N, the systems take turns in a
new random order (cairn and the HDF5 variants interleaved): one job of N
ranks writes the array, then jobs of M ranks, for every M, read it (full,
three slabs, 1 % random boxes; each pattern from a cold open), then the
files are deleted. Then the planning cost: 8 -> 1 and 1 -> 8 ranks.

Usage: run_arrays.py ARRAY_BENCH [--dir /tmp/cairn-array-bench] [--mib 256]
         [--writers 1,2,4,8] [--readers 1,2,4,8] [--reps 5]
         [--systems cairn,hdf5-contig,hdf5-chunk] [--json FILE] [--plan-side 16]
         [--ts-python PYTHON]   (adds tensorstore-zarr, ts_peer.py under PYTHON)
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

# What runs: cairn, and the HDF5 layouts (contiguous, chunked, and chunked
# with its Fletcher-32 checksum checked on read), each read collectively and
# independently, by a read job per mode (columns hdf5-LAYOUT-coll, -ind).
SYSTEMS = ["cairn", "cairn-g0", "hdf5-contig", "hdf5-chunk", "hdf5-f32"]
PATTERNS = ["full", "slab0", "slab1", "slab2", "boxes"]


def run(cmd, env):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    return [json.loads(line[7:]) for line in p.stdout.splitlines() if line.startswith("RESULT ")]


def mmm(xs, fmt="{:.0f}"):
    return f"{fmt.format(statistics.median(xs))} [{fmt.format(min(xs))}-{fmt.format(max(xs))}]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--dir", default="/tmp/cairn-array-bench")
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--writers", default="1,2,4,8")
    ap.add_argument("--readers", default="1,2,4,8")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--plan-side", type=int, default=16)
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--json", default="")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tables-from", default="",
                    help="print the tables of an earlier run's --json file (partial runs too) and stop")
    ap.add_argument("--patterns", default="",
                    help="read only these patterns (comma-separated; default all)")
    ap.add_argument("--base", default="",
                    help="another build's array_bench (e.g. of main): adds the system cairn-base, its cairn, "
                         "interleaved with the others (a before/after comparison)")
    ap.add_argument("--ts-python", default="",
                    help="a Python with tensorstore, numpy and mpi4py: adds the tensorstore-zarr peer")
    a = ap.parse_args()
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    writers = [int(x) for x in a.writers.split(",")]
    readers = [int(x) for x in a.readers.split(",")]
    systems = a.systems.split(",")
    bench = os.path.abspath(a.bench)
    ts_peer = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ts_peer.py")
    if a.ts_python:
        if subprocess.run([a.ts_python, "-c", "import tensorstore, numpy, mpi4py"]).returncode == 0:
            systems.append("tensorstore-zarr")
        else:
            print(f"{a.ts_python} cannot import tensorstore, numpy and mpi4py: tensorstore-zarr skipped",
                  file=sys.stderr)

    if a.base:
        systems.append("cairn-base")

    def prog(s):
        if s == "cairn-base":
            return [os.path.abspath(a.base)]
        return [a.ts_python, ts_peer] if s == "tensorstore-zarr" else [bench]

    def label(s, rs):  # cairn-base runs the other build's cairn
        for r in rs:
            if s == "cairn-base" and r.get("system") == "cairn":
                r["system"] = "cairn-base"
        return rs
    pat_args = [f"--patterns={a.patterns}"] if a.patterns else []
    rng = random.Random(a.seed)
    results = []
    load = [os.getloadavg()]
    t_start = time.time()
    plan = []

    def save():
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"args": vars(a), "load": load, "results": results, "plan": plan,
                           "minutes": (time.time() - t_start) / 60}, f, indent=1)
    if a.tables_from:
        with open(a.tables_from) as f:
            d = json.load(f)
        results, plan, load = d["results"], d["plan"], d["load"]
        a.mib, a.reps = d["args"]["mib"], 1 + max([r["rep"] for r in results], default=0)
        t_start -= d.get("minutes", 0) * 60
        systems = sorted({r["system"] for r in results if r["phase"] == "write"})
    for rep in range(0 if a.tables_from else a.reps):
        for n in writers:
            order = systems[:]
            rng.shuffle(order)
            for s in order:
                d = os.path.join(a.dir, f"{s}-w{n}")
                shutil.rmtree(d, ignore_errors=True)
                common = [f"--system={'cairn' if s == 'cairn-base' else s}", f"--dir={d}", f"--mib={a.mib}"]
                for r in label(s, run([a.mpiexec, "-n", str(n)] + prog(s) + ["--phase=write"] + common, env)):
                    r["rep"] = rep
                    results.append(r)
                for m in readers:
                    # One job per HDF5 transfer mode: a job's second read of
                    # the same bytes is faster here whatever the mode
                    # (HISTORY.md, "Results: what the cold read measures").
                    modes = ["coll", "ind"] if s.startswith("hdf5") else ["ind"]
                    rng.shuffle(modes)
                    for mode in modes:
                        for r in label(s, run([a.mpiexec, "-n", str(m)] + prog(s) + [
                                "--phase=read", f"--writers={n}", f"--seed={a.seed + rep}",
                                f"--modes={mode}"] + common + pat_args, env)):
                            r["rep"] = rep
                            results.append(r)
                shutil.rmtree(d, ignore_errors=True)
            print(f"rep {rep} writers {n} done ({time.time() - t_start:.0f} s, load {os.getloadavg()[0]:.1f})",
                  file=sys.stderr, flush=True)
        load.append(os.getloadavg())
        save()
    if "cairn" in systems and not a.tables_from:
        for w, r in ((8, 1), (1, 8)):
            d = os.path.join(a.dir, f"plan-{w}-{r}")
            shutil.rmtree(d, ignore_errors=True)
            run([a.mpiexec, "-n", str(w), bench, "--phase=plan", f"--dir={d}", f"--side={a.plan_side}",
                 "--read=0"], env)
            for x in run([a.mpiexec, "-n", str(r), bench, "--phase=plan", f"--dir={d}",
                          f"--side={a.plan_side}", "--write=0"], env):
                x["writers"] = w
                plan.append(x)
            shutil.rmtree(d, ignore_errors=True)
    if not a.tables_from:
        load.append(os.getloadavg())
        save()

    # ---- tables ----
    print(f"Array of {a.mib} MiB per writer, {a.reps} repetitions, systems interleaved; load average "
          f"{min(l[0] for l in load):.1f}-{max(l[0] for l in load):.1f} during the run; "
          f"{(time.time() - t_start) / 60:.0f} min.\n")
    print("Write, MiB/s: median [min-max]\n")
    print("| writers | " + " | ".join(systems) + " |")
    print("|---|" + "---|" * len(systems))
    for n in writers:
        row = []
        for s in systems:
            xs = [r["mib_s"] for r in results if r["phase"] == "write" and r["system"] == s and r["writers"] == n]
            row.append(mmm(xs) if xs else "-")
        print(f"| {n} | " + " | ".join(row) + " |")
    # Read columns: what the read jobs reported (an HDF5 layout gives two).
    cols = sorted({r["system"] for r in results if r["phase"] == "read"},
                  key=lambda x: (not x.startswith("cairn"), x.startswith("tensorstore"), x))
    hdf = [s for s in cols if s.startswith("hdf5")]
    goals = {"ahead": [], "ratio": []}
    for pat in PATTERNS:
        if not any(r["phase"] == "read" and r["pattern"] == pat for r in results):
            continue
        print(f"\nRead `{pat}`, MiB/s of bytes wanted: median [min-max]; last column: cairn's median over "
              f"the best HDF5 variant's median\n")
        vs_base = "cairn-base" in cols and "cairn" in cols
        print("| N -> M | " + " | ".join(cols) + (" | cairn / best HDF5 |" if hdf and "cairn" in cols else " |") +
              (" cairn / cairn-base |" if vs_base else ""))
        print("|---|" + "---|" * (len(cols) + (1 if hdf and "cairn" in cols else 0) + (1 if vs_base else 0)))
        for n in writers:
            for m in readers:
                cell = [r for r in results if r["phase"] == "read" and r["pattern"] == pat and
                        r["writers"] == n and r["readers"] == m]
                row, med = [], {}
                for s in cols:
                    xs = [r["mib_s"] for r in cell if r["system"] == s]
                    if xs:
                        med[s] = statistics.median(xs)
                    row.append(mmm(xs, "{:.1f}" if xs and max(xs) < 100 else "{:.0f}") if xs else "-")
                extra = ""
                if hdf and "cairn" in med and any(s in med for s in hdf):
                    best = max(med[s] for s in hdf if s in med)
                    ratio = med["cairn"] / best
                    goals["ahead"].append((pat, n, m, ratio))
                    extra = f" | {ratio:.2f}x"
                if "cairn-base" in med and "cairn" in med:
                    extra += f" | {med['cairn'] / med['cairn-base']:.2f}x"
                print(f"| {n} -> {m} | " + " | ".join(row) + extra + " |")
    print("\nBytes read / bytes wanted, and read requests (all ranks; counted at pread/preadv/read on the "
          "files; min-max over the N -> M cells)\n")
    print("| pattern | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for pat in PATTERNS:
        row = []
        for s in cols:
            cell = [r for r in results if r["phase"] == "read" and r["pattern"] == pat and r["system"] == s]
            if not cell:
                row.append("-")
                continue
            ratios = [r["bytes_read"] / r["bytes_wanted"] for r in cell]
            reqs = [r["read_requests"] for r in cell]
            row.append(f"{min(ratios):.2f}-{max(ratios):.2f}x, {min(reqs)}-{max(reqs)} req")
            if s.startswith("cairn") and pat in ("slab0", "slab1", "slab2", "boxes"):
                goals["ratio"].append((s, pat, max(ratios)))
        print(f"| {pat} | " + " | ".join(row) + " |")
    # Pages: what the device must deliver. pages_wanted is the bytes wanted
    # rounded out to the 4 KiB pages of the system's file layout that hold
    # them (array_bench PagesWanted); pages_read is the distinct pages of
    # the files that the counted calls returned (metadata included).
    if any("pages_read" in r for r in results if r["phase"] == "read"):
        for pat in PATTERNS:
            if not any(r["phase"] == "read" and r["pattern"] == pat for r in results):
                continue
            print(f"\nRead `{pat}`: pages read / pages wanted (syscall bytes read / bytes wanted), all ranks\n")
            print("| N -> M | " + " | ".join(cols) + " |")
            print("|---|" + "---|" * len(cols))
            for n in writers:
                for m in readers:
                    row = []
                    for s in cols:
                        cell = [r for r in results if r["phase"] == "read" and r["pattern"] == pat and
                                r["system"] == s and r["writers"] == n and r["readers"] == m and "pages_read" in r]
                        if not cell:
                            row.append("-")
                            continue
                        r = cell[0]
                        row.append(f"{r['pages_read'] / r['pages_wanted']:.2f} ({r['bytes_read'] / r['bytes_wanted']:.2f})")
                        if s.startswith("cairn") and pat != "full":
                            goals.setdefault("pages", []).append((s, pat, n, m, r["pages_read"] / r["pages_wanted"]))
                    print(f"| {n} -> {m} | " + " | ".join(row) + " |")
    if "cairn" in cols:
        print("\ncairn's own counters (Store::stats(): read requests, bytes read / wanted), boxes, per cell\n")
        print("| N -> M | requests | bytes read / wanted |")
        print("|---|---|---|")
        for n in writers:
            for m in readers:
                cell = [r for r in results if r["phase"] == "read" and r["pattern"] == "boxes" and
                        r["system"] == "cairn" and r["writers"] == n and r["readers"] == m]
                if cell:
                    r = cell[0]
                    print(f"| {n} -> {m} | {r['cairn_read_requests']} | "
                          f"{r['cairn_bytes_read'] / r['bytes_wanted']:.2f}x |")
    if plan:
        print("\nPlanning: GetArray of a box touching B blocks of 8x8x8 float64 (page cache warm), "
              "best of 5, slowest reader\n")
        print("| writers -> readers | array blocks | blocks touched | blocks examined | MiB | time ms | us per block |")
        print("|---|---|---|---|---|---|---|")
        for x in plan:
            print(f"| {x['writers']} -> {x['readers']} | {x['array_blocks']} | {x['blocks_touched']} | "
                  f"{x.get('blocks_examined', '-')} | "
                  f"{x['bytes'] / 1048576:.2f} | {x['seconds'] * 1e3:.2f} | {x['us_per_block']:.1f} |")
    if goals["ahead"]:
        behind = [g for g in goals["ahead"] if g[3] < 1.0]
        print(f"\nGoal 'ahead of HDF5 in every cell': {len(goals['ahead']) - len(behind)} of "
              f"{len(goals['ahead'])} cells met" +
              ("" if not behind else "; behind in: " +
               ", ".join(f"{p} {n}->{m} ({r:.2f}x)" for p, n, m, r in behind)))
    if goals.get("pages"):
        worst = {}
        for sname, pat, n, m, x in goals["pages"]:
            if x > worst.get((sname, pat), (0,))[0]:
                worst[(sname, pat)] = (x, n, m)
        print("Goal 'sub-box pages read <= 1.5x pages wanted' (worst cell): " +
              ", ".join(f"{sname} {pat} {x:.2f}x ({n}->{m})" for (sname, pat), (x, n, m) in sorted(worst.items())))
    if goals["ratio"]:
        print("Goal 'sub-box bytes read <= 1.5x wanted' (worst cell): " +
              ", ".join(f"{s} {p} {r:.2f}x" for s, p, r in goals["ratio"]))


if __name__ == "__main__":
    main()
