#!/usr/bin/env bash
# python_array_restart_test.sh: global arrays and sharded state dicts saved
# from Python by 4 ranks and loaded (read-only) by 2, 1 and 3 ranks
# (python/tests/array_restart.py says what is checked).
#
# usage: tests/python_array_restart_test.sh PYTHON ARRAY_RESTART_PY
# environment: MPIEXEC (default mpiexec), PYTHONPATH with the build's cairn package
set -u -o pipefail
py=$1 script=$2
MPIEXEC=${MPIEXEC:-mpiexec}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pyarrays.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$MPIEXEC" -n 4 "$py" "$script" save "$tmp/s" ||
  { echo "python_array_restart_test: FAIL: save on 4 ranks"; exit 1; }
for n in 2 1 3; do
  "$MPIEXEC" -n "$n" "$py" "$script" load "$tmp/s" ||
    { echo "python_array_restart_test: FAIL: load on $n ranks"; exit 1; }
done
echo "python_array_restart_test: PASS"
