#!/usr/bin/env python3
"""Runs the cairn benchmark suite: every system x workload x rank count, in
one run, and writes bench/results/<timestamp>/ (results.json, results.md and
PNG plots).

    scripts/install_bench_deps.sh      # once: peers, strace, matplotlib
    python3 bench/run.py               # full run (about 15 minutes here)
    python3 bench/run.py --quick       # smoke check, under a minute

See bench/README.md for what each system is and how it is measured.
"""

import argparse
import datetime
import json
import os
import platform
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(REPO, "bench")

MiB = 1 << 20
KiB = 1 << 10

# The systems, in table order: (name, program, extra arguments).
SYSTEMS = [
    ("device", "bench_device", []),
    # The device with N parallel streams (one thread and file per rank's
    # share); the limit is the better of the two (issue 11, goal 2).
    ("device-par", "bench_device", []),
    # The device read past the page cache (O_DIRECT, one stream), as cairn
    # reads cold aligned requests (Options::direct_read_bytes).
    ("device-direct", "bench_device", ["--direct=1"]),
    ("posix", "bench_posix", []),
    # POSIX file-per-process that checks what it reads as cairn does: an
    # XXH3-64 per 4 KiB grain, computed on write and stored after the
    # objects, checked on read (bench_posix.cc): what checking every byte
    # costs without cairn.
    ("posix-xxh3", "bench_posix", ["--verify=1"]),
    ("mpiio-ind", "bench_mpiio", ["--collective=0"]),
    ("mpiio-coll", "bench_mpiio", ["--collective=1"]),
    ("hdf5", "bench_hdf5", []),
    ("rocksdb", "bench_rocksdb", []),
    ("cairn", "bench_cairn", []),
]

# Metadata system calls traced, by the category they are reported under.
META_CATEGORIES = {
    "open": ["open", "openat", "openat2", "creat"],
    "mkdir": ["mkdir", "mkdirat"],
    "stat": ["stat", "lstat", "fstat", "newfstatat", "statx", "access", "faccessat",
             "faccessat2", "statfs", "fstatfs"],
    "readdir": ["getdents64"],
    "rename": ["rename", "renameat", "renameat2", "link", "linkat"],
    "unlink": ["unlink", "unlinkat", "rmdir"],
    "fsync": ["fsync", "fdatasync"],
    "truncate": ["truncate", "ftruncate", "fallocate"],
}
DEVICES = ("device", "device-par", "device-direct")


def is_device(name):
    return name in DEVICES


META_OF = {call: cat for cat, calls in META_CATEGORIES.items() for call in calls}
DATA_READ = ["read", "pread64", "readv", "preadv", "preadv2"]
DATA_WRITE = ["write", "pwrite64", "writev", "pwritev", "pwritev2"]
# Requests to start writeback early (cairn's Options::writeback_bytes): they
# make nothing durable and touch no metadata, so they are counted apart from
# the fsyncs, as "writeback_requests".
WRITEBACK = ["sync_file_range"]
TRACED = sorted(set(META_OF) | set(DATA_READ) | set(DATA_WRITE) | set(WRITEBACK))

MARKER_RE = re.compile(r'"/cairn-bench-marker/([^"]+)"')
PID_RE = re.compile(r"^\s*\d+\s+")
CALL_RE = re.compile(r"^(\w+)\(")
FDCWD_RE = re.compile(r"AT_FDCWD<[^>]*>")


def log(msg):
    print(msg, flush=True)


def parse_size(text):
    m = re.fullmatch(r"(\d+)([KMG]?)(i?B)?", text.strip(), re.I)
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text}")
    return int(m.group(1)) * {"": 1, "K": KiB, "M": MiB, "G": 1 << 30}[m.group(2).upper()]


def fmt_size(n):
    for unit, f in (("GiB", 1 << 30), ("MiB", MiB), ("KiB", KiB)):
        if n >= f and n % f == 0:
            return f"{n // f} {unit}"
    return f"{n} B"


# ---------------------------------------------------------------- building

def build(args):
    """Builds the programs; returns (directory with them, note on cairn)."""
    if args.build_dir:
        return args.build_dir, "prebuilt (--build-dir)"
    gen = ["-DCMAKE_BUILD_TYPE=Release", "-DCAIRN_BUILD_TESTS=OFF"]
    whole = os.path.join(REPO, "build-bench")
    note = ""
    try:
        run_quiet(["cmake", "-S", REPO, "-B", whole] + gen)
        targets = bench_targets(whole)
        if "bench_cairn" not in targets:
            raise subprocess.CalledProcessError(1, "cmake", output="error: no cairn target")
        run_quiet(["cmake", "--build", whole, "-j", str(os.cpu_count() or 2), "--target"] + targets)
        return os.path.join(whole, "bench"), ""
    except subprocess.CalledProcessError as e:
        note = "the whole tree did not build, so cairn is not measured: " + first_error(e.output)
        log("build: " + note)
    peers = os.path.join(REPO, "build-bench-peers")
    run_quiet(["cmake", "-S", BENCH, "-B", peers] + gen)
    run_quiet(["cmake", "--build", peers, "-j", str(os.cpu_count() or 2)])
    return peers, note


def bench_targets(build_dir):
    out = subprocess.run(["cmake", "--build", build_dir, "--target", "help"],
                         capture_output=True, text=True).stdout
    return sorted(set(re.findall(r"\b(bench_[a-z0-9]+)\b", out)))


def run_quiet(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise subprocess.CalledProcessError(p.returncode, cmd, output=p.stdout)
    return p.stdout


def first_error(output):
    for line in (output or "").splitlines():
        if "error" in line.lower():
            return line.strip()[:300]
    return (output or "").strip().splitlines()[-1][:300] if output else "unknown"


# ---------------------------------------------------------------- running

def mpi_env():
    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return env


def mpiexec(n):
    # Shared memory only (the UCX probe alone costs 0.2 s per launch), no
    # binding: with 2 cores a bound rank would share its core with its own
    # background threads (RocksDB's flush thread, cairn's I/O thread).
    return ["mpiexec", "--oversubscribe", "--bind-to", "none",
            "--mca", "btl", "self,vader", "--mca", "pml", "ob1", "-n", str(n)]


def launch(cmd, timeout):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=mpi_env(), timeout=timeout,
                       cwd=REPO)
    results = [json.loads(line[7:]) for line in p.stdout.splitlines()
               if line.startswith("RESULT ")]
    if p.returncode != 0:
        tail = " | ".join((p.stderr or p.stdout).strip().splitlines()[-4:])
        raise RuntimeError(f"exit {p.returncode}: {tail[:600]}")
    return results, time.time() - t


def strace_wrap(trace_dir, prog_args):
    """The command that runs prog_args with one strace per rank."""
    st = ["strace", "-f", "--seccomp-bpf", "-qq", "-e", "signal=none", "-y", "-s", "8",
          "-e", "trace=" + ",".join(TRACED),
          "-o", os.path.join(trace_dir, "trace.") + "$OMPI_COMM_WORLD_RANK"]
    inner = " ".join(shlex.quote(a) if not a.endswith("$OMPI_COMM_WORLD_RANK") else
                     shlex.quote(a[:-len("$OMPI_COMM_WORLD_RANK")]) + '"$OMPI_COMM_WORLD_RANK"'
                     for a in st)
    return ["/bin/sh", "-c", "exec " + inner + ' "$@"', "sh"] + prog_args


def count_trace(path, data_dir):
    """Splits one rank's trace at the markers; counts per window."""
    windows = {}
    current = None
    with open(path, errors="replace") as f:
        for line in f:
            m = MARKER_RE.search(line)
            if m:
                label = m.group(1)
                if label.endswith("-begin"):
                    current = label[:-6]
                elif label.endswith("-end") and label.startswith("ckpt-"):
                    current = "ckpt-" + str(int(label.split("-")[1]) + 1)
                else:
                    current = None
                if label == "write-begin":
                    current = "ckpt-0"
                if current is not None:
                    windows.setdefault(current, {})
                continue
            if current is None:
                continue
            body = PID_RE.sub("", line, count=1)  # "1234  call(...)": strace pads the pid
            if body.startswith("<..."):
                continue  # the second half of a call already counted
            cm = CALL_RE.match(body)
            if not cm:
                continue
            call = cm.group(1)
            ours = data_dir in FDCWD_RE.sub("", body)
            w = windows.setdefault(current, {})
            if call in META_OF:
                key = META_OF[call] if ours else "other"
            elif call in DATA_READ and ours:
                key = "read_requests"
            elif call in DATA_WRITE and ours:
                key = "write_requests"
            elif call in WRITEBACK and ours:
                key = "writeback_requests"
            else:
                continue
            w[key] = w.get(key, 0) + 1
    return windows


def sum_windows(per_rank):
    total = {}
    for windows in per_rank:
        for wname, counts in windows.items():
            t = total.setdefault(wname, {})
            for k, v in counts.items():
                t[k] = t.get(k, 0) + v
    for counts in total.values():
        counts["metadata"] = sum(v for k, v in counts.items() if k in META_CATEGORIES)
    return total


def program_args(args, bindir, system, workload, n):
    name, prog, extra = system
    common = [os.path.join(bindir, prog), f"--count={workload['count']}",
              f"--size={workload['size']}", f"--seed={args.seed}"] + extra
    if is_device(name):
        common.append(f"--scale={n}")
    elif args.buffer_offset:
        common.append(f"--buffer-offset={args.buffer_offset}")
    if name == "device-par":
        common.append(f"--streams={n}")
    return (1 if is_device(name) else n), common


def run_timed(args, bindir, system, workload, n, run_dir, reps, cell, rnd):
    """One round of a cell: a write process, then a read process (full and
    sparse read of every repetition)."""
    ranks, common = program_args(args, bindir, system, workload, n)
    for phase in ("write", "read"):
        res, wall = launch(mpiexec(ranks) + common + [f"--phase={phase}", f"--dir={run_dir}",
                                                      f"--reps={reps}"], args.timeout)
        for r in res:
            r["round"] = rnd
        cell["runs"] += res
        cell["wall"][phase] = cell["wall"].get(phase, 0) + wall
    bad = sum(r.get("errors", 0) for r in cell["runs"])
    if bad:
        raise RuntimeError(f"{bad} objects read back wrong")


def run_traced(args, bindir, system, workload, n, cell_dir, cell):
    """The strace'd runs of a cell: a write process with several
    checkpoints, then a read process."""
    name = system[0]
    ranks, common = program_args(args, bindir, system, workload, n)
    trace_dir = os.path.join(cell_dir, "traces")
    os.makedirs(trace_dir, exist_ok=True)
    sdir = os.path.join(cell_dir, "traced")
    per_rank = []
    t = time.time()
    for phase in ("write", "read"):
        for f in os.listdir(trace_dir):
            os.unlink(os.path.join(trace_dir, f))
        prog_args = common + [f"--phase={phase}", f"--dir={sdir}", "--reps=1",
                              f"--checkpoints={args.traced_checkpoints}"]
        launch(mpiexec(ranks) + strace_wrap(trace_dir, prog_args), args.timeout)
        for r in range(ranks):
            per_rank.append(count_trace(os.path.join(trace_dir, f"trace.{r}"), sdir))
        if args.keep_traces:
            dest = os.path.join(args.keep_traces, f"{name}-{workload['name']}-{n}-{phase}")
            shutil.copytree(trace_dir, dest, dirs_exist_ok=True)
    cell["wall"]["strace"] = time.time() - t
    cell["syscalls"] = sum_windows(per_rank)


def run_group(args, bindir, systems, w, n, data_root, rng, cells, failures):
    """All systems at one workload and rank count. The repetitions are split
    into rounds; each round runs every system once, in a new random order,
    so that the drift of a shared machine (and a host cache that fills and
    drains) is spread over all systems instead of hitting one."""
    if n == 1:  # one stream is N streams
        systems = [s for s in systems if s[0] != "device-par"]
    group = {s[0]: {"system": s[0], "workload": w["name"], "ranks": n, "runs": [], "wall": {}}
             for s in systems}
    failed = {}
    rounds = max(1, min(args.rounds, args.reps))
    per_round = [args.reps // rounds + (1 if i < args.reps % rounds else 0) for i in range(rounds)]
    for rnd, reps in enumerate(per_round):
        order = list(systems)
        rng.shuffle(order)
        for s in order:
            if s[0] in failed:
                continue
            run_dir = os.path.join(data_root, f"{s[0]}-{w['name']}-{n}", f"round{rnd}")
            try:
                run_timed(args, bindir, s, w, n, run_dir, reps, group[s[0]], rnd)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                failed[s[0]] = str(e)
            finally:
                shutil.rmtree(run_dir, ignore_errors=True)
    for s in systems:
        cell_dir = os.path.join(data_root, f"{s[0]}-{w['name']}-{n}")
        if args.strace and not is_device(s[0]) and s[0] not in failed:
            try:
                run_traced(args, bindir, s, w, n, cell_dir, group[s[0]])
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                failed[s[0]] = "traced run: " + str(e)
        shutil.rmtree(cell_dir, ignore_errors=True)
        c = group[s[0]]
        if s[0] in failed:
            failures.append(dict(system=s[0], workload=w["name"], ranks=n, error=failed[s[0]]))
            log(f"  {w['name']:7s} n={n} {s[0]:11s} FAILED: {failed[s[0]]}")
            continue
        cells.append(c)
        wr = [r["mib_s"] for r in c["runs"] if r["phase"] == "write"]
        rd = [r["mib_s"] for r in c["runs"] if r["phase"] == "read"]
        sp = [r["seconds"] for r in c["runs"] if r["phase"] == "sparse"]
        md = c.get("syscalls", {})
        mdtxt = ""
        if md:
            mdtxt = (f"  meta/ckpt {md.get('ckpt-1', {}).get('metadata', 0)}"
                     f" restart {md.get('read', {}).get('metadata', 0)}")
        log(f"  {w['name']:7s} n={n} {s[0]:11s} write {statistics.median(wr):8.1f}"
            f" read {statistics.median(rd):8.1f} MiB/s  sparse "
            f"{statistics.median(sp)*1e3:7.2f} ms{mdtxt}")


# ---------------------------------------------------------------- summarizing

def summarize(cells):
    """Per (system, workload, ranks, phase): min/median/max of the repetitions."""
    out = {}
    for c in cells:
        for r in c.get("runs", []):
            key = (c["system"], c["workload"], c["ranks"], r["phase"])
            out.setdefault(key, []).append(r)
    summary = {}
    for key, runs in out.items():
        bw = [r["mib_s"] for r in runs]
        secs = [r["seconds"] for r in runs]
        s = {"reps": len(runs), "mib_s": stats3(bw), "seconds": stats3(secs),
             "bytes": runs[0]["bytes"]}
        counters = [r.get("counters") or {} for r in runs]
        if counters and counters[0]:
            s["counters_median"] = {k: statistics.median(c.get(k, 0) for c in counters)
                                    for k in counters[0]}
        summary[key] = s
    for key, s in summary.items():
        dev = device_limit(summary, key[1], key[2], key[3])
        if dev and dev["mib_s"]["median"] > 0:
            s["ratio_to_device"] = s["mib_s"]["median"] / dev["mib_s"]["median"]
    return summary


def device_limit(summary, workload, n, phase):
    """The device limit of a cell: the best median of 1 and N streams and of
    one stream read past the page cache."""
    best = None
    for d in DEVICES:
        x = summary.get((d, workload, n, phase))
        if x and (best is None or x["mib_s"]["median"] > best["mib_s"]["median"]):
            best = x
    return best


def stats3(xs):
    return {"min": min(xs), "median": statistics.median(xs), "max": max(xs)}


def metadata_summary(cells, checkpoints):
    """Per (system, workload, ranks): metadata calls per window, all ranks summed.

    The traced write run makes `checkpoints` checkpoints; its windows are
    ckpt-0 (open + first checkpoint), ckpt-1 .. ckpt-(C-1) (further
    checkpoints) and ckpt-C (close)."""
    out = {}
    for c in cells:
        sc = c.get("syscalls")
        if not sc:
            continue
        get = lambda w, k="metadata": sc.get(w, {}).get(k, 0)
        steady_all = [get(f"ckpt-{i}") for i in range(1, checkpoints)]
        steady_fsync = [get(f"ckpt-{i}", "fsync") for i in range(1, checkpoints)]
        # open/create/stat/mkdir/rename/unlink/...: everything but fsync,
        # which is reported on its own (issue 11)
        steady = [a - f for a, f in zip(steady_all, steady_fsync)]
        out[(c["system"], c["workload"], c["ranks"])] = {
            # what a job that checkpoints once pays: open + checkpoint + close
            "first_checkpoint": get("ckpt-0") + get(f"ckpt-{checkpoints}"),
            # each further checkpoint, the store (if any) kept open
            "per_checkpoint": statistics.mean(steady),
            "per_checkpoint_each": steady,
            "fsync_per_checkpoint": statistics.mean(steady_fsync),
            "first_checkpoint_fsync": get("ckpt-0", "fsync") + get(f"ckpt-{checkpoints}", "fsync"),
            "restart": get("read"),
            "sparse": get("sparse"),
            "sparse_read_requests": get("sparse", "read_requests"),
            "windows": sc,
        }
    return out


# ---------------------------------------------------------------- reporting

def fmt_bw(x):
    return f"{x:.0f}" if x >= 10 else f"{x:.2f}"


def markdown(meta, summary, md_counts, workloads, ranks, systems):
    L = []
    L.append(f"# cairn benchmark suite: {meta['timestamp']}")
    L.append("")
    L.append(f"Mode: **{meta['mode']}**; {meta['reps']} repetitions per cell; ranks "
             f"{', '.join(map(str, ranks))} (oversubscribed on {meta['env']['cpus']} cores); "
             f"data on `{meta['data_dir']}` ({meta['env'].get('fs', '?')}). "
             f"Page cache: every file is fdatasync'ed and dropped with "
             f"posix_fadvise(DONTNEED) before each read; resident pages after that: "
             f"{meta['resident_pages_max']} (max over all reads). cairn: {meta['cairn_note'] or 'measured'}.")
    L.append("")
    L.append("Each cell: median MiB/s [min-max] and, after the x, the median as a ratio to "
             "the device limit: the better median of `device` (one process writing/reading the same bytes in "
             "1 MiB blocks, or one object per call for larger objects, as one stream) and `device-par` "
             "(the same bytes as N parallel streams, one thread and one file each) and `device-direct` (one "
             "stream whose reads bypass the page cache with O_DIRECT, as cairn's reads of cold aligned "
             "requests do); marked (limit) where it is the best.")
    for phase, title in (("write", "Checkpoint (write) bandwidth"),
                         ("read", "Restart (full read) bandwidth"),
                         ("sparse", "Sparse read of 1 % of the objects")):
        L.append("")
        L.append(f"## {title}")
        for w in workloads:
            L.append("")
            L.append(f"### {w['name']}: {w['desc']}")
            L.append("")
            unit = "ms" if phase == "sparse" else "MiB/s"
            L.append("| system | " + " | ".join(f"{n} rank{'s' if n > 1 else ''}" for n in ranks) + " |")
            L.append("|---" * (len(ranks) + 1) + "|")
            for s in systems:
                row = []
                for n in ranks:
                    x = summary.get((s, w["name"], n, phase))
                    if not x:
                        row.append("-")
                        continue
                    if phase == "sparse":
                        t = x["seconds"]
                        cell = f"{t['median']*1e3:.1f} ms [{t['min']*1e3:.1f}-{t['max']*1e3:.1f}]"
                    else:
                        b = x["mib_s"]
                        cell = f"{fmt_bw(b['median'])} [{fmt_bw(b['min'])}-{fmt_bw(b['max'])}]"
                    if not is_device(s) and "ratio_to_device" in x:
                        cell += f" x{x['ratio_to_device']:.2f}"
                    elif is_device(s) and phase != "sparse":
                        best = device_limit(summary, w["name"], n, phase)
                        others = [d for d in DEVICES if d != s and summary.get((d, w["name"], n, phase))]
                        if best is x and others:
                            cell += " (limit)"
                    row.append(cell)
                L.append(f"| {s} | " + " | ".join(row) + " |")
    if md_counts:
        L.append("")
        L.append("## File-system metadata operations (measured with strace, all ranks summed)")
        L.append("")
        L.append("Calls on the store's files and directories: open/openat/creat, mkdir, the stat "
                 "family (stat, fstat, newfstatat, statx, access, statfs), getdents64, rename/link, "
                 "unlink/rmdir, truncate/fallocate, and, counted apart, fsync/fdatasync. "
                 "Each cell: **per checkpoint** (a further checkpoint with the store kept open; "
                 "metadata calls + fsyncs) / "
                 "first checkpoint including open and close / restart (open + full read + close) / "
                 "sparse read (open + 1 % + close).")
        for w in workloads:
            L.append("")
            L.append(f"### {w['name']}")
            L.append("")
            L.append("| system | " + " | ".join(f"{n} rank{'s' if n > 1 else ''}" for n in ranks) + " |")
            L.append("|---" * (len(ranks) + 1) + "|")
            for s in systems:
                if is_device(s):
                    continue
                row = []
                for n in ranks:
                    x = md_counts.get((s, w["name"], n))
                    if not x:
                        row.append("-")
                        continue
                    pc = x["per_checkpoint"]
                    pcs = "-" if pc is None else f"{pc:.0f} + {x['fsync_per_checkpoint']:.0f} fsync"
                    row.append(f"**{pcs}** / {x['first_checkpoint']} / {x['restart']} / {x['sparse']}")
                L.append(f"| {s} | " + " | ".join(row) + " |")
        L.append("")
        L.append("### Read requests of the sparse read (strace: read/pread calls on the store's files)")
        L.append("")
        L.append("| system | " + " | ".join(f"{w['name']} @{ranks[-1]}" for w in workloads) + " |")
        L.append("|---" * (len(workloads) + 1) + "|")
        for s in systems:
            if is_device(s):
                continue
            row = []
            for w in workloads:
                x = md_counts.get((s, w["name"], ranks[-1]))
                row.append("-" if not x else str(x["sparse_read_requests"]))
            L.append(f"| {s} | " + " | ".join(row) + " |")
    L += targets(summary, md_counts, workloads, ranks, systems)
    if meta.get("failures"):
        L.append("")
        L.append("## Cells that failed")
        L.append("")
        for f in meta["failures"]:
            L.append(f"- {f['system']} {f['workload']} {f['ranks']} ranks: {f['error']}")
    if meta.get("skipped"):
        L.append("")
        L.append("## Systems not measured")
        L.append("")
        for s, why in meta["skipped"].items():
            L.append(f"- {s}: {why}")
    L.append("")
    L.append("Plots: write_bw.png, read_bw.png, sparse.png, metadata.png beside this file.")
    return "\n".join(L) + "\n"


def targets(summary, md_counts, workloads, ranks, systems):
    """Checks cairn against the targets of the benchmark issue."""
    if "cairn" not in systems:
        return []
    peers = [s for s in systems if not is_device(s) and not s.startswith("cairn")]
    L = ["", "## cairn against its targets", ""]
    # Issue 11, goal 1: write bandwidth >= 1.0x POSIX file-per-process.
    for w in workloads:
        for n in ranks:
            c = summary.get(("cairn", w["name"], n, "write"))
            p = summary.get(("posix", w["name"], n, "write"))
            if not c or not p or p["mib_s"]["median"] <= 0:
                continue
            r = c["mib_s"]["median"] / p["mib_s"]["median"]
            L.append(f"- {w['name']} write, {n} ranks: cairn / posix = {r:.2f} (medians "
                     f"{c['mib_s']['median']:.0f} / {p['mib_s']['median']:.0f} MiB/s); target >= 1.0: "
                     f"{'met' if r >= 1.0 else '**not met**'}")
    for w in workloads:
        for n in ranks:
            c = summary.get(("cairn", w["name"], n, "write"))
            if not c:
                continue
            med = c["mib_s"]["median"]
            best = max(((summary[(p, w["name"], n, "write")]["mib_s"]["median"], p) for p in peers
                        if (p, w["name"], n, "write") in summary), default=(0, "-"))
            ratio = c.get("ratio_to_device", 0)
            if w["name"].startswith("W1"):
                ok = ratio >= 0.9 and med >= best[0]
                goal = ">= 0.9x device and >= best peer"
            else:
                ok = med >= best[0]
                goal = "ahead of every peer"
            L.append(f"- {w['name']} write, {n} ranks: cairn {med:.0f} MiB/s (x{ratio:.2f} device), "
                     f"best peer {best[1]} {best[0]:.0f} MiB/s; target {goal}: "
                     f"{'met' if ok else '**not met**'}")
    for w in workloads:
        per = [md_counts[("cairn", w["name"], n)]["per_checkpoint"] for n in ranks
               if ("cairn", w["name"], n) in md_counts]
        if per:
            const = max(per) == min(per)
            L.append(f"- {w['name']} metadata operations per checkpoint over ranks {ranks} "
                     f"(fsync not included): "
                     f"{', '.join(f'{x:g}' for x in per)}: constant: {'met' if const else '**not met**'}")
            fs = [md_counts[("cairn", w["name"], n)]["fsync_per_checkpoint"] for n in ranks
                  if ("cairn", w["name"], n) in md_counts]
            L.append(f"- {w['name']} fsyncs per checkpoint over ranks {ranks}: "
                     f"{', '.join(f'{x:g}' for x in fs)} (reported apart)")
    for w in workloads:
        for n in ranks:
            x = md_counts.get(("cairn", w["name"], n))
            c = summary.get(("cairn", w["name"], n, "sparse"))
            if not x or not c:
                continue
            cm = c.get("counters_median", {})
            L.append(f"- {w['name']} sparse read, {n} ranks: {x['sparse_read_requests']} read calls "
                     f"on the store's files (strace, open included); cairn's own count: "
                     f"{cm.get('lib_read_requests', 0):g} in all, "
                     f"{cm.get('lib_fetch_read_requests', 0):g} by the MultiGet itself "
                     f"(the rest is the open: manifest and index)")
    # Reads against POSIX file-per-process (issue 11, goal 3): full read
    # >= 1.0x its bandwidth; sparse read <= 1.5x its time, reading at most
    # 2x the bytes asked for (Store::stats() around the MultiGets).
    if "posix" in systems:
        for w in workloads:
            for n in ranks:
                c = summary.get(("cairn", w["name"], n, "read"))
                p = summary.get(("posix", w["name"], n, "read"))
                if c and p and p["mib_s"]["median"] > 0:
                    r = c["mib_s"]["median"] / p["mib_s"]["median"]
                    L.append(f"- {w['name']} full read, {n} ranks: cairn {c['mib_s']['median']:.0f} MiB/s, "
                             f"posix {p['mib_s']['median']:.0f}: x{r:.2f}; target >= 1.0x: "
                             f"{'met' if r >= 1.0 else '**not met**'}")
                c = summary.get(("cairn", w["name"], n, "sparse"))
                p = summary.get(("posix", w["name"], n, "sparse"))
                if c and p and p["seconds"]["median"] > 0:
                    r = c["seconds"]["median"] / p["seconds"]["median"]
                    cm = c.get("counters_median", {})
                    want = cm.get("lib_fetch_wanted_bytes", 0)
                    amp = cm.get("lib_fetch_read_bytes", 0) / want if want else 0
                    ok = r <= 1.5 and amp <= 2.0
                    L.append(f"- {w['name']} sparse read, {n} ranks: cairn {c['seconds']['median'] * 1e3:.1f} ms, "
                             f"posix {p['seconds']['median'] * 1e3:.1f} ms: x{r:.2f} the time; bytes read / "
                             f"wanted {amp:.2f}; target <= 1.5x and <= 2.0: {'met' if ok else '**not met**'}")
    return L


def plots(outdir, summary, md_counts, workloads, ranks, systems):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib is missing: no plots (scripts/install_bench_deps.sh installs it)")
        return []
    style = {"device": dict(color="black", linestyle="--", marker="s"),
             "device-par": dict(color="gray", linestyle="--", marker="s"),
             "device-direct": dict(color="silver", linestyle=":", marker="s")}
    files = []

    def panel_grid(title):
        fig, axes = plt.subplots(1, len(workloads), figsize=(4.2 * len(workloads), 3.8),
                                 squeeze=False)
        fig.suptitle(title)
        return fig, axes[0]

    for phase, title, ylabel, scale in (
            ("write", "Checkpoint write bandwidth (median, min-max bars)", "MiB/s", None),
            ("read", "Restart read bandwidth (median, min-max bars)", "MiB/s", None),
            ("sparse", "Sparse read of 1 % of the objects (median time)", "ms", "log")):
        fig, axes = panel_grid(title)
        for ax, w in zip(axes, workloads):
            for s in systems:
                xs, ys, lo, hi = [], [], [], []
                for n in ranks:
                    x = summary.get((s, w["name"], n, phase))
                    if not x:
                        continue
                    v = x["seconds"] if phase == "sparse" else x["mib_s"]
                    f = 1e3 if phase == "sparse" else 1
                    xs.append(n)
                    ys.append(v["median"] * f)
                    lo.append((v["median"] - v["min"]) * f)
                    hi.append((v["max"] - v["median"]) * f)
                if xs:
                    ax.errorbar(xs, ys, yerr=[lo, hi], label=s, capsize=2,
                                **style.get(s, dict(marker="o")))
            ax.set_title(w["name"])
            ax.set_xscale("log", base=2)
            ax.set_xticks(ranks)
            ax.set_xticklabels([str(n) for n in ranks])
            ax.set_xlabel("ranks")
            ax.set_ylabel(ylabel)
            if scale:
                ax.set_yscale(scale)
            ax.grid(True, alpha=0.3)
        axes[-1].legend(fontsize=7)
        fig.tight_layout()
        name = f"{phase}_bw.png" if phase != "sparse" else "sparse.png"
        fig.savefig(os.path.join(outdir, name), dpi=110)
        plt.close(fig)
        files.append(name)
    if md_counts:
        fig, axes = plt.subplots(2, len(workloads), figsize=(4.2 * len(workloads), 7.2),
                                 squeeze=False)
        fig.suptitle("File-system metadata operations, all ranks (strace)")
        for col, w in enumerate(workloads):
            for row, (key, label) in enumerate((("per_checkpoint", "per checkpoint"),
                                                ("restart", "per restart"))):
                ax = axes[row][col]
                for s in systems:
                    pts = [(n, md_counts[(s, w["name"], n)][key]) for n in ranks
                           if (s, w["name"], n) in md_counts
                           and md_counts[(s, w["name"], n)][key] is not None]
                    if pts:
                        ax.plot([p[0] for p in pts], [max(p[1], 0.5) for p in pts], marker="o",
                                label=s)
                ax.set_title(f"{w['name']}: {label}")
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set_xticks(ranks)
                ax.set_xticklabels([str(n) for n in ranks])
                ax.set_xlabel("ranks")
                ax.set_ylabel("calls")
                ax.grid(True, alpha=0.3)
        axes[0][-1].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "metadata.png"), dpi=110)
        plt.close(fig)
        files.append("metadata.png")
    return files


def environment(data_dir):
    env = {"cpus": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version()}
    try:
        with open("/proc/meminfo") as f:
            env["mem_gib"] = round(int(f.readline().split()[1]) / (1 << 20), 1)
    except OSError:
        pass
    try:
        out = subprocess.run(["df", "-T", data_dir], capture_output=True, text=True).stdout
        dev, fs = out.splitlines()[1].split()[:2]
        env["fs"] = f"{fs} on {dev}"
    except (IndexError, OSError, ValueError):
        pass
    pk = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}\n", "libopenmpi-dev",
                         "libhdf5-openmpi-dev", "librocksdb-dev", "strace"],
                        capture_output=True, text=True).stdout
    env["packages"] = pk.strip().splitlines()
    env["git"] = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    return env


# ---------------------------------------------------------------- main

def reexec_with_matplotlib():
    """Plots need matplotlib; Debian's python3-matplotlib lives in the system
    Python, which may not be the `python3` first on PATH (pyenv, venv)."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    system_py = "/usr/bin/python3"
    if os.path.realpath(sys.executable) == os.path.realpath(system_py) or not os.path.exists(system_py):
        return
    probe = subprocess.run([system_py, "-c", "import matplotlib"], capture_output=True)
    if probe.returncode == 0:
        os.execv(system_py, [system_py] + sys.argv)


def main():
    reexec_with_matplotlib()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="smoke check: tiny sizes, ranks 1 and 2, two workloads (under a minute)")
    ap.add_argument("--ranks", default=None, help="comma-separated rank counts (default 1,2,4,8)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions per cell (default 5)")
    ap.add_argument("--rounds", type=int, default=None,
                    help="split the repetitions into this many rounds, each running every "
                         "system once in a random order (default: one round per repetition; "
                         "1 with --quick, where launches dominate)")
    ap.add_argument("--bytes", type=parse_size, default=None,
                    help="W1: bytes per rank (default 64M; 8M with --quick)")
    ap.add_argument("--count", type=int, default=None,
                    help="W2: objects per rank (default 1024; 256 with --quick)")
    ap.add_argument("--workloads", default=None,
                    help="comma-separated subset of W1-1M,W1-16M,W2-64K,W2-4K")
    ap.add_argument("--systems", default=None, help="comma-separated subset of the systems")
    ap.add_argument("--cairn-variant", action="append", default=[], metavar="NAME=ARGS",
                    help='also measure cairn with other options, reported as "cairn-NAME", '
                         'e.g. --cairn-variant "wb1m=--write-buffer=1048576" (repeatable)')
    ap.add_argument("--cairn-base", default=None, metavar="BENCH_CAIRN",
                    help="adds the system cairn-base: this bench_cairn binary (e.g. of main, "
                         "built in another directory), interleaved with the others")
    ap.add_argument("--buffer-offset", type=int, default=0, metavar="BYTES",
                    help="readers (posix, cairn) read into buffers this many bytes past a page "
                         "boundary (16: where malloc puts a large std::vector's data); default 0")
    ap.add_argument("--data-dir", default="/tmp/cairn-bench-data",
                    help="where the benchmark files go (the file system measured)")
    ap.add_argument("--out", default=os.path.join(BENCH, "results"))
    ap.add_argument("--build-dir", default=None, help="use programs already built there")
    ap.add_argument("--no-strace", dest="strace", action="store_false",
                    help="skip the metadata counting runs")
    ap.add_argument("--traced-checkpoints", type=int, default=3,
                    help="checkpoints in the strace'd write run (>= 3: open+first, steady, last+close)")
    ap.add_argument("--keep-traces", default=None, metavar="DIR",
                    help="copy the strace logs there (for checking what was counted)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--timeout", type=int, default=900, help="seconds per launch")
    ap.add_argument("--update-readme", action="store_true",
                    help="copy the table into bench/README.md (between the results markers)")
    args = ap.parse_args()

    if args.rounds is None:
        args.rounds = 1 if args.quick else args.reps
    if args.quick:
        ranks = [1, 2]
        B = args.bytes or 8 * MiB
        K = args.count or 256
        wl_names = ["W1-1M", "W2-4K"]
    else:
        ranks = [1, 2, 4, 8]
        B = args.bytes or 64 * MiB
        K = args.count or 1024
        wl_names = ["W1-1M", "W1-16M", "W2-64K", "W2-4K"]
    if args.ranks:
        ranks = [int(x) for x in args.ranks.split(",")]
    if args.workloads:
        wl_names = args.workloads.split(",")
    all_wl = {
        "W1-1M": dict(count=max(1, B // MiB), size=MiB,
                      desc=f"{fmt_size(B)} per rank in 1 MiB transfers"),
        "W1-16M": dict(count=max(1, B // (16 * MiB)), size=16 * MiB,
                       desc=f"{fmt_size(B)} per rank in 16 MiB transfers"),
        "W2-64K": dict(count=K, size=64 * KiB, desc=f"{K} objects of 64 KiB per rank"),
        "W2-4K": dict(count=K, size=4 * KiB, desc=f"{K} objects of 4 KiB per rank"),
    }
    workloads = [dict(name=n, **all_wl[n]) for n in wl_names]
    if args.traced_checkpoints < 3:
        ap.error("--traced-checkpoints must be at least 3")
    if args.strace and not shutil.which("strace"):
        log("strace not found: metadata operations are not counted (run scripts/install_bench_deps.sh)")
        args.strace = False

    t_start = time.time()
    bindir, cairn_note = build(args)
    systems = list(SYSTEMS)
    for v in args.cairn_variant:
        label, _, vargs = v.partition("=")
        if not label or not re.fullmatch(r"[A-Za-z0-9_]+", label):
            ap.error(f"--cairn-variant wants NAME=ARGS, got {v!r}")
        systems.append((f"cairn-{label}", "bench_cairn", [f"--label={label}"] + shlex.split(vargs)))
    if args.cairn_base:
        systems.append(("cairn-base", os.path.abspath(args.cairn_base), ["--label=base"]))
    if args.systems:
        keep = set(args.systems.split(",")) | set(DEVICES)
        systems = [s for s in systems if s[0] in keep]
    skipped = {}
    present = []
    for s in systems:
        if os.path.exists(os.path.join(bindir, s[1])):
            present.append(s)
        else:
            skipped[s[0]] = (cairn_note if s[1] == "bench_cairn" and cairn_note
                             else f"{s[1]} was not built (library missing? see cmake output)")
    systems = present
    names = [s[0] for s in systems]

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    outdir = os.path.join(args.out, stamp + ("-quick" if args.quick else ""))
    os.makedirs(outdir, exist_ok=True)
    data_root = os.path.join(os.path.abspath(args.data_dir), stamp)
    os.makedirs(data_root, exist_ok=True)
    log(f"cairn bench: {len(systems)} systems x {len(workloads)} workloads x ranks {ranks} x "
        f"{args.reps} reps -> {outdir}")
    for s, why in skipped.items():
        log(f"  skipped {s}: {why}")

    cells, failures = [], []
    rng = random.Random(args.seed)
    try:
        for w in workloads:
            for n in ranks:
                run_group(args, bindir, systems, w, n, data_root, rng, cells, failures)
    finally:
        shutil.rmtree(data_root, ignore_errors=True)

    summary = summarize(cells)
    md_counts = metadata_summary(cells, args.traced_checkpoints)
    resident = max([r.get("resident_pages_after_evict", 0) for c in cells for r in c["runs"]] or [0])
    meta = {
        "timestamp": stamp, "mode": "quick" if args.quick else "full", "reps": args.reps,
        "rounds": args.rounds, "ranks": ranks, "bytes_per_rank_w1": B, "objects_per_rank_w2": K,
        "workloads": workloads, "systems": [dict(name=s[0], program=s[1], args=s[2]) for s in systems],
        "data_dir": args.data_dir, "env": environment(args.data_dir), "cairn_note": cairn_note,
        "resident_pages_max": resident, "failures": failures, "skipped": skipped,
        "strace": args.strace, "traced_checkpoints": args.traced_checkpoints,
        "seconds": round(time.time() - t_start, 1),
        "command": " ".join([os.path.relpath(sys.argv[0], REPO)] + sys.argv[1:]),
    }
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump({
            "meta": meta,
            "summary": [dict(system=k[0], workload=k[1], ranks=k[2], phase=k[3], **v)
                        for k, v in sorted(summary.items())],
            "metadata_ops": [dict(system=k[0], workload=k[1], ranks=k[2], **v)
                             for k, v in sorted(md_counts.items())],
            "cells": cells,
        }, f, indent=1)
    text = markdown(meta, summary, md_counts, workloads, ranks, names)
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write(text)
    pngs = plots(outdir, summary, md_counts, workloads, ranks, names)
    if args.update_readme:
        update_readme(outdir, text, pngs)
    log(f"done in {time.time() - t_start:.0f} s: {outdir}/results.md"
        + (f" ({len(failures)} cells failed)" if failures else ""))
    return 1 if failures else 0


def update_readme(outdir, text, pngs):
    readme = os.path.join(BENCH, "README.md")
    begin, end = "<!-- results:begin -->", "<!-- results:end -->"
    with open(readme) as f:
        doc = f.read()
    if begin not in doc or end not in doc:
        log("README.md has no results markers; not updated")
        return
    rel = os.path.relpath(outdir, BENCH)
    body = text.split("\n", 1)[1]  # without the first heading
    body = body.replace("Plots: write_bw.png, read_bw.png, sparse.png, metadata.png beside this file.",
                        "\n".join(f"![{p}]({rel}/{p})" for p in pngs))
    body = body.replace("\n## ", "\n### ").replace("\n### ###", "\n####")
    new = doc.split(begin)[0] + begin + f"\n\nLatest run: `{rel}`\n" + body + "\n" + end + doc.split(end)[1]
    with open(readme, "w") as f:
        f.write(new)


if __name__ == "__main__":
    sys.exit(main())
