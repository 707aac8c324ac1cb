cd /work/wt/integ
R=bench/results/arrfast-20261126
while [ ! -f /tmp/arr256/matrix.done ]; do sleep 10; done
uptime >> /tmp/arr256/load81.txt
python3 $R/ab.py /tmp/arr256/bin/array_bench /tmp/arr256/bin/array_bench 256 8 1 5 \
    slab0,slab1,slab2,boxes new=2 /tmp/arr256/m-256-8-1-noful.json "ind/coll" "/tmp/arr256root" "--prime=1" > /tmp/arr256/m81b.log 2>&1
uptime >> /tmp/arr256/load81.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for rep in 0 1 2 3 4; do
  mpiexec -n 1 /tmp/arr256/bin/array_bench --phase=read --writers=8 --seed=$rep --modes=ind --system=cairn \
     --dir=/tmp/arr256root/ab-256-8/cairn --mib=256 --patterns=full --prime=1 >> /tmp/arr256/m81full.log 2>&1
done
uptime >> /tmp/arr256/load81.txt
rm -rf /tmp/arr256root/ab-256-8
echo done > /tmp/arr256/r81.done
