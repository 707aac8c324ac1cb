#!/usr/bin/env bash
# The scale run (issue 11, goal 6; doc/scale.md). Not part of ctest or CI:
# it starts up to 64 ranks (oversubscribed) and takes tens of minutes on a
# small machine.
#
#   1. The collective test binaries under mpiexec -n TESTS_NP (default 64),
#      one at a time, and query_ranks_test (its writer needs 4 ranks;
#      QueryAll of that revision on TESTS_NP and on 17 ranks).
#   2. bench/scale/scale_bench at each rank count of RANKS (default
#      "8 16 32 64"): COMMITS commits (default 50) of KIB KiB per rank
#      (default 1024) with keep_revisions = 2, then a restart (read-only open
#      and a read of everything); its counters and memory per rank count.
#      With LUSTRE=1 (the default) each rank count runs a second time with
#      the layout cairn picks on Lustre (CAIRN_FS_MAGIC=0BD00BD0: one data
#      file per node, one node here).
#   3. With STRACE=1, the file-system calls per checkpoint counted from
#      outside by strace -f: a run of 2*COMMITS commits minus one of COMMITS,
#      divided by COMMITS (start-up, creation and the restart cancel out).
#
# Every mpiexec with more than 8 ranks runs under nice -n 19, one at a time.
# Writes OUT/summary.md (and each run's raw output beside it).
#
# usage: scripts/scale_run.sh [BUILD_DIR] [OUT_DIR]
#   env: TESTS_NP=64 RANKS="8 16 32 64" COMMITS=50 KIB=1024 STRACE=0 LUSTRE=1
#        SKIP_TESTS=1 (bench only) SKIP_BENCH=1 (tests only)
#        TEST_TIMEOUT=3600 (seconds per test binary)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-$here/../bench/results/scale-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
source "$here/mpi_env.sh"
TESTS_NP=${TESTS_NP:-64}
RANKS=${RANKS:-"8 16 32 64"}
COMMITS=${COMMITS:-50}
KIB=${KIB:-1024}
STRACE=${STRACE:-0}
LUSTRE=${LUSTRE:-1}
TEST_TIMEOUT=${TEST_TIMEOUT:-3600}
work=$(mktemp -d "${TMPDIR:-/tmp}/cairn_scale.XXXXXX")
trap 'rm -rf "$work"' EXIT

run_np() {  # run_np NP cmd...: nice -n 19 above 8 ranks
  local np=$1; shift
  if [ "$np" -gt 8 ]; then nice -n 19 mpiexec -n "$np" "$@"; else mpiexec -n "$np" "$@"; fi
}

summary=$out/summary.md
{
  echo "# Scale run $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "host: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; load at start: $(uptime | sed 's/.*load average: //')"
  echo
} > "$summary"

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  tests="mpi_store_test mpi_array_test mpi_retention_test stream_commit_test async_commit_test
         table_reuse_test stream_test writer_lock_test history_test capi_test"
  {
    echo "## Collective tests at $TESTS_NP ranks"
    echo
    echo "| test | result | seconds | gtest summary |"
    echo "|---|---|---|---|"
  } >> "$summary"
  for t in $tests; do
    bin=$build/tests/$t
    if [ ! -x "$bin" ]; then echo "| $t | not built | | |" >> "$summary"; continue; fi
    log=$out/test-$t-np$TESTS_NP.log
    start=$(date +%s.%N)
    (cd "$work" && run_np "$TESTS_NP" timeout "$TEST_TIMEOUT" "$bin") > "$log" 2>&1
    rc=$?
    secs=$(awk "BEGIN{printf \"%.0f\", $(date +%s.%N) - $start}")
    line=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^\[  (PASSED|FAILED)  \]' | sort | uniq -c | tr '\n' ';' | sed 's/  */ /g')
    res=PASS; [ $rc -ne 0 ] && res="FAIL (rc $rc)"
    echo "| $t | $res | $secs | $line |" >> "$summary"
    echo "$t: $res in ${secs}s"
  done
  bin=$build/tests/query_ranks_test
  if [ -x "$bin" ]; then
    log=$out/test-query_ranks_test-np$TESTS_NP.log
    start=$(date +%s.%N)
    { run_np 4 "$bin" write "$work/q" && run_np "$TESTS_NP" "$bin" check "$work/q" &&
      run_np 17 "$bin" check "$work/q"; } > "$log" 2>&1
    rc=$?
    secs=$(awk "BEGIN{printf \"%.0f\", $(date +%s.%N) - $start}")
    res=PASS; [ $rc -ne 0 ] && res="FAIL (rc $rc)"
    echo "| query_ranks_test (a 4-rank revision, QueryAll on $TESTS_NP and 17 ranks) | $res | $secs | |" >> "$summary"
    echo "query_ranks_test: $res in ${secs}s"
    rm -rf "$work/q"
  fi
  echo >> "$summary"
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  bench=$build/bench/scale/scale_bench
  if [ ! -x "$bench" ]; then
    echo "scale_bench not built: cmake --build $build --target scale_bench" >&2
    exit 1
  fi
  for np in $RANKS; do
    echo "scale_bench at $np ranks"
    run_np "$np" "$bench" "$work" "$COMMITS" "$KIB" > "$out/bench-np$np.txt" 2> "$out/bench-np$np.err" ||
      { echo "scale_bench failed at $np ranks (see $out/bench-np$np.err)"; exit 1; }
    if [ "$LUSTRE" = 1 ]; then  # the layout cairn picks on Lustre: one data file per node
      CAIRN_FS_MAGIC=0BD00BD0 run_np "$np" "$bench" "$work" "$COMMITS" "$KIB" > "$out/bench-lustre-np$np.txt" \
        2> "$out/bench-lustre-np$np.err" || { echo "scale_bench (Lustre layout) failed at $np ranks"; exit 1; }
    fi
    if [ "$STRACE" = 1 ]; then
      calls=open,openat,creat,mkdir,mkdirat,stat,lstat,fstat,newfstatat,statx,rename,renameat,renameat2,unlink,unlinkat,fsync,fdatasync,ftruncate,pwrite64,pwritev,write,pread64,preadv,read
      for c in "$COMMITS" $((2 * COMMITS)); do
        strace -f -qq -c -e trace=$calls -o "$out/strace-np$np-c$c.txt" \
          nice -n 19 mpiexec -n "$np" "$bench" "$work" "$c" "$KIB" > /dev/null 2>&1 ||
          { echo "strace run failed at $np ranks"; exit 1; }
      done
    fi
  done
  python3 "$here/scale_summary.py" "$out" "$COMMITS" $RANKS >> "$summary"
fi
echo "summary: $summary"
cat "$summary"
