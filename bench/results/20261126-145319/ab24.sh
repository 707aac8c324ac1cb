source /work/wt/integ/scripts/mpi_env.sh
n=${1:-1}
for r in $(seq 9); do
  for s in posix:/work/wt/integ/build/bench/bench_posix base:/work/wt/base/build/bench/bench_cairn integ:/work/wt/integ/build/bench/bench_cairn; do
    name=${s%%:*} bin=${s#*:}
    rm -rf /tmp/ab24/$name; mkdir -p /tmp/ab24/$name
    mpiexec -n $n $bin --phase=write --dir=/tmp/ab24/$name --count=1024 --size=4096 --reps=1 | grep RESULT | python3 -c "
import sys,json
for l in sys.stdin: r=json.loads(l[7:]); print('$name', $r, r['seconds'])"
  done
done
