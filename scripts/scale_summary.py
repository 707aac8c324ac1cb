#!/usr/bin/env python3
"""Tabulates scale_bench outputs (bench-npN.txt, strace-npN-cC.txt) written
by scripts/scale_run.sh, and fits each count against the rank count N as
a + b*N (least squares), printing the fit and the largest relative
residual, so that anything growing faster than linearly shows.

usage: scale_summary.py OUT_DIR COMMITS N1 N2 ...
"""
import os
import sys


def load(path):
    d = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2:
                try:
                    d[parts[0]] = float(parts[1])
                except ValueError:
                    pass
    return d


def strace_counts(path):
    """syscall -> calls, from strace -c output."""
    counts = {}
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 5 and p[0][0].isdigit() and p[-1] != "total":
                try:
                    counts[p[-1]] = int(p[3])
                except ValueError:
                    pass
    return counts


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    a = my - b * mx
    worst = max((abs(a + b * x - y) / max(abs(y), 1.0) for x, y in zip(xs, ys)), default=0)
    return a, b, worst


def main():
    out, commits, ranks = sys.argv[1], int(sys.argv[2]), [int(r) for r in sys.argv[3:]]
    table(out, commits, ranks, "bench", "local file system layout (one data file per rank)")
    lustre = [n for n in ranks if os.path.exists(os.path.join(out, f"bench-lustre-np{n}.txt"))]
    if len(lustre) >= 2:
        table(out, commits, lustre, "bench-lustre",
              "Lustre's layout (CAIRN_FS_MAGIC=0BD00BD0: one data file per node; one node here)")


def table(out, commits, ranks, prefix, what):
    runs = {n: load(os.path.join(out, f"{prefix}-np{n}.txt")) for n in ranks}
    rows = [
        ("commit time, median (ms)", "commit_median_s", 1e3),
        ("commit time, median of the first 10 (ms)", "commit_median_first10_s", 1e3),
        ("commit time, median of the last 10 (ms)", "commit_median_last10_s", 1e3),
        ("restart: open (ms)", "restart_open_s", 1e3),
        ("restart: read everything (ms)", "restart_read_s", 1e3),
        ("per commit, all ranks: write requests", "commit.write_requests.all", 1),
        ("per commit, all ranks: bytes written", "commit.write_bytes.all", 1),
        ("per commit, rank 0: write requests", "commit.write_requests.rank0", 1),
        ("per commit, rank 0: bytes written", "commit.write_bytes.rank0", 1),
        ("per commit, rank 0: index bytes gathered", "commit.index_bytes_gathered.rank0", 1),
        ("per commit, all ranks: metadata ops", "commit.metadata_ops.all", 1),
        ("per commit, all ranks: open/create/stat/mkdir/rename/unlink", None, 1),
        ("per commit, all ranks: fsyncs", "commit.fsyncs.all", 1),
        ("per commit, rank 0: fsyncs", "commit.fsyncs.rank0", 1),
        ("restart open, all ranks: read requests", "restart_open.read_requests.all", 1),
        ("restart open, all ranks: bytes read", "restart_open.read_bytes.all", 1),
        ("restart open, rank 0: read requests", "restart_open.read_requests.rank0", 1),
        ("restart open, rank 0: bytes read", "restart_open.read_bytes.rank0", 1),
        ("restart open, all ranks: metadata ops", "restart_open.metadata_ops.all", 1),
        ("restart open + read, all ranks: read requests", "restart_open_read.read_requests.all", 1),
        ("restart open + read, all ranks: bytes read", "restart_open_read.read_bytes.all", 1),
        ("restart open + read, all ranks: metadata ops", "restart_open_read.metadata_ops.all", 1),
        ("RSS after MPI's warm-up, before the store (baseline), rank 0 (KiB)", "rss_mpi_baseline_kib.rank0", 1),
        ("RSS baseline, largest other rank (KiB)", "rss_mpi_baseline_kib.others_max", 1),
        ("RSS above the baseline after the last commit, rank 0 (KiB)", "rss_above_baseline_after_last_commit_kib.rank0", 1),
        ("RSS above the baseline after the last commit, largest other rank (KiB)", "rss_above_baseline_after_last_commit_kib.others_max", 1),
        ("heap in use after the writable open (above baseline), rank 0 (KiB)", "heap_store_after_open_kib.rank0", 1),
        ("heap in use after the writable open, largest other rank (KiB)", "heap_store_after_open_kib.others_max", 1),
        ("heap in use by the store after the last commit (above baseline), rank 0 (KiB)", "heap_store_after_last_commit_kib.rank0", 1),
        ("heap in use by the store after the last commit, largest other rank (KiB)", "heap_store_after_last_commit_kib.others_max", 1),
        ("heap growth per commit (commit 10 to last), rank 0 (KiB)", "heap_growth_per_commit_kib.rank0", 1),
        ("heap growth per commit, largest other rank (KiB)", "heap_growth_per_commit_kib.others_max", 1),
        ("heap above baseline after the restart's read, rank 0 (KiB)", "heap_after_restart_read_kib.rank0", 1),
        ("heap above baseline after the restart's read, largest other rank (KiB)", "heap_after_restart_read_kib.others_max", 1),
        ("RSS after the first commit, rank 0 (KiB)", "rss_after_first_commit_kib.rank0", 1),
        ("RSS after the first commit, largest other rank (KiB)", "rss_after_first_commit_kib.others_max", 1),
        ("RSS after the last commit, rank 0 (KiB)", "rss_after_last_commit_kib.rank0", 1),
        ("RSS after the last commit, largest other rank (KiB)", "rss_after_last_commit_kib.others_max", 1),
        ("RSS growth per commit (commit 10 to last), rank 0 (KiB)", "rss_growth_per_commit_kib.rank0", 1),
        ("RSS growth per commit, largest other rank (KiB)", "rss_growth_per_commit_kib.others_max", 1),
        ("peak RSS (VmHWM) after the commits, rank 0 (KiB)", "hwm_after_commits_kib.rank0", 1),
        ("peak RSS (VmHWM) after the commits, largest other rank (KiB)", "hwm_after_commits_kib.others_max", 1),
        ("peak RSS (VmHWM) at the end, rank 0 (KiB)", "hwm_end_kib.rank0", 1),
    ]
    first = runs[ranks[0]]
    print(f"## scale_bench, {what}: {commits} commits of {first.get('bytes_per_rank', 0) / 1024:.0f} KiB per rank "
          f"({first.get('objects', 0):.0f} values of {first.get('value_bytes', 0) / 1024:.0f} KiB with 4 tags, "
          f"{first.get('small_objects', 0):.0f} inline values, one global-array block), keep_revisions = 2, sync on")
    print()
    print("Counts per commit are the means over the steady commits (11 to the last). Fit: a + b*N over the rank counts; "
          "'worst' is the largest relative residual of the fit.")
    print()
    print("| quantity | " + " | ".join(f"N = {n}" for n in ranks) + " | fit a + b*N | worst |")
    print("|---|" + "---|" * len(ranks) + "---|---|")
    for label, key, scale in rows:
        ys = []
        for n in ranks:
            r = runs[n]
            if key is None:
                v = sum(r.get(f"commit.{k}.all", 0) for k in ("opens", "stats", "mkdirs", "renames", "unlinks"))
            else:
                v = r.get(key, float("nan"))
            ys.append(v * scale)
        a, b, worst = fit(ranks, ys)
        cells = " | ".join(f"{y:,.1f}" if abs(y) < 1000 else f"{y:,.0f}" for y in ys)
        print(f"| {label} | {cells} | {a:,.1f} + {b:,.2f} N | {worst * 100:.0f} % |")
    print()
    if prefix != "bench":
        return
    traced = {n: (strace_counts(os.path.join(out, f"strace-np{n}-c{commits}.txt")),
                  strace_counts(os.path.join(out, f"strace-np{n}-c{2 * commits}.txt"))) for n in ranks}
    if any(a is not None and b is not None for a, b in traced.values()):
        print(f"### System calls per checkpoint, strace -f (run of {2 * commits} commits minus run of {commits}, "
              f"/ {commits}; the whole job: MPI's calls included)")
        print()
        names = sorted({k for a, b in traced.values() if a and b for k in list(a) + list(b)})
        print("| call | " + " | ".join(f"N = {n}" for n in ranks) + " |")
        print("|---|" + "---|" * len(ranks))
        for k in names:
            cells = []
            for n in ranks:
                a, b = traced[n]
                cells.append("" if not a or not b else f"{(b.get(k, 0) - a.get(k, 0)) / commits:.1f}")
            print(f"| {k} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
