#!/usr/bin/env bash
# install_test.sh: installs the build into a temporary prefix and builds
# and runs, against that prefix only, the little user projects of
# tests/install/:
#   c_cmake     a C99 program through find_package(cairn) (cairn::cairn)
#   c_pkgconfig a C program built by README's pkg-config line (`cc app.c
#               $(pkg-config --cflags --libs cairn) ...`), and the Fortran
#               program by README's `mpif90 app.f90 ...` lines (with the
#               installed cairn.mod, and with the module compiled from its
#               installed source cairn.f90, as for another compiler)
#   fortran     a Fortran program through the module `cairn` (cairn::fortran
#               alone, which brings MPI's Fortran module), in a Fortran
#               project and in one with C enabled too
# and checks: cairn.h compiles as C99 (-pedantic) and as C++; every public
# C++ header compiles with -std=c++17; the installed library and tool link
# MPI's C library and never libmpi_cxx; the shared library exports the
# public API only (no internals) and every function cairn.h declares, and
# has a soname; the install holds nothing but bin/, include/ and lib/ (no
# Python extension); `cairn --version`.
#
# usage: tests/install_test.sh BUILD_DIR MPIEXEC
set -euo pipefail
BUILD=$(cd "$1" && pwd)
MPIEXEC=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cairn-install.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
PREFIX=$TMP/prefix
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }
note() { echo "install_test: $*"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
# A sanitized build (scripts/test_sanitized.sh) installs an instrumented
# libcairn: the user projects are built with the same flags, so that the
# sanitizer runtime is loaded first.
SAN=""
grep -q '^CAIRN_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt" && SAN="-fsanitize=address,undefined"
GEN+=(-DCMAKE_C_FLAGS="$SAN" -DCMAKE_Fortran_FLAGS="$SAN" -DCMAKE_EXE_LINKER_FLAGS="$SAN")

cmake --install "$BUILD" --prefix "$PREFIX" >"$TMP/install.log" || { cat "$TMP/install.log"; fail "cmake --install"; }
LIBDIR=$PREFIX/lib
[[ -d $LIBDIR ]] || LIBDIR=$(dirname "$(find "$PREFIX" -name 'libcairn.*' | head -n 1)")
for f in include/cairn/cairn.h include/cairn/store.h include/cairn/version.h bin/cairn; do
  [[ -e $PREFIX/$f ]] || fail "$f was not installed"
done
[[ -f $LIBDIR/cmake/cairn/cairnConfig.cmake && -f $LIBDIR/cmake/cairn/cairnConfigVersion.cmake ]] ||
  fail "cairnConfig.cmake / cairnConfigVersion.cmake not installed"
[[ -f $LIBDIR/pkgconfig/cairn.pc ]] || fail "cairn.pc not installed"
# Nothing beside bin/, include/ and lib*/: the Python extension is `pip
# install .`'s (component python), not a plain install's (it once landed in
# PREFIX/cairn/, a package without its Python half).
stray=$(cd "$PREFIX" && find . -mindepth 1 -maxdepth 1 ! -name bin ! -name include ! -name 'lib*' -printf '%P ')
[[ -z $stray ]] || fail "cmake --install put files outside bin/, include/, lib/: $stray"
note "installed into $PREFIX ($(cd "$PREFIX" && find . -type f | wc -l) files)"

# --- The version, three ways. ---
ver=$(sed -n 's/^#define CAIRN_VERSION_STRING "\(.*\)"$/\1/p' "$PREFIX/include/cairn/version.h")
[[ -n $ver ]] || fail "version.h has no CAIRN_VERSION_STRING"
tool_ver=$("$PREFIX/bin/cairn" --version)
[[ $tool_ver == "cairn $ver" ]] || fail "cairn --version prints '$tool_ver', version.h says $ver"
pc_ver=$(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --modversion cairn)
[[ $pc_ver == "$ver" ]] || fail "cairn.pc says $pc_ver, version.h $ver"
note "version $ver (version.h, cairn --version, cairn.pc)"

# --- Linkage: MPI's C library only; the public API only. ---
for bin in "$LIBDIR"/libcairn.so "$LIBDIR"/libcairn_fortran.so "$PREFIX/bin/cairn"; do
  [[ -e $bin ]] || continue
  needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  [[ $needed == *mpi_cxx* ]] && fail "$bin needs libmpi_cxx: $needed"
  # libcairn_fortran reaches MPI through libcairn.
  [[ $bin == *cairn_fortran* || $needed =~ libmpi(ch)?\.so ]] || fail "$bin does not link MPI's C library: $needed"
done
if [[ -e $LIBDIR/libcairn.so ]]; then
  soname=$(readelf -d "$LIBDIR/libcairn.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  # Before 1.0 the soname is MAJOR.MINOR, and the minor version goes up
  # with every change a built program would misread (doc/design.md,
  # "Packaging"): a program built against 0.1 must not load 0.2.
  [[ $soname == "libcairn.so.${ver%.*}" ]] || fail "libcairn.so's soname is '$soname', not libcairn.so.${ver%.*}"
  exported=$(nm -D --defined-only -C "$LIBDIR/libcairn.so")
  internal=$(grep -E 'cairn::(Inspector|Store::Rep|StreamWriter::Impl|StreamReader::Impl|AsyncCommit::State|Manifest|Encode|Decode|NamespaceState|IoQueue|Writer|File)[:(]' <<<"$exported" | head -n 5 || true)
  [[ -z $internal ]] || fail "libcairn.so exports internals:\n$internal"
  for sym in 'cairn::Store::Open' 'cairn::Status::ToString'; do
    grep -qF " $sym" <<<"$exported" || fail "libcairn.so does not export $sym"
  done
fi
# The installed libraries and tool find MPI's library where the build
# linked it with no environment, as the build tree's do: an MPI outside the
# loader's default directories (an environment module's) must be in their
# RUNPATH, which CMake strips on install unless told to keep it (without
# it, `cairn ls` where MPI is a module's fails with 'libmpi.so.40: cannot
# open shared object file' unless that module is loaded).
mpi_lib=$(sed -nE 's/^MPI_[A-Za-z0-9_]+_LIBRARY:FILEPATH=(.*\/lib(mpi|mpich)\.so)$/\1/p' "$BUILD/CMakeCache.txt" | head -n 1)
[[ -n $mpi_lib ]] || fail "no MPI library (libmpi.so or libmpich.so) in $BUILD/CMakeCache.txt"
mpi_dir=$(realpath "$(dirname "$mpi_lib")")
default_dir=0
while read -r d; do
  [[ $(realpath "$d" 2>/dev/null) == "$mpi_dir" ]] && default_dir=1
done < <(ldconfig -v -N -X 2>/dev/null | sed -n 's/^\([^\t][^:]*\):.*/\1/p')
if (( default_dir )); then
  note "MPI's library is in a default directory ($mpi_dir): no RUNPATH needed"
else
  for bin in "$LIBDIR"/libcairn.so "$LIBDIR"/libcairn_fortran.so "$PREFIX/bin/cairn"; do
    [[ -e $bin ]] || continue
    runpath=$(readelf -d "$bin" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')
    found=0
    IFS=: read -ra dirs <<<"$runpath"
    for d in "${dirs[@]}"; do [[ -n $d && $(realpath "$d" 2>/dev/null) == "$mpi_dir" ]] && found=1; done
    (( found )) || fail "$bin does not record MPI's directory $mpi_dir (RUNPATH '$runpath')"
  done
  note "the installed library and tool record MPI's directory $mpi_dir"
fi
# Every function cairn.h declares is defined and exported (a declared one
# missing links nowhere: cairn_options_init, say, which the header's macro
# hides from C callers but programs built against 0.1 and other languages'
# bindings call by name).
declared=$(grep -E '^[A-Za-z_][A-Za-z0-9_ *]*[ *]cairn_[a-z0-9_]+\(' "$PREFIX/include/cairn/cairn.h" |
  sed -E 's/.*[ *](cairn_[a-z0-9_]+)\(.*/\1/' | sort -u)
(( $(wc -l <<<"$declared") >= 60 )) || fail "found only $(wc -l <<<"$declared") functions declared in cairn.h"
if [[ -e $LIBDIR/libcairn.so ]]; then
  defined=$(nm -D --defined-only "$LIBDIR/libcairn.so" | awk '$2 == "T" || $2 == "W" {print $3}' | sort -u)
else
  defined=$(nm -g --defined-only "$LIBDIR/libcairn.a" 2>/dev/null | awk '$2 == "T" || $2 == "W" {print $3}' | sort -u)
fi
missing=$(comm -23 <(echo "$declared") <(echo "$defined") | tr '\n' ' ')
[[ -z $missing ]] || fail "declared in cairn.h but not exported by libcairn: $missing"
note "libcairn exports all $(wc -l <<<"$declared") functions cairn.h declares"
if [[ -e $LIBDIR/libcairn.so ]]; then
  note "libcairn.so: soname $soname, $(wc -l <<<"$exported") exported symbols, no internals, no libmpi_cxx"
fi

# --- The headers: cairn.h as C99 and C++, every public header as C++17. ---
MPI_CFLAGS=$(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --cflags cairn)
printf '#include <cairn/cairn.h>\n#include <cairn/version.h>\nint main(void) { return cairn_code_name(CAIRN_OK)[0] != 79; }\n' >"$TMP/h.c"
# shellcheck disable=SC2086
cc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only $MPI_CFLAGS "$TMP/h.c" || fail "cairn.h is not C99"
cp "$TMP/h.c" "$TMP/h_c.cc"
# shellcheck disable=SC2086
c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only $MPI_CFLAGS "$TMP/h_c.cc" || fail "cairn.h does not compile as C++"
{ for h in "$PREFIX"/include/cairn/*.h; do echo "#include <cairn/$(basename "$h")>"; done
  echo 'int main() { cairn::Status s; return s.ok() ? 0 : 1; }'; } >"$TMP/all.cc"
# shellcheck disable=SC2086
c++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only $MPI_CFLAGS "$TMP/all.cc" ||
  fail "the public headers do not compile with -std=c++17"
note "cairn.h compiles as C99 and C++11; every public header as C++17"

# run NAME NP CMD...: runs CMD under mpiexec with NP ranks in a fresh store.
run() {
  local name=$1 np=$2
  shift 2
  rm -rf "$TMP/store-$name"
  "$MPIEXEC" -n "$np" "$@" "$TMP/store-$name" >"$TMP/$name.log" 2>&1 || {
    cat "$TMP/$name.log"; fail "$name on $np ranks"; }
  grep -q ': ok\|: cairn .*ok' "$TMP/$name.log" || { cat "$TMP/$name.log"; fail "$name printed no 'ok'"; }
  note "$(grep -m1 ' ok' "$TMP/$name.log") [np=$np]"
}

# --- A C project through find_package(cairn). ---
cmake -S "$SRC/tests/install/c_cmake" -B "$TMP/c_cmake" "${GEN[@]}" -DCMAKE_PREFIX_PATH="$PREFIX" \
  >"$TMP/c_cmake.cfg.log" 2>&1 || { cat "$TMP/c_cmake.cfg.log"; fail "configuring the find_package(cairn) project"; }
cmake --build "$TMP/c_cmake" >"$TMP/c_cmake.build.log" 2>&1 || { cat "$TMP/c_cmake.build.log"; fail "building the find_package(cairn) project"; }
run user_c 2 "$TMP/c_cmake/user_c"
"$PREFIX/bin/cairn" ls "$TMP/store-user_c" | grep -q '^1 ' || fail "cairn ls does not show the C project's revision 1"

# --- README's pkg-config recipes, as written there, run as built. ---
# Each is README.md's line starting with `cc app.c` / `mpif90 app.f90`,
# /opt/cairn read as the prefix; the programs run without LD_LIBRARY_PATH
# (the recipes once built programs that could not find libcairn.so).
# For a static libcairn.a, `--libs --static` for `--libs` (as README says).
STATIC=""
[[ -e $LIBDIR/libcairn.so ]] || STATIC=" --static"
readme_cmd() {
  local line
  line=$(grep -m1 "^$1" "$SRC/README.md" | sed 's/ \{2,\}#.*$//')
  [[ -n $line ]] || fail "README.md has no line starting with '$1'"
  line=${line//--libs cairn/--libs$STATIC cairn}
  echo "${line//\/opt\/cairn/$PREFIX}"
}
mkdir "$TMP/readme"
cp "$SRC/tests/install/c_pkgconfig/main.c" "$TMP/readme/app.c"
cp "$SRC/tests/install/fortran/main.f90" "$TMP/readme/app.f90"
cmd=$(readme_cmd "cc app.c")
(cd "$TMP/readme" && unset LD_LIBRARY_PATH && PKG_CONFIG_PATH=$LIBDIR/pkgconfig eval "${cmd/#cc /cc $SAN } -o user_pc") ||
  fail "building with README's '$cmd'"
(unset LD_LIBRARY_PATH; run user_pc 2 "$TMP/readme/user_pc")
if [[ -e $PREFIX/include/cairn/fortran/cairn.mod ]]; then
  cmd=$(readme_cmd "mpif90 app.f90 -I")
  (cd "$TMP/readme" && unset LD_LIBRARY_PATH && PKG_CONFIG_PATH=$LIBDIR/pkgconfig eval "${cmd/#mpif90 /mpif90 $SAN } -o user_f_pc") ||
    fail "building with README's '$cmd'"
  (unset LD_LIBRARY_PATH; run user_f_pc 2 "$TMP/readme/user_f_pc")
fi
# The module compiled from its installed source, as a user of another
# Fortran compiler does (README), in a directory of its own: the program
# links libcairn alone, never libcairn_fortran or the installed cairn.mod.
[[ -f $PREFIX/include/cairn/fortran/cairn.f90 ]] || fail "the Fortran module's source cairn.f90 was not installed"
if command -v mpif90 >/dev/null; then
  mkdir "$TMP/readme_src"
  cp "$TMP/readme/app.f90" "$TMP/readme_src/"
  for prefix in "mpif90 -c" "mpif90 app.f90 cairn.o"; do
    cmd=$(readme_cmd "$prefix")
    out=""; [[ $prefix == *app.f90* ]] && out=" -o user_f_src"
    (cd "$TMP/readme_src" && unset LD_LIBRARY_PATH && PKG_CONFIG_PATH=$LIBDIR/pkgconfig eval "${cmd/#mpif90 /mpif90 $SAN }$out") ||
      fail "building with README's '$cmd'"
  done
  [[ -f $TMP/readme_src/cairn.mod ]] || fail "README's 'mpif90 -c .../cairn.f90' wrote no cairn.mod"
  readelf -d "$TMP/readme_src/user_f_src" | grep -q 'NEEDED.*libcairn_fortran' &&
    fail "the program built from cairn.f90 links libcairn_fortran"
  (unset LD_LIBRARY_PATH; run user_f_src 2 "$TMP/readme_src/user_f_src")
fi

# --- A Fortran project through the module. ---
if [[ -e $PREFIX/include/cairn/fortran/cairn.mod ]]; then
  cmake -S "$SRC/tests/install/fortran" -B "$TMP/fortran" "${GEN[@]}" -DCMAKE_PREFIX_PATH="$PREFIX" \
    >"$TMP/fortran.cfg.log" 2>&1 || { cat "$TMP/fortran.cfg.log"; fail "configuring the Fortran project"; }
  cmake --build "$TMP/fortran" >"$TMP/fortran.build.log" 2>&1 || { cat "$TMP/fortran.build.log"; fail "building the Fortran project"; }
  run user_f 2 "$TMP/fortran/user_f"
  # The same project with C enabled as well.
  cmake -S "$SRC/tests/install/fortran" -B "$TMP/fortran_c" "${GEN[@]}" -DCMAKE_PREFIX_PATH="$PREFIX" \
    -DLANGS="C;Fortran" >"$TMP/fortran_c.cfg.log" 2>&1 ||
    { cat "$TMP/fortran_c.cfg.log"; fail "configuring the Fortran project with C enabled"; }
  cmake --build "$TMP/fortran_c" >"$TMP/fortran_c.build.log" 2>&1 ||
    { cat "$TMP/fortran_c.build.log"; fail "building the Fortran project with C enabled (use mpi)"; }
  run user_f 2 "$TMP/fortran_c/user_f"
  if [[ -e $LIBDIR/libcairn.so ]]; then
    readelf -d "$TMP/fortran/user_f" | grep -q 'NEEDED.*libcairn_fortran' ||
      fail "the Fortran project built with cairn's own compiler does not use the installed libcairn_fortran"
  fi
  # A compiler other than the one that wrote cairn.mod: cairn::fortran is
  # the installed cairn.f90 compiled in the project. Asked for with
  # cairn_FORTRAN_FROM_SOURCE, then chosen by cairnConfig.cmake itself when
  # the compiler version it recorded is not this one's (edited here, last).
  from_source() {
    local name=$1
    shift
    cmake -S "$SRC/tests/install/fortran" -B "$TMP/$name" "${GEN[@]}" -DCMAKE_PREFIX_PATH="$PREFIX" "$@" \
      >"$TMP/$name.cfg.log" 2>&1 || { cat "$TMP/$name.cfg.log"; fail "configuring the Fortran project ($name)"; }
    grep -q 'the Fortran module compiled from cairn.f90' "$TMP/$name.cfg.log" ||
      { cat "$TMP/$name.cfg.log"; fail "cairnConfig.cmake did not compile the module from cairn.f90 ($name)"; }
    cmake --build "$TMP/$name" >"$TMP/$name.build.log" 2>&1 ||
      { cat "$TMP/$name.build.log"; fail "building the Fortran project ($name)"; }
    readelf -d "$TMP/$name/user_f" | grep -q 'NEEDED.*libcairn_fortran' &&
      fail "the Fortran project ($name) links the installed libcairn_fortran"
    run user_f 2 "$TMP/$name/user_f"
  }
  from_source fortran_src -Dcairn_FORTRAN_FROM_SOURCE=ON
  sed -i 's/^set(cairn_Fortran_COMPILER_VERSION ".*")$/set(cairn_Fortran_COMPILER_VERSION "0.0.1")/' \
    "$LIBDIR/cmake/cairn/cairnConfig.cmake"
  grep -q '^set(cairn_Fortran_COMPILER_VERSION "0.0.1")$' "$LIBDIR/cmake/cairn/cairnConfig.cmake" ||
    fail "cairnConfig.cmake does not record the Fortran compiler's version"
  from_source fortran_other
else
  fail "the Fortran module was not installed (is gfortran installed? scripts/install_deps.sh)"
fi
note "PASS"
