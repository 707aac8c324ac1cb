#!/usr/bin/env bash
# Configures and builds cairn (library, tool, example, tests) into build/.
# Usage: scripts/build.sh [extra cmake arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAIRN_BUILD_BENCH=OFF "$@" >/dev/null
cmake --build build -j "$(nproc)"
