#!/usr/bin/env python3
"""Stream API throughput beside POSIX write(2)/read(2) and std::fstream.

Each round runs every (system, piece size) once, in a random order; the
ratios to POSIX are taken within a round (the runs sit next to each other
in time on a noisy machine), then summarised as min / median / max over the
rounds. Writes include making the data durable (fsync, or Commit); reads
start with the file dropped from the page cache.

Usage: bench/stream/run_stream.py [--rounds 5] [--bytes 268435456]
       [--build build-bench] [--dir /tmp/cairn-stream-bench]
Output: bench/results/stream-<time>/{runs.json,results.md}
"""
import argparse, json, os, random, statistics, subprocess, time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SYSTEMS = ["posix", "cairn", "ofstream", "ostream"]
PIECES = [4096, 65536, 1 << 20]


def build(bdir):
    subprocess.run(["cmake", "-S", REPO, "-B", bdir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                    "-DCAIRN_BUILD_BENCH=ON"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", bdir, "-j", str(os.cpu_count() or 2), "--target", "stream_bench"],
                   check=True, stdout=subprocess.DEVNULL)
    return os.path.join(bdir, "bench", "stream", "stream_bench")


def mmm(xs):
    return "%.2f / %.2f / %.2f" % (min(xs), statistics.median(xs), max(xs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bytes", type=int, default=256 << 20)
    ap.add_argument("--build", default=os.path.join(REPO, "build-bench"))
    ap.add_argument("--dir", default="/tmp/cairn-stream-bench")
    a = ap.parse_args()
    exe = build(a.build)
    runs = []
    for rnd in range(a.rounds):
        cells = [(s, p) for s in SYSTEMS for p in PIECES]
        random.shuffle(cells)
        for s, p in cells:
            out = subprocess.run([exe, "--dir", a.dir, "--system", s, "--piece", str(p), "--bytes", str(a.bytes)],
                                 check=True, capture_output=True, text=True).stdout
            r = json.loads(out)
            r["round"] = rnd
            runs.append(r)
            print("round %d %-8s %8d B: write %.3f s, read %.3f s" % (rnd, s, p, r["write_s"], r["read_s"]), flush=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    outdir = os.path.join(REPO, "bench", "results", "stream-" + stamp)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "runs.json"), "w") as f:
        json.dump(runs, f, indent=1)

    def get(s, p, rnd, key):
        for r in runs:
            if r["system"] == s and r["piece"] == p and r["round"] == rnd:
                return r[key]

    mib = a.bytes / (1 << 20)
    lines = ["# Stream throughput, %d MiB in one stream, %d rounds" % (mib, a.rounds), "",
             "`python3 bench/stream/run_stream.py --rounds %d --bytes %d` on %s." % (a.rounds, a.bytes, stamp), "",
             "MiB/s as min / median / max over rounds; ratios are to POSIX in the same round.", "",
             "| piece | op | POSIX MiB/s | cairn stream MiB/s | cairn / POSIX | std::fstream MiB/s | cairn::ostream MiB/s | cairn::ostream / std::fstream |",
             "|---|---|---|---|---|---|---|---|"]
    for p in PIECES:
        for op, key in (("write+sync", "write_s"), ("read", "read_s")):
            rate = {s: [mib / get(s, p, r, key) for r in range(a.rounds)] for s in SYSTEMS}
            ratio = [get("posix", p, r, key) / get("cairn", p, r, key) for r in range(a.rounds)]
            ratio2 = [get("ofstream", p, r, key) / get("ostream", p, r, key) for r in range(a.rounds)]
            label = "%d KiB" % (p // 1024) if p < (1 << 20) else "%d MiB" % (p >> 20)
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                label, op, mmm(rate["posix"]), mmm(rate["cairn"]), mmm(ratio),
                mmm(rate["ofstream"]), mmm(rate["ostream"]), mmm(ratio2)))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write(text)
    print(text)
    print("results in", outdir)


if __name__ == "__main__":
    main()
