#!/usr/bin/env python3
"""Runs history_bench RUNS times and prints min / median / max of the
per-commit time (median of each run's window) and the read-only open time
at each milestone, as a markdown table.

Usage: run_history.py HISTORY_BENCH DIR [--np N] [--runs 5]
                      [--milestones 2000,30000,100000] [--window 200]
"""
import argparse
import os
import statistics
import subprocess
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("dir")
    ap.add_argument("--np", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--milestones", default="2000,30000,100000")
    ap.add_argument("--window", default="200")
    ap.add_argument("--mpiexec", default="mpiexec")
    a = ap.parse_args()
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    rows = {}
    for run in range(a.runs):
        d = tempfile.mkdtemp(dir=a.dir)
        cmd = [a.mpiexec, "-n", str(a.np), a.bench, d, a.milestones, a.window]
        out = subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
        print(out, end="", flush=True)
        for line in out.splitlines():
            f = line.split()
            if len(f) == 5 and f[0].isdigit():
                rows.setdefault(int(f[0]), []).append((float(f[1]), float(f[3]), int(f[4])))
        os.rmdir(d) if os.path.isdir(d) and not os.listdir(d) else None

    def mmm(xs, d=1):
        return f"{min(xs):.{d}f} / {statistics.median(xs):.{d}f} / {max(xs):.{d}f}"
    print(f"\n{a.np} rank(s), {a.runs} runs, keep_revisions = 2, sync off")
    print("| revisions | commit us (min / median / max) | open ms (min / median / max) | MANIFEST bytes (max) |")
    print("|---|---|---|---|")
    for m in sorted(rows):
        c = [r[0] for r in rows[m]]
        o = [r[1] for r in rows[m]]
        print(f"| {m} | {mmm(c)} | {mmm(o, 2)} | {max(r[2] for r in rows[m])} |")


if __name__ == "__main__":
    main()
