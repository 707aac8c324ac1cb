#!/usr/bin/env bash
# Read-only opens beside a writer killed -9 (doc/interactions.md, `ro` x
# `kill`), on 1, 2 and 4 writer ranks, two trials each: crash_loop_writer
# commits revision after revision while another process opens the store
# read-only over and over (crash_loop_writer STORE read); after a random
# delay every writer rank, one of them or rank 0 is killed, and the reader
# goes on opening the killed store for a while. Every read-only open, before
# and after the kill, must succeed at a revision between the last
# acknowledged before it and one past the last acknowledged after it, and
# read back every rank's values of that revision exactly (never a torn or
# mixed revision); then the writer's check (reopen, values, the next commit)
# and `cairn verify` pass.
# Usage: ro_kill_test.sh CRASH_LOOP_WRITER CAIRN_TOOL MPIEXEC
set -u
writer=$1 tool=$2 mpiexec=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-ro-kill-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
seed=${CAIRN_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
RANDOM=$seed
echo "seed $seed (set CAIRN_SEED to repeat)"
failures=0 trials=0 reads_after_kill=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for np in 1 2 4; do
  for t in 0 1; do
    trials=$((trials + 1))
    store="$tmp/s$np-$t"
    "$mpiexec" -n "$np" "$writer" "$store" loop >"$tmp/loop.out" 2>&1 &
    launcher=$!
    for ((i = 0; i < 500; i++)); do
      n=$(ls "$store".ready.* 2>/dev/null | wc -l)
      [ "$n" -ge "$np" ] && [ -s "$store.acked" ] && break
      kill -0 $launcher 2>/dev/null || break
      sleep 0.02
    done
    "$mpiexec" -n 1 "$writer" "$store" read >"$tmp/read.out" 2>&1 &
    reader=$!
    sleep "0.$(printf '%03d' $((200 + RANDOM % 600)))"
    pids=()
    for ((r = 0; r < np; r++)); do [ -f "$store.pid.$r" ] && pids+=("$(cat "$store.pid.$r")"); done
    if [ ${#pids[@]} -lt "$np" ]; then
      fail "np=$np trial $t: the writer's ranks did not start"; cat "$tmp/loop.out"
      kill -9 $launcher; touch "$store.stop"; wait; continue
    fi
    case $((RANDOM % 3)) in
      0) kill -9 "${pids[@]}" 2>/dev/null ;;
      1) kill -9 "${pids[$((RANDOM % np))]}" 2>/dev/null ;;
      2) kill -9 "${pids[0]}" 2>/dev/null ;;
    esac
    wait $launcher 2>/dev/null
    for p in "${pids[@]}"; do
      for ((i = 0; i < 200; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
      kill -9 "$p" 2>/dev/null
    done
    touch "$store.killed"
    sleep 0.3  # the reader opens the killed store meanwhile
    touch "$store.stop"
    if ! wait $reader; then fail "np=$np trial $t: the read-only opener"; cat "$tmp/read.out"; fi
    grep -q "read-only opens" "$tmp/read.out" || { fail "np=$np trial $t: the reader printed no count"; cat "$tmp/read.out"; }
    k=$(sed -n 's/.*(\([0-9]*\) after the kill).*/\1/p' "$tmp/read.out")
    [ "${k:-0}" -gt 0 ] && reads_after_kill=$((reads_after_kill + 1))
    grep -E '^rank [0-9]+: ' "$tmp/loop.out" && fail "np=$np trial $t: the writer failed before the kill"
    "$mpiexec" -n "$np" "$writer" "$store" check >"$tmp/check.out" 2>&1 ||
      { fail "np=$np trial $t: reopen/check after the kill"; cat "$tmp/check.out"; continue; }
    "$tool" verify "$store" >"$tmp/verify" 2>&1 || { fail "np=$np trial $t: cairn verify"; cat "$tmp/verify"; }
    cat "$tmp/read.out"
  done
done
echo "$trials trials, $reads_after_kill with read-only opens of the killed store; failures: $failures"
[ "$reads_after_kill" -gt 0 ] || fail "no read-only open came after a kill"
[ "$failures" -eq 0 ]
