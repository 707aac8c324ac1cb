# Quiet-window benchmarks (run when no helper runs).
cd /work/wt/integ
uptime > /tmp/endq.load
MIB=256 REPS=5 RANKS="1 2 4" SYSTEMS=cairn,cxx-arrays,cxx bench/python/run.sh build /tmp/pyq5 > /tmp/endq.py.log 2>&1
uptime >> /tmp/endq.load
python3 bench/run.py --build-dir build/bench --systems posix,cairn,cairn-base --cairn-base /tmp/abx/bench_cairn_r16.sh \
   --workloads W1-16M,W1-1M --no-strace --reps 5 --out /tmp/endq-req/res --data-dir /tmp/endq-req-data > /tmp/endq.req.log 2>&1
uptime >> /tmp/endq.load
mkdir -p /tmp/endq-arr
for c in "1 1" "2 1" "4 4" "8 2"; do set -- $c
  CAIRN_X_REQ=8388608 python3 bench/results/arrfast-20261126/ab.py /tmp/abx/array_bench_knob /tmp/abx/array_bench_1m 64 $1 $2 5 \
      full,slab0 new=2 /tmp/endq-arr/r8-64-$1-$2.json "ind/coll" /tmp/endq-arr-root "--prime=1" > /tmp/endq-arr/r8-$1$2.log 2>&1
  uptime >> /tmp/endq.load
done
echo done > /tmp/endq.done
