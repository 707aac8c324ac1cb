#!/usr/bin/env bash
# Installs, from Debian's packages, what cairn needs to build and test and is
# not yet on the machine. Idempotent; needs root (or sudo) only when
# something is missing. The reason for each package is in doc/dependencies.md.
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config python3
  libopenmpi-dev openmpi-bin   # MPI: the communicator, one-sided extent counters
  libxxhash-dev                # XXH3-64 checksums
  libcli11-dev                 # the cairn tool's command line
  libgtest-dev                 # the test suite
  gfortran                     # the Fortran module `cairn` and the Fortran heat example
  clang libclang-rt-14-dev     # the fuzz targets (libFuzzer, ASan, UBSan runtimes)
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
