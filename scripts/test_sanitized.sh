#!/usr/bin/env bash
# The whole test suite built with AddressSanitizer and UBSan
# (-DCAIRN_SANITIZE=ON) in build-sanitize/, run with ctest. Any report of
# either sanitizer fails the test that made it. Leaks are checked, except
# those allocated inside OpenMPI and its libraries (tests/sanitizer/lsan.supp).
# The fuzz targets are left out here (CAIRN_FUZZ=OFF): they are built with
# both sanitizers already, by the ordinary build.
# Usage: scripts/test_sanitized.sh [ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test_mpi_env.sh
scripts/install_deps.sh
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAIRN_BUILD_BENCH=OFF \
      -DCAIRN_SANITIZE=ON -DCAIRN_FUZZ=OFF >/dev/null
cmake --build build-sanitize -j "$(nproc)"
# abort_on_error: a report ends the process with a signal, which ctest and
# the shell tests count as a failure (exit codes alone could be masked).
# fast_unwind_on_malloc=0: OpenMPI has no frame pointers, so only exact
# unwinding shows the OpenMPI frames that the suppressions match.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0:detect_stack_use_after_return=1:check_initialization_order=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizer/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
cd build-sanitize
ctest --output-on-failure --timeout 1800 -E '^fuzz_test$' "$@"
