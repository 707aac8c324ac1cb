#!/usr/bin/env bash
# The global-array benchmark in one command (bench/arrays/README.md):
# installs the peers (parallel HDF5 from Debian; TensorStore from PyPI into
# build-bench-arrays/ts-venv, skipped with a message if pip cannot), builds
# array_bench in build-bench-arrays/, and runs run_arrays.py with the
# arguments given (e.g. --mib 32 --reps 5 for a quicker run than the
# issue's 256 MiB per rank). Tables on standard output; every measurement in
# build-bench-arrays/results.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/mpi_env.sh
scripts/install_deps.sh >/dev/null
scripts/install_bench_deps.sh >/dev/null
b=build-bench-arrays
cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAIRN_BUILD_BENCH=OFF -DCAIRN_BUILD_TESTS=OFF \
      -DCAIRN_PYTHON=OFF >/dev/null
cmake --build "$b" --target array_bench >/dev/null
ts_args=()
if [ ! -x "$b/ts-venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$b/ts-venv" || true
fi
if [ -x "$b/ts-venv/bin/python" ] &&
   { "$b/ts-venv/bin/python" -c "import tensorstore, mpi4py" 2>/dev/null ||
     "$b/ts-venv/bin/python" -m pip install -q --disable-pip-version-check tensorstore >&2; }; then
  ts_args=(--ts-python "$b/ts-venv/bin/python")
else
  echo "run.sh: TensorStore could not be installed from PyPI: its column is skipped" >&2
fi
echo "uptime at start: $(uptime)" >&2
python3 bench/arrays/run_arrays.py "$b/bench/arrays/array_bench" --json "$b/results.json" "${ts_args[@]}" "$@"
echo "uptime at end: $(uptime)" >&2
