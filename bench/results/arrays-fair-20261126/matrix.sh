cd /work/wt/integ
R=bench/results/arrfast-20261126
uptime > /tmp/arrq2/load.txt
for w in 1 2 4 8; do for m in 1 2 4 8; do
  python3 $R/ab.py build/bench/arrays/array_bench build/bench/arrays/array_bench 64 $w $m 5 \
      full,slab0,slab1,slab2,boxes new=2 /tmp/arrq2/m-64-$w-$m.json "ind/coll" "/tmp/arrq2root" "--prime=1" > /tmp/arrq2/m$w$m.log 2>&1
  uptime >> /tmp/arrq2/load.txt
done; done
echo done > /tmp/arrq2/matrix.done
