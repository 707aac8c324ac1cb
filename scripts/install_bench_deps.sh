#!/usr/bin/env bash
# Installs the packages the benchmark suite (bench/) needs on Debian/Ubuntu:
# the peers it compares cairn with (parallel HDF5, RocksDB), strace to count
# metadata operations, and matplotlib for the plots. Idempotent: packages
# that dpkg already reports as installed are skipped, and apt-get runs only
# when something is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libopenmpi-dev openmpi-bin
  libxxhash-dev
  libhdf5-openmpi-dev
  librocksdb-dev
  libsqlite3-dev               # the catalogue benchmark's SQLite peer
  strace
  python3 python3-matplotlib
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_bench_deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install_bench_deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { $SUDO apt-get update -qq && \
       $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "install_bench_deps: apt-get failed" >&2
  exit 1
fi
echo "install_bench_deps: done"
