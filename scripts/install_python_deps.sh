#!/usr/bin/env bash
# Installs what the Python bindings (python/, the `cairn` package) need to be
# built and tested, and is not yet there: Debian's python3-dev, python3-venv,
# python3-numpy and python3-pytest, then a virtual environment (default
# build/venv, or $1) on Debian's /usr/bin/python3 that sees those system
# packages and gets from PyPI, with pip: nanobind and scikit-build-core (the
# build) and mpi4py (compiled from source against the system MPI, so that
# its communicators are Open MPI's). Idempotent and quick when all is there
# (the mpi4py wheel is built once per machine, in ~/.cache/cairn-wheels). Prints the
# venv's python on its last line. Needs root (or sudo) only to install
# Debian packages. The reasons are in doc/dependencies.md.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-build/venv}
py=/usr/bin/python3
pkgs=(python3-dev python3-venv python3-numpy python3-pytest libopenmpi-dev openmpi-bin)
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
  echo "pip installing into $venv: nanobind scikit-build-core mpi4py" >&2
  # mpi4py from its source distribution: built with the system's mpicc.
  "$vpy" -m pip install -q --disable-pip-version-check \
    "nanobind>=2.0" "scikit-build-core>=0.9" >&2
  # Built once per machine into a wheel cache of its own (pip's cache does
  # not keep wheels built with --no-binary), then installed from there.
  wheels=${XDG_CACHE_HOME:-$HOME/.cache}/cairn-wheels
  if ! ls "$wheels"/mpi4py-*.whl >/dev/null 2>&1; then
    "$vpy" -m pip wheel -q --disable-pip-version-check --no-deps --no-binary mpi4py \
      -w "$wheels" "mpi4py>=3.1" >&2
  fi
  "$vpy" -m pip install -q --disable-pip-version-check --no-index --find-links "$wheels" mpi4py >&2
fi
echo "$(cd "$(dirname "$vpy")" && pwd)/$(basename "$vpy")"
