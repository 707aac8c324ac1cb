cd /work/wt/integ
R=bench/results/arrfast-20261126
uptime > /tmp/arr256/load.txt
for w in 1 2 4 8; do for m in 1 2 4 8; do
  python3 $R/ab.py /tmp/arr256/bin/array_bench /tmp/arr256/bin/array_bench 256 $w $m 5 \
      full,slab0,slab1,slab2,boxes new=2 /tmp/arr256/m-256-$w-$m.json "ind/coll" "/tmp/arr256root" "--prime=1" > /tmp/arr256/m$w$m.log 2>&1
  uptime >> /tmp/arr256/load.txt
done; rm -rf /tmp/arr256root/ab-256-$w; done
echo done > /tmp/arr256/matrix.done
