#!/usr/bin/env bash
# Runs bench/python/bench.py (cairn's Python package, numpy.save, h5py) and
# the C++ API's bench_cairn on the same per-rank data (N arrays of 256/N MiB)
# at 1, 2 and 4 ranks, 5 repetitions each, and prints every RESULT line.
# usage: bench/python/run.sh [BUILD_DIR (default build)] [DATA_DIR (default /tmp/cairn-pybench)]
# The build must have the Python bindings and bench_cairn
# (cmake -DCAIRN_BUILD_BENCH=ON; cmake --build BUILD --target _cairn bench_cairn);
# h5py is measured when importable by the build's Python (pip install h5py).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build} data=${2:-/tmp/cairn-pybench}
source scripts/mpi_env.sh
py=$(sed -n 's/^PYTHONPATH=.* exec \([^ ]*\) .*/\1/p' "$build/examples/python/heat_py")
mib=${MIB:-256} arrays=${ARRAYS:-16} reps=${REPS:-5}
mkdir -p "$data"
for n in ${RANKS:-1 2 4}; do
  PYTHONPATH=$build/python mpiexec -n "$n" "$py" bench/python/bench.py --dir "$data" \
    --mib "$mib" --arrays "$arrays" --reps "$reps"
  for phase in write read; do
    mpiexec -n "$n" "$build/bench/bench_cairn" --phase=$phase --dir="$data/cxx$n" \
      --count="$arrays" --size=$(( mib * 1048576 / arrays )) --reps="$reps" --keep | grep '^RESULT'
  done
  rm -rf "$data/cxx$n"
done
