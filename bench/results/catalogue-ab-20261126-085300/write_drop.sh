#!/bin/bash
# Interleaved 1M cairn-commit writes with the streamed table's pages dropped as written (1) or not (0).
source /work/wt/catopen/scripts/mpi_env.sh
B=/work/wt/catopen/build/bench/catalogue/catalogue_bench
N=${N:-1000000}
uptime
for i in $(seq ${REPS:-3}); do
  for m in 1 0; do
    d=/tmp/catexp/wstore; rm -rf $d
    r=$(CAIRN_EXP_DROP=$m mpiexec -n 1 $B write cairn-commit $d $N 100 | tail -1)
    echo "drop $m $(echo $r | grep -o '"checkpoint_s[^}]*checkpoint_faults": [0-9]*')"
    rm -rf $d
  done
done
uptime
