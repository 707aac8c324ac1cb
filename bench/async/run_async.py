#!/usr/bin/env python3
"""Synchronous vs asynchronous checkpoints of the heat example.

At 1, 2 and 4 ranks the grid is sized so each rank's block is 256 MiB (the
issue's checkpoint size), and heat runs --steps S checkpointing --every K,
with Commit ("sync") and with --async (CommitAsync, staged puts, Test()
each step). (The zero-copy mode of the earlier results is gone: heat's grid
is now a global array, and PutArray copies its block.) Each
step also sleeps --sleep-ms, standing for the rest of an application's
work, so that the interval between checkpoints (K steps) is longer than
the time the disk needs to take one: the regime asynchronous checkpoints
are for (with a shorter interval the next checkpoint waits for the last). Per run it reports the time the application was blocked per
checkpoint (pack + put + commit call, the slowest rank), the wait for the
last asynchronous commit at the end, and the whole run's time. Runs of the
two modes alternate in random order, 5 of each per rank count by default.

Usage: bench/async/run_async.py [--runs 5] [--ranks 1,2,4] [--every 10]
       [--steps 30] [--mib-per-rank 256] [--build build-bench]
Output: bench/results/async-<time>/{runs.json,results.md}
"""
import argparse, json, math, os, random, re, shutil, statistics, subprocess, time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


def mmm(xs, fmt="%.3f"):
    return (fmt + " / " + fmt + " / " + fmt) % (min(xs), statistics.median(xs), max(xs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--every", type=int, default=20)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--sleep-ms", type=int, default=100)
    ap.add_argument("--mib-per-rank", type=int, default=256)
    ap.add_argument("--build", default=os.path.join(REPO, "build-bench"))
    ap.add_argument("--dir", default="/tmp/cairn-async-bench")
    a = ap.parse_args()
    subprocess.run(["cmake", "-S", REPO, "-B", a.build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                    "-DCAIRN_BUILD_BENCH=ON"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", a.build, "--target", "heat"], check=True, stdout=subprocess.DEVNULL)
    heat = os.path.join(a.build, "examples", "heat", "heat")
    ranks = [int(x) for x in a.ranks.split(",")]
    runs = []
    for n in ranks:
        cells = n * a.mib_per_rank * (1 << 20) // 8
        side = int(math.ceil(math.sqrt(cells)))
        order = ["sync", "async"] * a.runs
        random.shuffle(order)
        for i, mode in enumerate(order):
            shutil.rmtree(a.dir, ignore_errors=True)
            cmd = ["mpiexec", "-n", str(n), heat, "--store", a.dir, "--steps", str(a.steps), "--every",
                   str(a.every), "--nx", str(side), "--ny", str(side), "--sleep-ms", str(a.sleep_ms)]
            cmd += {"sync": [], "async": ["--async"]}[mode]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=ENV).stdout
            m = re.search(r"timing: mode ([\w-]+) checkpoints (\d+) blocked_total_s ([\d.]+) blocked_max_s ([\d.]+) "
                          r"final_wait_s ([\d.]+) run_s ([\d.]+)", out)
            ck = int(m.group(2))
            r = dict(ranks=n, mode=mode, side=side, checkpoints=ck, blocked_per_ckpt_s=float(m.group(3)) / ck,
                     blocked_max_s=float(m.group(4)), final_wait_s=float(m.group(5)), run_s=float(m.group(6)),
                     checksum=out.strip().split()[-1])
            runs.append(r)
            print("%d ranks %-15s blocked %.3f s/ckpt, final wait %.3f s, run %.2f s" %
                  (n, mode, r["blocked_per_ckpt_s"], r["final_wait_s"], r["run_s"]), flush=True)
    shutil.rmtree(a.dir, ignore_errors=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    outdir = os.path.join(REPO, "bench", "results", "async-" + stamp)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "runs.json"), "w") as f:
        json.dump(runs, f, indent=1)
    lines = ["# Synchronous vs asynchronous checkpoints (heat example)", "",
             "`python3 bench/async/run_async.py --runs %d --ranks %s --every %d --steps %d --sleep-ms %d --mib-per-rank %d` on %s."
             % (a.runs, a.ranks, a.every, a.steps, a.sleep_ms, a.mib_per_rank, stamp), "",
             "%d MiB per rank per checkpoint, %d checkpoints per run; min / median / max over %d runs of each mode."
             % (a.mib_per_rank, a.steps // a.every, a.runs), "",
             "Blocked: the slowest rank's time inside the checkpoint code per checkpoint (pack the block, put, "
             "commit call). Ratios compare medians.", "",
             "| ranks | mode | blocked per checkpoint (s) | / sync blocked | wait for the last commit at the end (s) | run (s) |",
             "|---|---|---|---|---|---|"]
    for n in ranks:
        by = {m: [r for r in runs if r["ranks"] == n and r["mode"] == m] for m in ("sync", "async")}
        sums = {r["checksum"] for m in by for r in by[m]}
        if len(sums) != 1:
            lines.append("| %d | checksums differ between runs: %s | | | | |" % (n, sorted(sums)))
        sync_med = statistics.median([r["blocked_per_ckpt_s"] for r in by["sync"]])
        for m in ("sync", "async"):
            b = [r["blocked_per_ckpt_s"] for r in by[m]]
            lines.append("| %d | %s | %s | %.1f %% | %s | %s |" % (
                n, m, mmm(b), 100 * statistics.median(b) / sync_med,
                mmm([r["final_wait_s"] for r in by[m]]), mmm([r["run_s"] for r in by[m]], "%.2f")))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write(text)
    print(text)
    print("results in", outdir)


if __name__ == "__main__":
    main()
