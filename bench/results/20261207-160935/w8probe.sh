#!/bin/bash
# runs bench_cairn W1-1M write at 8 ranks N times; prints MiB/s, cpu, and /proc/vmstat deltas that differ
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=${B:-/tmp/bb-final/bench/bench_cairn}
for i in $(seq 1 ${N:-10}); do
  rm -rf /tmp/pf/w8
  cat /proc/vmstat > /tmp/pf/vm0; cat /proc/stat | head -1 > /tmp/pf/st0
  out=$(mpiexec --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader -n 8 $B --phase=write --dir=/tmp/pf/w8 --count=64 --size=1048576 --reps=1 2>&1 | grep -o '"cpu_seconds": [0-9.]*\|"mib_s": [0-9.]*' | tr '\n' ' ')
  cat /proc/vmstat > /tmp/pf/vm1; cat /proc/stat | head -1 > /tmp/pf/st1
  d=$(paste /tmp/pf/vm0 /tmp/pf/vm1 | awk '$2!=$4 && ($1 ~ /allocstall|pgsteal_direct|pgscan_direct|compact_stall|thp_fault|pgfault|pgmajfault|nr_dirty_threshold|workingset|pgalloc_normal|pgfree|pgactivate|pgrefill|drop_pagecache|pgsteal_kswapd|kswapd/) {printf "%s=%d ", $1, $4-$2}')
  s=$(paste /tmp/pf/st0 /tmp/pf/st1 | awk '{printf "usr=%d sys=%d steal=%d", $13-$2, $15-$4, $20-$9}')
  echo "$i $out | $s | $d"
done
