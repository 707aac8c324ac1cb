#!/bin/bash
# Interleaved 1M cairn-commit write + restart (page cache dropped before the restart), main 1e23e8d vs main 88e1989
source /work/wt/integ/scripts/mpi_env.sh
uptime
for i in 1 2; do
  for b in base:/work/wt/catlin/build-base new:/work/wt/integ/build; do
    n=${b%%:*}; dir=${b#*:}; d=/tmp/ab1m-store; rm -rf $d
    w=$(mpiexec -n 1 $dir/bench/catalogue/catalogue_bench write cairn-commit $d 1000000 100 | tail -1)
    sync; echo 1 > /proc/sys/vm/drop_caches
    r=$(mpiexec -n 1 $dir/bench/catalogue/catalogue_bench restart cairn-commit $d 1000000 100 | tail -1)
    echo "$n write $w"; echo "$n restart $r"; rm -rf $d
  done
done
uptime
