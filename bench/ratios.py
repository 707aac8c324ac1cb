#!/usr/bin/env python3
"""cairn against a peer, from one run of bench/run.py.

    python3 bench/ratios.py bench/results/<stamp>/results.json [--peer posix] [--system cairn]

Prints one markdown table: per workload and rank count, the write and
full-read bandwidth of SYSTEM over PEER's (> 1: SYSTEM is faster) and the
sparse-read time of SYSTEM over PEER's (< 1: SYSTEM is faster; the goal is
<= 1.5), each as the ratio of the two medians and, in brackets, the median
of the per-round ratios (the two systems measured in the same round, so a
drift of the shared machine between rounds cancels out), and the device
limit's median bandwidth where the run measured it.
"""
import argparse
import json
import statistics


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--peer", default="posix")
    ap.add_argument("--system", default="cairn")
    a = ap.parse_args()
    data = json.load(open(a.results))
    # (system, workload, ranks, phase) -> {round: seconds}
    runs = {}
    for cell in data["cells"]:
        for r in cell["runs"]:
            runs.setdefault((cell["system"], cell["workload"], cell["ranks"], r["phase"]), {})[r["round"]] = r["seconds"]

    def ratio(wl, n, phase, time_ratio):
        s, p = runs.get((a.system, wl, n, phase)), runs.get((a.peer, wl, n, phase))
        if not s or not p:
            return "-"
        med = statistics.median(s.values()) / statistics.median(p.values())
        paired = statistics.median(s[k] / p[k] for k in s if k in p)
        if not time_ratio:  # bandwidth ratio = inverse of the time ratio
            med, paired = 1 / med, 1 / paired
        return "%.2f (%.2f)" % (med, paired)

    def device(wl, n, phase):
        best = 0.0
        for dev in ("device", "device-par", "device-direct"):
            t = runs.get((dev, wl, n, phase))
            if t:
                wl_bytes = next(w["count"] * w["size"] for w in data["meta"]["workloads"] if w["name"] == wl)
                best = max(best, n * wl_bytes / statistics.median(t.values()) / 2**20)
        return "%.0f" % best if best else "-"

    meta = data["meta"]
    print("Run %s (%s), %d repetitions; %s / %s: ratio of medians (median of per-round ratios)."
          % (meta["timestamp"], meta.get("command", ""), meta["reps"], a.system, a.peer))
    print()
    print("| workload | ranks | write bandwidth | full-read bandwidth | sparse-read time | device write / read MiB/s |")
    print("|---|---|---|---|---|---|")
    for w in meta["workloads"]:
        for n in meta["ranks"]:
            print("| %s | %d | %s | %s | %s | %s / %s |" % (
                w["name"], n, ratio(w["name"], n, "write", False), ratio(w["name"], n, "read", False),
                ratio(w["name"], n, "sparse", True), device(w["name"], n, "write"), device(w["name"], n, "read")))


if __name__ == "__main__":
    main()
