#!/usr/bin/env bash
# Kill -9 at random moments: a writer commits revision after revision (puts
# that flush on their own, commits that flush, fsync and append the
# manifest) on 1, 2 or 4 ranks, and after a random delay one rank, rank 0 or
# every rank is killed. A quarter of the kills do not wait for the store to
# be open, so they also land in the open (which cuts torn tails).
# After each kill: reopening shows the last acknowledged revision (or the
# next, if its commit point was reached), every value of it verifies,
# `cairn verify` passes, and the next revision commits and reads back.
# Usage: crash_random_test.sh CRASH_LOOP_WRITER CAIRN_TOOL MPIEXEC [TRIALS [LONG_TRIALS]]
# TRIALS defaults to 54 (18 per rank count); CAIRN_LONG_TESTS=1 makes it
# LONG_TRIALS (default 1,002).
# CAIRN_TEST_POINTS="P1 P2 ...": first, for each point and rank count, the
# writer kills itself at crash point P (src/store/crash_point.h; rank 0)
# instead of being killed at a random moment, then the same checks (used
# with compaction's points by crash_compact_test). The writer's environment
# (CAIRN_TEST_KEEP, CAIRN_TEST_TABLES, CAIRN_TEST_SAME, CAIRN_TEST_BIG,
# CAIRN_MANIFEST_COMPACT_BYTES) is passed through.
set -u
writer=$1 tool=$2 mpiexec=$3
trials=${4:-54}
if [ -n "${CAIRN_LONG_TESTS:-}" ] && [ "${CAIRN_LONG_TESTS}" != 0 ]; then trials=${5:-1002}; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-crash-random-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
seed=${CAIRN_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
RANDOM=$seed
echo "seed $seed (set CAIRN_SEED to repeat)"
failures=0 killed_open=0 killed_loop=0 newer=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# After a kill: the reopened store is at the last acknowledged revision or
# the next, reads back, verifies, and commits the next one (check mode).
check_after_kill() {  # NP STORE WHAT [in-flight: 1 if the killed commit's record was durable]
  local before after
  before=$(tail -n 1 "$2.acked" 2>/dev/null || echo 0)
  if ! "$mpiexec" -n "$1" "$writer" "$2" check >"$tmp/check.out" 2>&1; then
    fail "$3: reopen/check"
    cat "$tmp/check.out"
    return
  fi
  after=$(tail -n 1 "$2.acked")
  [ "$after" -gt $((before + 1)) ] && newer=$((newer + 1))  # the in-flight commit had reached its commit point
  # (check acknowledged the reopened revision + 1: before + 2 if it was the in-flight one)
  if [ "${4:-0}" = 1 ] && [ "$after" != $((before + 2)) ]; then
    fail "$3: reopened at $((after - 1)), not at $((before + 1)), whose record was durable"
  fi
  if ! "$tool" verify "$2" >"$tmp/verify" 2>&1; then
    fail "$3: cairn verify"
    cat "$tmp/verify"
  fi
}

points=0
for point in ${CAIRN_TEST_POINTS:-}; do
  # Compaction follows the durable record of the commit that set it off:
  # the store must reopen at that revision.
  inflight=0
  case $point in compact_*) inflight=1 ;; esac
  for np in 1 2 4; do
    # A new store; the writer commits until it first reaches the point.
    store="$tmp/p$np-$point"
    points=$((points + 1))
    CAIRN_CRASH_POINT=$point CAIRN_CRASH_RANK=0 timeout -k 5 60 "$mpiexec" -n "$np" "$writer" "$store" loop \
        >"$tmp/loop.out" 2>&1
    rc=$?
    if [ $rc = 0 ] || [ $rc = 124 ]; then
      fail "point $point np=$np: the writer exited $rc (0: ended; 124: the point was never reached)"; cat "$tmp/loop.out"; continue
    fi
    if grep -qE '^rank [0-9]+: ' "$tmp/loop.out"; then fail "point $point np=$np: the writer failed"; cat "$tmp/loop.out"; fi
    [ -s "$store.acked" ] || { fail "point $point np=$np: killed before any commit"; continue; }
    check_after_kill "$np" "$store" "point $point (np=$np)" $inflight
  done
done
[ "$points" -gt 0 ] && echo "crash-point kills: $points; failures so far: $failures"

for ((t = 0; t < trials; t++)); do
  np=$((1 << (t % 3)))
  # A fresh store every 6 trials per rank count keeps the files small.
  store="$tmp/s$np-$((t / 18))"
  rm -f "$store".ready.* "$store".pid.*
  "$mpiexec" -n "$np" "$writer" "$store" loop >"$tmp/loop.out" 2>&1 &
  launcher=$!
  wait_ready=$((RANDOM % 4 != 0))
  # Wait for every rank's pid (written right after MPI_Init, before the
  # open) and, for most trials, for the store to be open on every rank.
  want=pid
  [ "$wait_ready" = 1 ] && want=ready
  for ((i = 0; i < 500; i++)); do
    n=$(ls "$store".$want.* 2>/dev/null | wc -l)
    [ "$n" -ge "$np" ] && break
    kill -0 $launcher 2>/dev/null || break
    sleep 0.02
  done
  # Then up to 0.6 s (several commits, at any point in them), or up to 0.1 s
  # when not waiting for the open (kills in open and the first commit).
  if [ "$wait_ready" = 1 ]; then sleep "0.$(printf '%03d' $((RANDOM % 600)))"; else sleep "0.$(printf '%03d' $((RANDOM % 100)))"; fi
  who=$((RANDOM % 3))  # 0: every rank, 1: one random rank, 2: rank 0
  pids=()
  for ((r = 0; r < np; r++)); do
    [ -f "$store.pid.$r" ] && pids+=("$(cat "$store.pid.$r")")
  done
  if [ ${#pids[@]} -lt "$np" ]; then
    fail "trial $t: the writer's ranks did not start"; cat "$tmp/loop.out"; kill -9 $launcher; wait; continue
  elif [ $who = 0 ]; then
    kill -9 "${pids[@]}" 2>/dev/null
  elif [ $who = 1 ]; then
    kill -9 "${pids[$((RANDOM % np))]}" 2>/dev/null
  else
    kill -9 "${pids[0]}" 2>/dev/null
  fi
  wait $launcher 2>/dev/null
  rc=$?
  if [ $rc = 0 ]; then fail "trial $t: the killed writer exited 0"; cat "$tmp/loop.out"; fi
  # The writer prints "rank N: ..." only when cairn itself failed before the kill.
  if grep -qE '^rank [0-9]+: ' "$tmp/loop.out"; then fail "trial $t: the writer failed before the kill"; cat "$tmp/loop.out"; fi
  # Wait until no rank of the killed run is left (mpiexec kills the others).
  for p in "${pids[@]}"; do
    for ((i = 0; i < 200; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$p" 2>/dev/null
  done
  if [ "$wait_ready" = 1 ]; then killed_loop=$((killed_loop + 1)); else killed_open=$((killed_open + 1)); fi
  check_after_kill "$np" "$store" "trial $t (np=$np, kill mode $who)"
done
echo "random-moment kills: $trials trials ($killed_loop while committing, $killed_open from the open on);" \
     "$newer found the in-flight revision committed; failures: $failures"
[ "$failures" -eq 0 ]
