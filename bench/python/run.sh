#!/usr/bin/env bash
# Runs bench/python/bench.py (cairn's Python package, h5py, numpy.save) and
# the C++ API's bench_cairn on the same per-rank data (ARRAYS arrays making
# MIB MiB per rank) at 1, 2 and 4 ranks, interleaved one repetition at a
# time (cairn Python, cairn C++, h5py, numpy.save; then again), REPS times,
# (SYSTEMS may add cairn-thp, numpy-thp, h5py-thp: the same with NumPy's
# huge pages kept for the arrays; cairn-same: one array put ARRAYS times;
# cxx-arrays: bench_cairn putting each array from its own memory, as
# bench.py does, --distinct-sources=1),
# and prints the table of min/median/max (bench/python/summarize.py).
# usage: bench/python/run.sh [BUILD_DIR (default build)] [DATA_DIR (default /tmp/cairn-pybench)]
# The build must have the Python bindings and bench_cairn
# (cmake -DCAIRN_BUILD_BENCH=ON; cmake --build BUILD --target _cairn bench_cairn).
# h5py with the mpio driver: bench/python/setup_h5py.sh (once; into the
# build's venv). Every RESULT line goes to DATA_DIR/results.jsonl.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build} data=${2:-/tmp/cairn-pybench}
source scripts/mpi_env.sh
py=$(sed -n 's/^PYTHONPATH=.* exec \([^ ]*\) .*/\1/p' "$build/examples/python/heat_py")
pypath=${PYPATH:-$build/python}  # the cairn package to measure
mib=${MIB:-256} arrays=${ARRAYS:-16} reps=${REPS:-5}
systems=${SYSTEMS:-cairn,cxx,h5py,numpy}
mkdir -p "$data"
out=$data/results.jsonl
: >"$out"
for n in ${RANKS:-1 2 4}; do
  for rep in $(seq "$reps"); do
    for sys in ${systems//,/ }; do
      if [ "$sys" = cxx ] || [ "$sys" = cxx-arrays ]; then
        distinct=0
        [ "$sys" = cxx-arrays ] && distinct=1
        for phase in write read; do
          # --read-batch: all arrays in one MultiGet, as bench.py's get_many.
          mpiexec -n "$n" "$build/bench/bench_cairn" --phase=$phase --dir="$data/cxx$n" \
            --count="$arrays" --size=$(( mib * 1048576 / arrays )) --read-batch=$(( mib * 1048576 )) --reps=1 --keep --distinct-sources=$distinct | grep '^RESULT' | tee -a "$out"
        done
        rm -rf "$data/cxx$n"
      else
        # A suffix -thp keeps NumPy's transparent huge pages for the arrays
        # (bench.py's arrays otherwise get 4 KiB pages, as bench_cairn's):
        # cairn-thp, numpy-thp, h5py-thp; -same writes one array ARRAYS
        # times (bench.py --same-buffer, bench_cairn's pattern): cairn-same.
        extra=""
        case $sys in *-thp) sys=${sys%-thp} extra=--numpy-hugepages ;; esac
        case $sys in *-same) sys=${sys%-same} extra="$extra --same-buffer" ;; esac
        PYTHONPATH=$pypath mpiexec -n "$n" "$py" bench/python/bench.py --dir "$data" \
          --mib "$mib" --arrays "$arrays" --reps 1 --systems "$sys" $extra ${BENCH_ARGS:-} | tee -a "$out"
      fi
    done
  done
done
echo "uptime after: $(uptime)"
python3 bench/python/summarize.py "$out"
