#!/usr/bin/env bash
# Alternates fresh processes of write_memory.py, one per CASE (KIND:WRITER),
# ROUNDS rounds, the order reversed every other round, and prints per case
# the median [min-max] span and CPU time (all ranks) of the timed write.
# usage: bench/python/probe/write_pairs.sh RANKS ROUNDS DIR CASE...
#   e.g. write_pairs.sh 2 6 /tmp/wm 4k:cairn thp:cairn 4k+thp:cairn thp:npsave thp:pwrite thp+cache:pwrite
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/mpi_env.sh
n=$1 rounds=$2 dir=$3
shift 3
mkdir -p "$dir"
out=$(mktemp)
echo "uptime before: $(uptime)"
for i in $(seq "$rounds"); do
  cases=("$@")
  if [ $((i % 2)) = 0 ]; then mapfile -t cases < <(printf '%s\n' "$@" | tac); fi
  for c in "${cases[@]}"; do
    PYTHONPATH=build/python mpiexec -n "$n" build/venv/bin/python bench/python/probe/write_memory.py \
      "$dir" "${c%%:*}" "${c#*:}"
  done
done | tee "$out"
echo "uptime after: $(uptime)"
python3 - "$out" <<'PY'
import collections, statistics as S, sys
span, cpu = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    w = line.split()  # KIND WRITER ranks N span S cpu C ...
    if len(w) >= 8 and w[2] == "ranks":
        span[(w[0], w[1])].append(float(w[5]))
        cpu[(w[0], w[1])].append(float(w[7]))
for k in span:
    s, c = span[k], cpu[k]
    print(f"{k[0]:10s} {k[1]:10s} n={len(s)} span {S.median(s):.3f} [{min(s):.3f}-{max(s):.3f}]"
          f"  CPU all ranks {S.median(c):.3f} [{min(c):.3f}-{max(c):.3f}]")
PY
rm -f "$out"
