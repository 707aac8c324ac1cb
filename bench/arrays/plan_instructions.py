#!/usr/bin/env python3
"""Planning cost of GetArray in instructions (deterministic, unlike time).

For each writers -> readers pair, one job of `writers` ranks writes an
array of side^3 blocks of 8x8x8 float64 (array_bench --phase=plan
--read=0); then a job of `readers` ranks reads boxes touching 2^3, 3^3,
5^3, ... blocks (--write=0), rank 0 under valgrind --tool=callgrind, the
bench zeroing the counts before every GetArray and dumping them right
after it (CALLGRIND_ZERO_STATS, CALLGRIND_DUMP_STATS_AT); the grid as is and cut (every
block put as two: irregular, found through the bounding-box index); boxes
shifted by half a block (touching (k+1)^3 blocks, cut) and not shifted
(k^3 whole blocks, the same bytes per block for every k). Every rank reads
the same box; the other ranks run natively. Prints instructions per call (the least of the
5 calls per box: the first call of a handle also decodes the descriptor,
loads index tables and decodes each block's chunk list), per block touched,
and those of the first call.

  python3 bench/arrays/plan_instructions.py build/bench/arrays/array_bench \\
      [--side 32] [--pairs 8:1,1:8] [--shifts 1,0] [--cuts 0,1] [--dir /tmp/cairn-plan-cg] \\
      [--keep]
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys


def dumps(prefix):
    """(k, rep, instructions) of every dump of one process."""
    out = []
    for f in glob.glob(prefix + ".*"):
        desc, total = None, None
        with open(f) as fh:
            for line in fh:
                m = re.match(r"desc: Trigger: Client Request: plan k=(\d+) rep=(\d+)", line)
                if m:
                    desc = (int(m.group(1)), int(m.group(2)))
                m = re.match(r"(?:summary|totals): (\d+)", line)
                if m:
                    total = int(m.group(1))
        if desc and total is not None:
            out.append((desc[0], desc[1], total))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--side", type=int, default=32)
    ap.add_argument("--pairs", default="8:1,1:8")
    ap.add_argument("--shifts", default="1,0", help="1: boxes shifted by half a block; 0: whole blocks")
    ap.add_argument("--cuts", default="0,1", help="1: every block put as two (rows [0, 3) and [3, 8)): irregular")
    ap.add_argument("--dir", default="/tmp/cairn-plan-cg")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--keep", action="store_true", help="keep the callgrind files (for callgrind_annotate)")
    a = ap.parse_args()
    bench = os.path.abspath(a.bench)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    print("Planning: instructions of GetArray (callgrind, rank 0) for a box touching B blocks of 8x8x8 float64,"
          " least of 5 calls")
    print()
    print("| writers -> readers | array | boxes | array blocks | blocks touched | instructions per call | per block"
          " touched | first call |")
    print("|---|---|---|---|---|---|---|---|")
    runs = [(p, s, c) for c in a.cuts.split(",") for p in a.pairs.split(",") for s in a.shifts.split(",")]
    for pair, shift, cut in runs:
        w, r = (int(x) for x in pair.split(":"))
        d = os.path.join(a.dir, f"plan-{w}-{r}-{shift}-{cut}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        subprocess.run([a.mpiexec, "-n", str(w), bench, "--phase=plan", f"--dir={d}", f"--side={a.side}",
                        "--read=0", f"--cut={cut}"], env=env, check=True, stdout=subprocess.DEVNULL)
        prefix = os.path.join(d, "cg")
        args = ["--phase=plan", f"--dir={d}", f"--side={a.side}", "--write=0", f"--shift={shift}"]
        cmd = [a.mpiexec, "-n", "1", "valgrind", "--tool=callgrind", f"--callgrind-out-file={prefix}", bench] + args
        if r > 1:
            cmd += [":", "-n", str(r - 1), bench] + args
        out = subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True).stdout
        touched = {}  # k -> blocks touched, from rank 0's RESULT lines
        for line in out.splitlines():
            if line.startswith("RESULT "):
                x = json.loads(line[len("RESULT "):])
                touched[x["k"]] = x["blocks_touched"]
        best, first = {}, {}
        for k, rep, n in dumps(prefix):
            best[touched[k]] = min(best.get(touched[k], n), n)
            if rep == 0:
                first[touched[k]] = n
        if not best:
            sys.exit("no callgrind dumps (is valgrind/callgrind.h installed when array_bench is built?)")
        for blocks in sorted(best):
            boxes = "shifted" if shift == "1" else "whole blocks"
            kind = "irregular (cut)" if cut == "1" else "grid"
            nblocks = a.side ** 3 * (2 if cut == "1" else 1)
            print(f"| {w} -> {r} | {kind} | {boxes} | {nblocks} | {blocks} | {best[blocks]:,} | {best[blocks] / blocks:,.0f} |"
                  f" {first[blocks]:,} |")
        if not a.keep:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
