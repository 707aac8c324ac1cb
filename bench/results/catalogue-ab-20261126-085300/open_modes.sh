#!/bin/bash
source /work/wt/catopen/scripts/mpi_env.sh
B=/work/wt/catopen/build/bench/catalogue/catalogue_bench
d=/tmp/catw-store
uptime
for i in 1 2 3; do
  for m in 0 1 2 3 0p; do
    sync; echo 1 > /proc/sys/vm/drop_caches
    if [ "$m" = 0p ]; then env="CAIRN_EXP_OPEN=0 CAIRN_EXP_PIECE=1048576"; else env="CAIRN_EXP_OPEN=$m"; fi
    r=$(env $env mpiexec -n 1 $B restart cairn-commit $d 1000000 100 | tail -1)
    echo "mode $m $(echo $r | grep -o '"open_s[^}]*verify_cpu_s": [0-9.]*')"
  done
done
uptime
