#!/usr/bin/env bash
# `pip install .` as README's "Python" section says, into a new virtual
# environment on Debian's python3 that sees Debian's mpi4py and NumPy, with
# pip's default build isolation (its own build environment from PyPI, the
# project's pyproject.toml). Then, from outside the source tree: a store
# over mpi4py's COMM_WORLD at 2 ranks (put with tags, commit, read back),
# and `import cairn` with a single-process store in a venv without mpi4py.
# (pip's isolated build once fetched mpi4py 4 for its C header, and every
# MPI store of the installed package failed against Debian's mpi4py 3.1:
# ImportError PyMPIPrequest_New; found by the new-user audit.)
# Usage: python_pip_install_test.sh SOURCE_DIR MPIEXEC
set -u
src=$1 mpiexec=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-pip-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv" || fail "venv"
# The build directory outside the source tree (pyproject's default is under it).
nice "$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check \
    --config-settings=build-dir="$tmp/build" "$src" >"$tmp/pip.log" 2>&1 ||
  { tail -30 "$tmp/pip.log"; fail "pip install $src"; }
cd "$tmp"
# The installed extension records MPI's library directory (from the pip
# build's CMake cache) unless the loader searches it by default, as
# install_test checks for libcairn: CMake strips it on install otherwise,
# and `import cairn` where MPI is a module's needs that module loaded.
ext=$(ls "$tmp"/venv/lib/python3*/site-packages/cairn/_cairn*.so 2>/dev/null | head -n 1)
[[ -n $ext ]] || fail "no cairn/_cairn*.so in the venv"
mpi_lib=$(sed -nE 's/^MPI_[A-Za-z0-9_]+_LIBRARY:FILEPATH=(.*\/lib(mpi|mpich)\.so)$/\1/p' "$tmp/build/CMakeCache.txt" | head -n 1)
[[ -n $mpi_lib ]] || fail "no MPI library in the pip build's CMakeCache.txt"
mpi_dir=$(realpath "$(dirname "$mpi_lib")")
if ! ldconfig -v -N -X 2>/dev/null | sed -n 's/^\([^\t][^:]*\):.*/\1/p' | xargs -r realpath 2>/dev/null | grep -qxF "$mpi_dir"; then
  runpath=$(readelf -d "$ext" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')
  tr ':' '\n' <<<"$runpath" | xargs -r realpath 2>/dev/null | grep -qxF "$mpi_dir" ||
    fail "$ext does not record MPI's directory $mpi_dir (RUNPATH '$runpath')"
  echo "the extension records MPI's directory $mpi_dir"
fi
cat >"$tmp/mpi_store.py" <<'PY'
import sys
import numpy as np
from mpi4py import MPI
import cairn
comm = MPI.COMM_WORLD
assert cairn.__file__.startswith(sys.argv[2]), cairn.__file__
with cairn.Store(sys.argv[1], comm=comm) as st:
    st.put("x", np.arange(1000, dtype=np.float64) + comm.rank, tags={"rank": comm.rank})
    rev = st.commit()
with cairn.Store(sys.argv[1], comm=comm, mode="r") as st:
    got = np.frombuffer(st.get("x"), dtype=np.float64)
    assert (got == np.arange(1000) + comm.rank).all(), got[:4]
    assert st.tags("x")["rank"] == comm.rank, st.tags("x")
    assert st.revision == rev == 1
# One line from rank 0 (two ranks' prints can interleave within a line).
oks = comm.gather(True, root=0)
if comm.rank == 0:
    print("ranks ok:", sum(oks), "of", comm.size)
PY
out=$("$mpiexec" -n 2 "$tmp/venv/bin/python" "$tmp/mpi_store.py" "$tmp/s" "$tmp/venv") ||
  { echo "$out"; fail "a store over mpi4py's COMM_WORLD from the installed package"; }
echo "$out"
echo "$out" | grep -qx "ranks ok: 2 of 2" || fail "not every rank reported ok"
# Without mpi4py: a venv that does not see the system's packages.
/usr/bin/python3 -m venv "$tmp/bare" || fail "bare venv"
site=$("$tmp/venv/bin/python" -c 'import cairn, os; print(os.path.dirname(os.path.dirname(cairn.__file__)))')
out=$(PYTHONPATH="$site" "$tmp/bare/bin/python" -c '
import sys, importlib.util
assert importlib.util.find_spec("mpi4py") is None, "mpi4py is visible"
import cairn
with cairn.Store(sys.argv[1]) as st:
    st.put("k", b"v")
    st.commit()
with cairn.Store(sys.argv[1], mode="r") as st:
    assert bytes(st.get("k")) == b"v"
print("single-process ok")' "$tmp/single") || { echo "$out"; fail "import cairn without mpi4py"; }
echo "$out"
echo "pip install . (isolated build) works with the system's mpi4py, and without it"
