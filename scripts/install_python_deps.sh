#!/usr/bin/env bash
# Installs what the Python bindings (python/, the `cairn` package) need to be
# built and tested, and is not yet there: Debian's python3-dev, python3-venv,
# python3-numpy, python3-pytest and python3-mpi4py (Debian's mpi4py is built
# against Debian's Open MPI, the MPI cairn links), then a virtual environment
# (default build/venv, or $1) on Debian's /usr/bin/python3 that sees those
# system packages and gets from PyPI, with pip, only what Debian 12 lacks:
# nanobind and scikit-build-core (the build). Idempotent and quick when all
# is there. Prints the venv's python on its last line. Needs root (or sudo) only to install
# Debian packages. The reasons are in doc/dependencies.md.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-build/venv}
py=/usr/bin/python3
pkgs=(python3-dev python3-venv python3-numpy python3-pytest python3-mpi4py libopenmpi-dev openmpi-bin)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ! -x "$venv/bin/python" ]; then
  mkdir -p "$(dirname "$venv")"
  "$py" -m venv --system-site-packages "$venv"
fi
vpy=$venv/bin/python
if ! "$vpy" -c 'import nanobind, scikit_build_core, mpi4py, numpy, pytest' 2>/dev/null; then
  echo "pip installing into $venv: nanobind scikit-build-core" >&2
  "$vpy" -m pip install -q --disable-pip-version-check \
    "nanobind>=2.0" "scikit-build-core>=0.9" >&2
fi
echo "$(cd "$(dirname "$vpy")" && pwd)/$(basename "$vpy")"
