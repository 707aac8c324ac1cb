#!/usr/bin/env bash
# Configures and builds cairn (library, tool, examples, tests, the Python
# extension) into build/.
# Usage: scripts/build.sh [extra cmake arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
# The Python bindings: their venv (build/venv) and its interpreter. Optional:
# if this fails (or CAIRN_NO_PYTHON=1), the C++ build goes on without them.
py_args=()
if [ "${CAIRN_NO_PYTHON:-0}" != 1 ]; then
  if py=$(scripts/install_python_deps.sh) && [ -x "$py" ]; then
    py_args=(-DPython_EXECUTABLE="$py")
  else
    echo "build.sh: warning: Python dependencies missing; building without the Python bindings" >&2
  fi
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAIRN_BUILD_BENCH=OFF "${py_args[@]}" "$@" >/dev/null
cmake --build build -j "$(nproc)"
