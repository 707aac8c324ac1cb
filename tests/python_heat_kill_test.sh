#!/usr/bin/env bash
# python_heat_kill_test.sh: the Python heat example (examples/python/heat.py)
# killed with -9 at random moments and restarted, by tests/heat_kill_test.sh
# (same grid, same checks), and its checksum compared with the C++ heat
# example's for the same grid.
#
# usage: tests/python_heat_kill_test.sh HEAT_PY HEAT_CXX
#   HEAT_PY   the build tree's wrapper running heat.py (build/examples/python/heat_py)
#   HEAT_CXX  the C++ heat binary (build/examples/heat/heat)
# environment: MPIEXEC, TRIALS (default 4), NPS (default "2 4"), STARTUP_MS
# (default 1500: Python, NumPy and mpi4py start slower), as heat_kill_test.sh
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
heat_py=$1 heat_cxx=$2
MPIEXEC=${MPIEXEC:-mpiexec}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pyheat.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# The C++ example's checksum for heat_kill_test.sh's grid and steps.
"$MPIEXEC" -n 2 "$heat_cxx" --store "$tmp/cxx" --nx 193 --ny 161 --steps 120 --every 3 >"$tmp/cxx.log" 2>&1 ||
  { cat "$tmp/cxx.log"; echo "python_heat_kill_test: FAIL: the C++ heat run failed"; exit 1; }
cxx=$(awk '$1 == "checksum" { print $2 }' "$tmp/cxx.log")
echo "python_heat_kill_test: C++ heat: checksum $cxx"

TRIALS=${TRIALS:-4} NPS=${NPS:-"2 4"} STARTUP_MS=${STARTUP_MS:-1500} MPIEXEC=$MPIEXEC bash "$here/heat_kill_test.sh" "$heat_py" | tee "$tmp/kill.log"
rc=${PIPESTATUS[0]}
[[ $rc == 0 ]] || { echo "python_heat_kill_test: FAIL: heat_kill_test.sh on heat.py exited $rc"; exit 1; }
py=$(awk '/reference \(1 rank, uninterrupted\): checksum/ { print $NF }' "$tmp/kill.log")
if [[ -z "$cxx" || "$py" != "$cxx" ]]; then
  echo "python_heat_kill_test: FAIL: heat.py's checksum '$py' differs from the C++ example's '$cxx'"
  exit 1
fi
echo "python_heat_kill_test: PASS: heat.py survives kill -9 and restarts; checksum $py = the C++ example's"
