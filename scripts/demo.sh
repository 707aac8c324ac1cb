#!/usr/bin/env bash
# The main job: build everything, then run the heat example on 4 processes
# with a store on the local disk, checkpointing every 100 steps; stop it
# half-way, restart it from the newest revision on 3 processes, and show the
# revisions; then the same example in Python, run and restarted, with the C++
# checksum.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/mpi_env.sh
scripts/build.sh
store=${STORE:-$PWD/demo-store}
rm -rf "$store"
heat=build/examples/heat/heat
cairn=build/tools/cairn
echo
echo "== run 1: 4 ranks, 1024x1024 grid, 400 steps, a checkpoint every 100"
mpiexec -n 4 "$heat" --store "$store" --nx 1024 --ny 1024 --steps 400 --every 100
echo
echo "== run 2: the same store on 3 ranks, 800 steps: restarts from revision 4 (step 400),"
echo "   each rank reading its new box of the global array \"grid\" that 4 ranks wrote"
mpiexec -n 3 "$heat" --store "$store" --nx 1024 --ny 1024 --steps 800 --every 100
echo
echo "== the store's revisions (cairn ls $store)"
"$cairn" ls "$store"
echo
echo "== the newest revision (cairn info)"
"$cairn" info "$store"
echo
echo "== every checksum of the newest revision (cairn verify)"
"$cairn" verify "$store"

# The same example in Python (mpi4py + NumPy), when the bindings were built.
heat_py=build/examples/python/heat_py
if [ -x "$heat_py" ]; then
  pystore=${STORE:-$PWD/demo-store}-py
  rm -rf "$pystore"
  echo
  echo "== the Python heat example (examples/python/heat.py), 4 ranks, 512x512: 150 steps,"
  echo "   then the same store to 300 steps (a restart), then the C++ example's checksum"
  mpiexec -n 4 "$heat_py" --store "$pystore" --nx 512 --ny 512 --steps 150 --every 50 | grep -E "^(new run|checkpoint|checksum)"
  mpiexec -n 4 "$heat_py" --store "$pystore" --nx 512 --ny 512 --steps 300 --every 50 | grep -E "^(restart|checkpoint|checksum)"
  rm -rf "$pystore-cxx"
  echo "C++ heat, same grid and steps: $(mpiexec -n 4 "$heat" --store "$pystore-cxx" --nx 512 --ny 512 --steps 300 --every 0 | tail -n 1)"
  rm -rf "$pystore-cxx"
fi
