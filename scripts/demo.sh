#!/usr/bin/env bash
# The main job: build everything, then run the heat example on 4 processes
# with a store on the local disk, checkpointing every 100 steps; stop it
# half-way, restart it from the newest revision, and show the revisions.
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
echo "== run 2: the same store, 800 steps: restarts from revision 4 (step 400)"
mpiexec -n 4 "$heat" --store "$store" --nx 1024 --ny 1024 --steps 800 --every 100
echo
echo "== the store's revisions (cairn ls $store)"
"$cairn" ls "$store"
echo
echo "== the newest revision (cairn info)"
"$cairn" info "$store"
echo
echo "== every checksum of the newest revision (cairn verify)"
"$cairn" verify "$store"
