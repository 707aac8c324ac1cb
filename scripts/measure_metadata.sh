#!/usr/bin/env bash
# Counts, with strace, the file-system metadata calls that a checkpoint costs
# and that a restart (open) costs, at 1, 2 and 4 ranks, using the heat
# example. Per checkpoint: the difference between a run with 15 and one with
# 5 checkpoints, divided by 10, so that MPI's own start-up calls cancel out.
# Per restart: the library's own counters (heat --stats), summed over ranks,
# for a run that restarts from the newest revision and has nothing left to do.
# Usage: scripts/measure_metadata.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
source "$(dirname "$0")/mpi_env.sh"
heat=$build/examples/heat/heat
calls=open,openat,creat,mkdir,mkdirat,stat,lstat,fstat,newfstatat,statx,rename,renameat,renameat2,unlink,unlinkat,fsync,fdatasync,ftruncate
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() {  # count NP CHECKPOINTS STORE -> "calls fsyncs opens"
  local np=$1 ck=$2 store=$3
  strace -f -qq -c -e trace=$calls -o "$tmp/st" mpiexec -n "$np" "$heat" --store "$store" \
    --nx 256 --ny 256 --steps $((ck * 10)) --every 10 >/dev/null
  awk '/^ *[0-9]/ { n = $4; if ($NF == "total") next; all += n; if ($NF ~ /sync/) fs += n; if ($NF ~ /open/) op += n }
       END { printf "%d %d %d\n", all, fs, op }' "$tmp/st"
}
printf "%-6s %-28s %-10s %-10s\n" ranks "metadata calls/checkpoint" "fsyncs" "opens"
for np in 1 2 4; do
  rm -rf "$tmp/a" "$tmp/b"
  read a fa oa < <(count "$np" 5 "$tmp/a")
  read b fb ob < <(count "$np" 15 "$tmp/b")
  printf "%-6s %-28s %-10s %-10s\n" "$np" "$(awk "BEGIN{print ($b - $a) / 10}")" "$(awk "BEGIN{print ($fb - $fa) / 10}")" "$(awk "BEGIN{print ($ob - $oa) / 10}")"
done
echo
echo "restart (open of a store with 15 revisions), the library's own counters summed over ranks:"
for np in 1 2 4; do
  rm -rf "$tmp/r"
  mpiexec -n "$np" "$heat" --store "$tmp/r" --nx 256 --ny 256 --steps 150 --every 10 >/dev/null
  echo "  $np ranks: $(mpiexec -n "$np" "$heat" --store "$tmp/r" --nx 256 --ny 256 --steps 150 --every 10 --stats | grep -i -E 'stats|open|read' | tr '\n' ' ')"
done
