#!/usr/bin/env bash
# kill -9 with a write stream OPEN across the killed commit (`stream` x
# `kill`; crash_test and async_test close their streams first). On 1, 2 and
# 4 ranks, synchronous and asynchronous (no staging) commits, one store per
# case: crash_writer stream-across R opens a stream of "st", writes and
# flushes part of it, commits R (asynchronous: more of the stream written
# and flushed while R is in flight), then finishes and closes the stream and
# commits R + 1. Every rank kills itself at a step of commit R (the stream
# open) or of commit R + 1 (the stream closed, its chunks flushed long
# before). After each kill the store must reopen at the last committed
# revision (or the one killed after its record), every value intact, and
# "st" exactly the stream committed last: never a prefix, never the one
# left open; the next kill continues the same store, and `cairn verify
# --all` passes after the last.
# Usage: stream_kill_test.sh CRASH_WRITER CAIRN_TOOL MPIEXEC
set -u
writer=$1 tool=$2 mpiexec=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export CAIRN_TEST_STREAM=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-stream-kill-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trials=0 failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$mpiexec" -n "$1" "$writer" "${@:2}" >"$tmp/out" 2>&1; }

for np in 1 2 4; do
  for mode in stream-across stream-across-async; do
    store="$tmp/s-$np-$mode"
    run "$np" "$store" write 1 || { fail "setup np=$np"; cat "$tmp/out"; continue; }
    cur=1 srev=1  # the store's newest revision, and the revision whose "st" it holds
    # Commit R (the stream open): its flushed chunks on disk, a torn
    # record, the record whole. Commit R + 1 (the stream closed): synced
    # without a record, the record whole.
    for case in first:after_flush first:torn_manifest first:after_manifest second:before_manifest second:after_manifest; do
      which=${case%:*} point=${case#*:}
      trials=$((trials + 1))
      what="np=$np $mode, kill at $point of the $which commit"
      r=$((cur + 1))
      if [ $which = first ]; then
        CAIRN_CRASH_POINT=$point run "$np" "$store" $mode $r
      else
        CAIRN_TEST_SECOND_CRASH_POINT=$point run "$np" "$store" $mode $r
      fi && { fail "$what: the crashing run exited 0"; cat "$tmp/out"; }
      # After its record a commit counts; the stream joins only R + 1.
      if [ $which = first ]; then
        [ $point = after_manifest ] && cur=$r
      else
        cur=$r
        [ $point = after_manifest ] && cur=$((r + 1)) srev=$((r + 1))
      fi
      if ! CAIRN_TEST_STREAM_REV=$srev run "$np" "$store" check $cur; then
        fail "$what: revision $cur (stream of $srev) not intact"; cat "$tmp/out"; continue 2
      fi
    done
    "$tool" verify --all "$store" >"$tmp/verify" 2>&1 || { fail "np=$np $mode: cairn verify --all"; cat "$tmp/verify"; }
    # Not killed: the stream open across R, committed with R + 1.
    trials=$((trials + 1))
    r=$((cur + 1))
    if run "$np" "$store" $mode $r && CAIRN_TEST_STREAM_REV=$((r + 1)) run "$np" "$store" check $((r + 1)); then :
    else fail "np=$np $mode: the stream open across $r, without a kill"; cat "$tmp/out"; fi
  done
done
echo "stream kill trials: $trials, failures: $failures"
[ "$failures" -eq 0 ]
