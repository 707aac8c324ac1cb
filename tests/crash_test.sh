#!/usr/bin/env bash
# Kill -9 a commit at each of its steps, on 1, 2 and 4 ranks, on one rank or
# all, then check that reopening finds the last committed revision intact
# (every value verifies, `cairn verify` passes) and that the store accepts
# the next revision.
# Usage: crash_test.sh CRASH_WRITER CAIRN_TOOL MPIEXEC
set -u
writer=$1 tool=$2 mpiexec=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-crash-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trials=0 failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$mpiexec" -n "$1" "$writer" "${@:2}" >"$tmp/out" 2>&1; }

for np in 1 2 4; do
  # Revisions 1 and 2, written by two jobs once per rank count; each trial
  # crashes a copy of that store (the same files: what a fresh setup
  # writes, since the values depend only on rank and revision).
  base="$tmp/base-$np"
  run "$np" "$base" write 1 && run "$np" "$base" write 2 || { fail "setup np=$np"; cat "$tmp/out"; continue; }
  for point in before_flush after_flush before_manifest torn_manifest after_manifest; do
    for who in all last; do
      # At 1 rank the last rank is rank 0, every rank: the "all" trial again
      # (the same CAIRN_CRASH_RANK test in src/store/crash_point.cc).
      [ "$np" = 1 ] && [ "$who" = last ] && continue
      crash_rank=""
      [ "$who" = last ] && crash_rank=$((np - 1))
      # Only rank 0 writes the manifest: a one-rank crash there needs rank 0.
      case $point in torn_manifest|after_manifest|before_manifest) [ "$who" = last ] && crash_rank=0 ;; esac
      store="$tmp/s-$np-$point-$who"
      trials=$((trials + 1))
      cp -a "$base" "$store" || { fail "copying the setup np=$np"; continue; }
      if CAIRN_CRASH_POINT=$point CAIRN_CRASH_RANK=$crash_rank run "$np" "$store" write 3; then
        fail "np=$np $point ($who): the crashing run exited 0"
      fi
      # Committed only once the record is durable: after_manifest kept rev 3.
      want=2
      [ "$point" = after_manifest ] && want=3
      run "$np" "$store" check $want || { fail "np=$np $point ($who): revision $want not intact"; cat "$tmp/out"; continue; }
      "$tool" verify "$store" >"$tmp/verify" 2>&1 || { fail "np=$np $point ($who): cairn verify"; cat "$tmp/verify"; }
      run "$np" "$store" write $((want + 1)) && run "$np" "$store" check $((want + 1)) ||
        { fail "np=$np $point ($who): next revision after the crash"; cat "$tmp/out"; }
    done
  done
done
echo "crash trials: $trials, failures: $failures"
echo "$((trials - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
