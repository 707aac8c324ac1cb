#!/bin/bash
source /work/wt/catopen/scripts/mpi_env.sh
B=/work/wt/catopen/build/bench/catalogue/catalogue_bench
cp $B /tmp/catexp/cb_open_exp
B=/tmp/catexp/cb_open_exp
d=/tmp/catw-store
uptime
for i in 1 2 3 4 5; do
  for m in 0 3 1; do
    sync; echo 1 > /proc/sys/vm/drop_caches
    r=$(CAIRN_EXP_OPEN=$m mpiexec -n 1 $B restart cairn-commit $d 1000000 100 | tail -1)
    echo "mode $m $(echo $r | grep -o '"open_s[^}]*verify_cpu_s": [0-9.]*')"
  done
done
uptime
