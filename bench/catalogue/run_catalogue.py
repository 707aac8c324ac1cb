#!/usr/bin/env python3
"""Runs the tagged-object catalogue benchmark (issue 4): cairn against SQLite
and RocksDB on PDC's workload, each cell at least 5 times, all in one run,
and writes a JSON file and a Markdown table (min / avg / max) under
bench/results/catalogue-<time>/.

  run_catalogue.py [--build DIR] [--reps N] [--quick]

Cells: strong scaling (100,000 objects x 100 tags on 1, 2, 4 ranks), weak
scaling (25,000 objects per rank), cairn alone at 10K, 100K and 1M
objects on 1 rank (linearity), and PDC's own published workload (100,000
objects, 100 integer tags in total, one on each of the first 100 objects,
1 client), printed beside PDC's published figures. With `--kinds update`
(not in the default), a small change after the restart: K of the 100,000
objects get a new value of one tag, committed durably (`--update-objects`,
default 1 and 1000; cairn-commit with SetTag + Commit, RocksDB with one
synced batch), against the full checkpoint of the same run.
"""
# PDC PR 305, as issue 11 quotes it: 100K objects with 100 integer tags in
# total, on 2 servers.
PDC_PUBLISHED = dict(checkpoint_s=1.25, restart_s=0.58, servers=2, tags=100)
import argparse, json, os, shutil, subprocess, sys, tempfile, time, statistics

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
PHASES = ["checkpoint", "open", "verify", "checkpoint2"]
# Wall seconds, and (where catalogue_bench reports them) CPU seconds and
# page faults of each phase.
FIELDS = ([p + "_s" for p in PHASES] + [p + "_cpu_s" for p in PHASES] + [p + "_faults" for p in PHASES] +
          ["update_s", "update_cpu_s", "update_faults", "peak_rss_kib", "bytes"])


def run_cell(binary, system, ranks, objects, tags, reps, workdir, tagged=None, update=0):
    runs = []
    for _ in range(reps):
        d = os.path.join(workdir, "store")
        shutil.rmtree(d, ignore_errors=True)
        out = {}
        for phase in ("write", "restart"):
            # Page cache dropped for the store before the restart, where the
            # kernel lets us (root): a restart reads from the device.
            if phase == "restart":
                subprocess.run(["sync"])
                try:
                    with open("/proc/sys/vm/drop_caches", "w") as f:
                        f.write("1\n")
                except OSError:
                    pass
            extra = [str(tagged)] if tagged is not None else []
            env = dict(ENV, CATALOGUE_UPDATE=str(update)) if update else ENV
            p = subprocess.run(["mpiexec", "-n", str(ranks), binary, phase, system, d, str(objects), str(tags)] + extra,
                               env=env, capture_output=True, text=True)
            if p.returncode != 0:
                raise SystemExit("%s %s failed:\n%s%s" % (system, phase, p.stdout, p.stderr))
            r = json.loads(p.stdout.strip().splitlines()[-1])
            for k in FIELDS:
                if r.get(k):
                    out[k] = r[k] if not (k == "peak_rss_kib" and phase == "write") else out.get(k, 0)
            if phase == "restart":
                out["peak_rss_kib"] = r["peak_rss_kib"]
                out["bytes"] = r["bytes"]
                out["tags_checked"] = r["tags_checked"]
        want = min(objects, tagged if tagged is not None else objects) * tags
        if out.get("tags_checked") != want:
            raise SystemExit("%s: %s tags checked, expected %d" % (system, out.get("tags_checked"), want))
        runs.append(out)
        shutil.rmtree(d, ignore_errors=True)
    return runs


def summary(runs, field):
    v = [r.get(field, 0.0) for r in runs]
    return min(v), statistics.mean(v), max(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke check")
    ap.add_argument("--systems", default="cairn,cairn-commit,sqlite,rocksdb")
    ap.add_argument("--no-linearity", action="store_true")
    ap.add_argument("--ranks", default="1,2,4", help="rank counts of the scaling cells")
    ap.add_argument("--kinds", default="strong,weak,pdc", help="cells to run: strong, weak, pdc")
    ap.add_argument("--linearity-systems", default="cairn,cairn-commit")
    ap.add_argument("--update-systems", default="cairn-commit,rocksdb",
                    help="systems of the update cells (--kinds update)")
    ap.add_argument("--update-objects", default="1,1000", help="K of the update cells")
    args = ap.parse_args()
    binary = os.path.join(args.build, "bench/catalogue/catalogue_bench")
    systems = args.systems.split(",")
    scale = 10 if args.quick else 1
    cells = []
    ranks = [int(x) for x in args.ranks.split(",")]
    kinds = args.kinds.split(",")
    for s in ranks if "strong" in kinds else []:
        for sysname in systems:
            cells.append(("strong", sysname, s, 100000 // scale))
    for s in ranks if "weak" in kinds else []:
        for sysname in systems:
            cells.append(("weak", sysname, s, 25000 // scale * s))
    if "pdc" in kinds:  # PDC's exact workload: 100 integer tags in total, 1 client
        for sysname in systems:
            cells.append(("pdc", sysname, 1, 100000 // scale))
    if not args.no_linearity:
        for o in (10000, 100000, 1000000):
            for sysname in args.linearity_systems.split(","):
                cells.append(("linearity", sysname, 1, o // scale))
    updates = []  # (system, K): a small change after the restart
    if "update" in kinds:
        for k in (int(x) for x in args.update_objects.split(",")):
            for sysname in args.update_systems.split(","):
                updates.append((sysname, k))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    outdir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results", "catalogue-" + stamp)
    os.makedirs(outdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="cairn-catalogue-")
    results = []
    try:
        for kind, sysname, ranks, objects in cells:
            t0 = time.time()
            tags, tagged = (1, 100) if kind == "pdc" else (100, None)
            runs = run_cell(binary, sysname, ranks, objects, tags, args.reps, work, tagged)
            results.append(dict(kind=kind, system=sysname, ranks=ranks, objects=objects, tags=tags,
                                tagged=tagged, runs=runs))
            ck = summary(runs, "checkpoint_s")
            print("%-9s %-12s S=%d O=%-8d ckpt %.3f/%.3f/%.3f  (%.0f s)" % (kind, sysname, ranks, objects, *ck, time.time() - t0),
                  flush=True)
        for sysname, k in updates:
            t0 = time.time()
            runs = run_cell(binary, sysname, 1, 100000 // scale, 100, args.reps, work, None, k)
            results.append(dict(kind="update", system=sysname, ranks=1, objects=100000 // scale, tags=100,
                                tagged=None, updated=k, runs=runs))
            up = summary(runs, "update_s")
            print("update    %-12s K=%-6d update %.4f/%.4f/%.4f  (%.0f s)" % (sysname, k, *up, time.time() - t0),
                  flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(outdir, "catalogue.json"), "w") as f:
        json.dump(dict(reps=args.reps, results=results), f, indent=1)
    lines = ["# Catalogue benchmark (%s), %d runs per cell, min / avg / max seconds" % (stamp, args.reps), "",
             "checkpoint: save the whole catalogue durably (cairn: Put every object + Commit; cairn-commit: the "
             "catalogue lives in the store, Commit only). restart: open. verify: read and check every tag. "
             "checkpoint 2: the checkpoint again after the restart.", "",
             "| scaling | system | ranks | objects | checkpoint | open | read all tags | checkpoint 2 | ckpt2/ckpt | CPU s (avg): ckpt / open / read / ckpt2 | page faults (avg): ckpt / open / ckpt2 | peak RSS restart (MiB) | MB on disk |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if r["kind"] == "update":
            continue
        c, o, v, c2 = (summary(r["runs"], k) for k in ("checkpoint_s", "open_s", "verify_s", "checkpoint2_s"))
        rss = max(x["peak_rss_kib"] for x in r["runs"]) / 1024
        mb = max(x["bytes"] for x in r["runs"]) / 1e6
        fmt = lambda t: "%.3f / %.3f / %.3f" % t
        cpu = " / ".join("%.3f" % summary(r["runs"], p + "_cpu_s")[1] for p in PHASES)
        flt = " / ".join("%.0f" % summary(r["runs"], p + "_faults")[1] for p in ("checkpoint", "open", "checkpoint2"))
        lines.append("| %s | %s | %d | %d | %s | %s | %s | %s | %.2f | %s | %s | %.0f | %.0f |" % (
            r["kind"], r["system"], r["ranks"], r["objects"], fmt(c), fmt(o), fmt(v), fmt(c2), c2[1] / c[1], cpu, flt,
            rss, mb))
    pdc = [r for r in results if r["kind"] == "pdc"]
    if pdc:
        lines += ["", "## PDC's own workload (100,000 objects, 100 integer tags in total, 1 client)", "",
                  "PDC's published figures (PR 305, %d servers): checkpoint %.2f s, restart %.2f s. "
                  "The 10M-tag cells above (100 tags on each of 100,000 objects) are the 100x harder cell: 100x the tags "
                  "of one tag per object, and 100,000x the %d tags in total of PDC's own run."
                  % (PDC_PUBLISHED["servers"], PDC_PUBLISHED["checkpoint_s"], PDC_PUBLISHED["restart_s"], PDC_PUBLISHED["tags"]),
                  "", "| system | servers | checkpoint min / avg / max | restart (open + read all tags) min / avg / max | checkpoint 2 |",
                  "|---|---|---|---|---|",
                  "| PDC (published) | %d | %.2f | %.2f | |" % (PDC_PUBLISHED["servers"], PDC_PUBLISHED["checkpoint_s"], PDC_PUBLISHED["restart_s"])]
        for r in pdc:
            c, c2 = summary(r["runs"], "checkpoint_s"), summary(r["runs"], "checkpoint2_s")
            rs = [x.get("open_s", 0) + x.get("verify_s", 0) for x in r["runs"]]
            lines.append("| %s | %d | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f |" % (
                r["system"], r["ranks"], *c, min(rs), statistics.mean(rs), max(rs), *c2))
    upd = [r for r in results if r["kind"] == "update"]
    if upd:
        lines += ["", "## A small change: K objects get a new value of one tag, committed durably", "",
                  "After the restart of a 100,000 x 100-tag catalogue (1 rank), on the store reopened: cairn-commit "
                  "SetTag on each object + Commit; RocksDB one synced batch of the K tag keys. The last column is the "
                  "same runs' first checkpoint (cairn-commit: Commit alone, the puts untimed; RocksDB: every key "
                  "written, flushed and closed: not the same work).", "",
                  "| system | K | update min / median / max s | update CPU s (median) | first checkpoint median s |",
                  "|---|---|---|---|---|"]
        med = lambda runs, k: statistics.median([x.get(k, 0.0) for x in runs])
        for r in upd:
            u = summary(r["runs"], "update_s")
            lines.append("| %s | %d | %.4f / %.4f / %.4f | %.4f | %.3f |" % (
                r["system"], r["updated"], u[0], med(r["runs"], "update_s"), u[2], med(r["runs"], "update_cpu_s"),
                med(r["runs"], "checkpoint_s")))
    # Ratios against the peers, same run.
    lines += ["", "## cairn against the peers (ratio of averages; > 1 means cairn is faster)", "",
              "| scaling | ranks | vs | checkpoint | restart (open + read all tags) | checkpoint 2 |", "|---|---|---|---|---|---|"]
    by = {(r["kind"], r["system"], r["ranks"]): r for r in results}
    for kind in ("strong", "weak"):
        for s in (1, 2, 4):
            me = by.get((kind, "cairn", s))
            if not me:
                continue
            for peer in ("sqlite", "rocksdb"):
                p = by.get((kind, peer, s))
                if not p:
                    continue
                avg = lambda r, k: summary(r["runs"], k)[1]
                ov = lambda r: avg(r, "open_s") + avg(r, "verify_s")
                lines.append("| %s | %d | %s | %.1fx | %.1fx | %.1fx |" % (
                    kind, s, peer, avg(p, "checkpoint_s") / avg(me, "checkpoint_s"),
                    ov(p) / ov(me), avg(p, "checkpoint2_s") / avg(me, "checkpoint2_s")))
    with open(os.path.join(outdir, "catalogue.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print("\nwritten:", outdir)


if __name__ == "__main__":
    main()
