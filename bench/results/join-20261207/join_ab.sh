#!/bin/bash
# A/B of joining short streams across holes (ShortStreams::join_hole) for array reads: same binary, CAIRN_JOIN_HOLE, alternating
source /work/main/scripts/mpi_env.sh
B=/tmp/bb-join/bench/arrays/array_bench
D=/tmp/joinab; rm -rf $D; mkdir -p $D
for n in 1 4; do mpiexec -n $n $B --phase=write --system=cairn --dir=$D/w$n --mib=64 > /dev/null; done
for rep in 1 2 3 4 5 6 7; do
 for n in 1 4; do for m in 1 4; do
  for mode in j0 jr1 jr4 jr16; do
   export CAIRN_JOIN_HOLE=1048576; case $mode in j0) export CAIRN_JOIN_HOLE=0;; jr1) export CAIRN_JOIN_RUNS=1;; jr4) export CAIRN_JOIN_RUNS=4;; jr16) export CAIRN_JOIN_RUNS=16;; esac
   mpiexec -n $m $B --phase=read --system=cairn --dir=$D/w$n --mib=64 --writers=$n --patterns=full,slab0,slab1,boxes --modes=ind --seed=$rep 2>/dev/null | grep RESULT | sed "s/RESULT /$mode /"
  done
 done; done
done
