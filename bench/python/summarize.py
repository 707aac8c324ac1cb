#!/usr/bin/env python3
"""Reads the RESULT lines of bench/python/run.sh (bench.py's and
bench_cairn's) and prints a Markdown table: per system, phase and rank
count, min/median/max seconds over the repetitions and GiB/s of all ranks
at the median, and the ratio of cairn Python to cairn C++ (C++ time /
Python time at the median: 1.0 is parity, above is Python faster): to
the C++ side that writes from as many distinct buffers as Python has
arrays ("cairn C++, distinct arrays", bench_cairn --distinct-sources=1,
run.sh's system cxx-arrays) when the run has it, else to bench_cairn's
default (one buffer stamped and put once per array).

    python3 bench/python/summarize.py /tmp/cairn-pybench/results.jsonl
"""
import json
import statistics
import sys
from collections import defaultdict

NAMES = {"cairn": "cairn C++", "cairn-arrays": "cairn C++, distinct arrays",
         "cairn-python": "cairn Python",
         "cairn-python-same-buffer": "cairn Python, one buffer",
         "cairn-python-thp": "cairn Python, NumPy's huge pages",
         "cairn-python-get": "cairn Python, get per array", "h5py": "h5py",
         "h5py-thp": "h5py, NumPy's huge pages",
         "numpy.save": "numpy.save", "numpy.save-thp": "numpy.save, NumPy's huge pages"}


def main(path):
    times = defaultdict(list)
    cpu = defaultdict(list)
    bytes_of = {}
    notes = {}
    huge = defaultdict(set)
    for line in open(path):
        if not line.startswith("RESULT "):
            continue
        r = json.loads(line[len("RESULT "):])
        key = (r["phase"], r["ranks"], r["system"])
        if "min_s" in r:  # bench.py: the times of its repetitions
            times[key] += r["seconds"]
            cpu[key] += r.get("cpu_seconds", [])
            bytes_of[key] = r["mib_per_rank"] * 2**20 * r["ranks"]
            if r.get("note"):
                notes[r["system"]] = r["note"]
            if r.get("anon_huge_kib") is not None:
                huge[(r["system"], r["phase"])].add(r["anon_huge_kib"])
        else:  # bench_cairn: one line per repetition
            times[key].append(r["seconds"])
            if "cpu_seconds" in r:
                cpu[key].append(r["cpu_seconds"])
            bytes_of[key] = r["bytes"]

    def cxx_of(phase, ranks, system):
        """The C++ times a Python system is compared with (see the top)."""
        if "same-buffer" not in system and (phase, ranks, "cairn-arrays") in times:
            return times[(phase, ranks, "cairn-arrays")]
        return times.get((phase, ranks, "cairn"))
    print("| system | phase | ranks | n | median s [min-max] | GiB/s | Python / C++ |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(times, key=lambda k: (k[0] != "write", k[1], list(NAMES).index(k[2])
                                            if k[2] in NAMES else 9)):
        phase, ranks, system = key
        t = times[key]
        med = statistics.median(t)
        ratio = ""
        if system.startswith("cairn-python") and cxx_of(phase, ranks, system):
            ratio = f"{statistics.median(cxx_of(phase, ranks, system)) / med:.2f}x"
        print(f"| {NAMES.get(system, system)} | {phase} | {ranks} | {len(t)} | {med:.2f} "
              f"[{min(t):.2f}-{max(t):.2f}] | {bytes_of[key] / med / 2**30:.2f} | {ratio} |")
    # run.sh interleaves the systems repetition by repetition: the ratio of
    # each repetition's pair (C++ time / Python time of the same round) is
    # less at the mercy of a load that changes between rounds.
    print("\n| paired rounds | phase | ranks | n | Python / C++ median [min-max] |")
    print("|---|---|---|---|---|")
    for key in sorted(times, key=lambda k: (k[0] != "write", k[1], k[2])):
        phase, ranks, system = key
        cxx = cxx_of(phase, ranks, system)
        if not system.startswith("cairn-python") or not cxx:
            continue
        r = [c / p for c, p in zip(cxx, times[key])]
        print(f"| {NAMES.get(system, system)} | {phase} | {ranks} | {len(r)} | "
              f"{statistics.median(r):.2f}x [{min(r):.2f}-{max(r):.2f}] |")
    # CPU time of the phase, all ranks' processes summed (both programs
    # measure it the same way): less at the mercy of the machine's load than
    # the wall time, it says whether a side does more work.
    if cpu:
        print("\n| CPU time, all ranks | phase | ranks | n | median s [min-max] |")
        print("|---|---|---|---|---|")
        for key in sorted(cpu, key=lambda k: (k[0] != "write", k[1], list(NAMES).index(k[2])
                                              if k[2] in NAMES else 9)):
            phase, ranks, system = key
            c = cpu[key]
            if c:
                print(f"| {NAMES.get(system, system)} | {phase} | {ranks} | {len(c)} | "
                      f"{statistics.median(c):.3f} [{min(c):.3f}-{max(c):.3f}] |")
    for s, n in notes.items():
        print(f"\n{NAMES.get(s, s)}: {n}")
    # bench.py's arrays (write: the source, read: the outs) on rank 0.
    for (s, phase), kib in sorted(huge.items()):
        print(f"\n{NAMES.get(s, s)}, {phase}: transparent huge pages in the arrays "
              f"(AnonHugePages, rank 0): {', '.join(f'{k} KiB' for k in sorted(kib))}")


if __name__ == "__main__":
    main(sys.argv[1])
