#!/usr/bin/env bash
# Alternates fresh processes of read_memory (C++) and read_memory.py
# (Python) reading one store, ROUNDS rounds, the order reversed every other
# round, and prints per kind the median span, the paired ratio to the first
# kind and the median per-rank CPU time of the MultiGet.
# usage: bench/python/probe/pairs.sh RANKS STORE_DIR ROUNDS READ_MEMORY_BIN KIND...
#   KIND: cxx:vector, cxx:huge16, py:numpy, py:numpy4k, ... (see the two programs)
# The store: mpiexec -n RANKS build/bench/bench_cairn --phase=write --dir=D
#   --count=16 --size=16777216 --reps=1 --keep   (then STORE_DIR is D/rep0/store)
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/mpi_env.sh
n=$1 store=$2 rounds=$3 bin=$4
shift 4
out=$(mktemp)
echo "uptime before: $(uptime)"
for i in $(seq "$rounds"); do
  kinds=("$@")
  if [ $((i % 2)) = 0 ]; then mapfile -t kinds < <(printf '%s\n' "$@" | tac); fi
  for k in "${kinds[@]}"; do
    if [ "${k%%:*}" = cxx ]; then
      mpiexec -n "$n" "$bin" "$store" "${k#*:}"
    else
      PYTHONPATH=build/python mpiexec -n "$n" build/venv/bin/python bench/python/probe/read_memory.py "$store" "${k#*:}"
    fi
  done >>"$out"
done
echo "uptime after: $(uptime)"
python3 - "$out" "${1:-}" <<'PY'
import collections, re, statistics as S, sys
span, cpu, order = collections.defaultdict(list), collections.defaultdict(list), []
cur = None
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) span ([\d.]+)", line)
    if m:
        cur = m.group(1)
        if cur not in order:
            order.append(cur)
        span[cur].append(float(m.group(2)))
    m = re.search(r"multiget_cpu_s ([\d.]+)", line)
    if m:
        cpu[cur].append(float(m.group(1)))
base = order[0]
for k in order:
    r = [b / x for b, x in zip(span[base], span[k])]
    print(f"{k:12s} n={len(span[k])} span median {S.median(span[k]):.3f} [{min(span[k]):.3f}-{max(span[k]):.3f}]"
          f"  {base}/this paired median {S.median(r):.2f} [{min(r):.2f}-{max(r):.2f}]"
          f"  multiget CPU per rank median {S.median(cpu[k]):.4f} s")
PY
rm -f "$out"
