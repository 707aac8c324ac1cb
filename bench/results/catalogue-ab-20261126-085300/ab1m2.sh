#!/bin/bash
# Interleaved pairs: main (e681952) vs branch catopen, cairn-commit write + restart
# (page cache dropped before the restart), 100K then 1M objects x 100 tags, 1 rank.
source /work/wt/catopen/scripts/mpi_env.sh
uptime
for N in 1000000; do
  for i in 1 2 3 4 5; do
    for b in main final2; do
      B=/tmp/catexp/cb_$b; d=/tmp/catexp/abstore; rm -rf $d
      w=$(mpiexec -n 1 $B write cairn-commit $d $N 100 | tail -1)
      sync; echo 1 > /proc/sys/vm/drop_caches
      r=$(mpiexec -n 1 $B restart cairn-commit $d $N 100 | tail -1)
      echo "$N $b write $w"; echo "$N $b restart $r"; rm -rf $d
    done
  done
  uptime
done
