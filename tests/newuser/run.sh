#!/usr/bin/env bash
# A new user's check of cairn as an installed package (tests/newuser/README.md).
#   tests/newuser/run.sh [PREFIX] [WORKDIR]
# 1. builds cairn and installs it into PREFIX (default /tmp/nu-prefix);
# 2. builds the C, C++ and Fortran programs of this directory against the
#    install with CMake (find_package) and again with pkg-config;
# 3. pip-installs the Python package into a venv (WORKDIR/venv);
# 4. runs every program under mpiexec at 1, 2, 3 and 4 ranks, and the
#    restart tests at 4 -> 3 -> 2 ranks.
# Exit status 0 only if everything passed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
prefix=${1:-/tmp/nu-prefix}
work=${2:-/tmp/nu-work}
source "$src/scripts/mpi_env.sh"
mkdir -p "$work"
status=0
step() { echo "== $*"; }
run() { echo "+ $*"; "$@" || { echo "FAILED: $*"; status=1; }; }

if [ -z "${NU_SKIP_INSTALL:-}" ]; then
  step "build and install cairn into $prefix"
  run cmake -S "$src" -B "$work/cairn-build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCAIRN_BUILD_TESTS=OFF -DCAIRN_BUILD_BENCH=OFF
  run nice cmake --build "$work/cairn-build" -j2
  run cmake --install "$work/cairn-build" --prefix "$prefix"
fi

step "outside project, CMake find_package"
run cmake -S "$here" -B "$work/outside" -G Ninja -DCMAKE_PREFIX_PATH="$prefix"
run nice cmake --build "$work/outside" -j2

step "outside build, pkg-config"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
mkdir -p "$work/pc"
run cc "$here/c/nu_all.c" -o "$work/pc/nu_all" $(pkg-config --cflags --libs cairn) -lm
run cc "$here/c/nu_restart.c" -o "$work/pc/nu_restart" $(pkg-config --cflags --libs cairn)
run c++ -std=c++17 "$here/cpp/nu_cpp.cc" -o "$work/pc/nu_cpp" $(pkg-config --cflags --libs cairn)
run mpif90 "$here/fortran/nu_f.f90" -o "$work/pc/nu_f" -J "$work/pc" \
    -I"$(pkg-config --variable=fmoddir cairn)" -L"$prefix/lib" -lcairn_fortran -lcairn \
    -Wl,-rpath,"$prefix/lib"
export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}  # pkg-config gives no rpath

if [ -z "${NU_SKIP_PIP:-}" ]; then
  step "pip install . into $work/venv"
  [ -x "$work/venv/bin/python" ] || run /usr/bin/python3 -m venv --system-site-packages "$work/venv"
  # README's `pip install .` (pip's isolated build; FINDINGS.md F4, fixed:
  # it used to build against another mpi4py than the one the venv runs).
  run nice "$work/venv/bin/python" -m pip install -q --disable-pip-version-check \
      --force-reinstall --no-deps "$src"
fi
py=$work/venv/bin/python

bin=$work/outside
for n in 1 2 3 4; do
  step "$n ranks"
  rm -rf "$work/s-c$n" "$work/s-f$n" "$work/s-py$n" "$work/s-cpp$n"
  run mpiexec -n $n "$bin/nu_all" "$work/s-c$n"
  rm -rf "$work/s-c$n-pc" "$work/e$n"
  run mpiexec -n $n "$work/pc/nu_all" "$work/s-c$n-pc"
  run mpiexec -n $n "$bin/nu_edge" "$work/e$n"
  rm -rf "$work/k$n"
  run mpiexec -n $n "$bin/nu_keep" "$work/k$n"
  run mpiexec -n $n "$bin/nu_cpp" "$work/s-cpp$n"
  run mpiexec -n $n "$bin/nu_f" all "$work/s-f$n"
  run mpiexec -n $n "$py" "$here/python/nu_py.py" fread "$work/s-f$n"
  run mpiexec -n $n "$py" "$here/python/nu_py.py" all "$work/s-py$n"
done

step "restart 4 -> 3 -> 2"
rm -rf "$work/r-c" "$work/r-f" "$work/r-py"
run mpiexec -n 4 "$bin/nu_restart" write "$work/r-c"
run mpiexec -n 3 "$bin/nu_restart" resume "$work/r-c"
run mpiexec -n 2 "$bin/nu_restart" resume "$work/r-c"
run mpiexec -n 4 "$bin/nu_f" write "$work/r-f"
run mpiexec -n 3 "$bin/nu_f" resume "$work/r-f"
run mpiexec -n 2 "$bin/nu_f" resume "$work/r-f"
run mpiexec -n 4 "$py" "$here/python/nu_py.py" write "$work/r-py"
run mpiexec -n 3 "$py" "$here/python/nu_py.py" resume "$work/r-py"
run mpiexec -n 2 "$py" "$here/python/nu_py.py" resume "$work/r-py"

[ $status -eq 0 ] && echo "newuser: all passed" || echo "newuser: FAILED"
exit $status
