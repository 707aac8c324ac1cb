#!/bin/bash
# A/B of the short-stream WILLNEED advice for array reads: same binary, CAIRN_NO_ADVICE=1 or not, alternating
source /work/main/scripts/mpi_env.sh
B=/tmp/bb-noadv/bench/arrays/array_bench
D=/tmp/advab; rm -rf $D; mkdir -p $D
for n in 1 4; do mpiexec -n $n $B --phase=write --system=cairn --dir=$D/w$n --mib=64 > /dev/null; done
for rep in 1 2 3 4 5 6 7; do
 for n in 1 4; do for m in 1 4; do
  for mode in adv noadv; do
   if [ $mode = noadv ]; then export CAIRN_NO_ADVICE=1; else unset CAIRN_NO_ADVICE; fi
   mpiexec -n $m $B --phase=read --system=cairn --dir=$D/w$n --mib=64 --writers=$n --patterns=full,slab0,slab1,boxes --modes=ind --seed=$rep 2>/dev/null | grep RESULT | sed "s/RESULT /$mode /"
  done
 done; done
done
