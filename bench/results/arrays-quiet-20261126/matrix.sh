for w in 1 2 4 8; do for m in 1 2 4 8; do
  python3 bench/results/arrread-20261126/ab.py build/bench/arrays/array_bench build/bench/arrays/array_bench 64 $w $m 5 full,slab0,slab1,slab2,boxes new=0:0 /tmp/arrq/m-64-$w-$m.json ind,coll > /tmp/arrq/m$w$m.log 2>&1
done; done
echo done > /tmp/arrq/matrix.done
