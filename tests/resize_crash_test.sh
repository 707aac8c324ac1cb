#!/usr/bin/env bash
# Kill -9 the first commit after a restart on another rank count (4 -> 3 at
# each of its steps, 2 -> 4 around the manifest record), on every rank: the
# revision written by the old rank count must stay intact (read back
# read-only with its namespaces, `cairn verify` passes), and the new rank
# count must then commit from it.
# Crash points: src/store/crash_point.h (as in crash_test.sh).
# Usage: resize_crash_test.sh RESIZE_WRITER CAIRN_TOOL MPIEXEC
set -u
writer=$1 tool=$2 mpiexec=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-resize-crash-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trials=0 failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$mpiexec" -n "$1" "$writer" "${@:2}" >"$tmp/out" 2>&1; }

for pair in "4 3:after_flush before_manifest torn_manifest after_manifest" "2 4:before_manifest torn_manifest"; do
  read -r old new <<<"${pair%%:*}"
  for point in ${pair#*:}; do
    store="$tmp/s-$old-$new-$point"
    trials=$((trials + 1))
    run "$old" "$store" write 1 || { fail "setup np=$old"; cat "$tmp/out"; continue; }
    if CAIRN_CRASH_POINT=$point run "$new" "$store" write 2; then
      fail "$old -> $new $point: the crashing run exited 0"
    fi
    # Committed only once the record is durable: after_manifest kept 2.
    if [ "$point" = after_manifest ]; then
      run 1 "$store" check 2 "$new" || { fail "$old -> $new $point: revision 2 not intact"; cat "$tmp/out"; continue; }
      next=3
    else
      run "$new" "$store" check 1 "$old" || { fail "$old -> $new $point: revision 1 not intact"; cat "$tmp/out"; continue; }
      next=2
    fi
    "$tool" verify --all "$store" >"$tmp/verify" 2>&1 || { fail "$old -> $new $point: cairn verify"; cat "$tmp/verify"; }
    # The restart, again: it checks every namespace of its base first.
    run "$new" "$store" write $next && run 1 "$store" check $next "$new" ||
      { fail "$old -> $new $point: commit after the crash"; cat "$tmp/out"; }
  done
done
echo "resize crash trials: $trials, failures: $failures"
[ "$failures" -eq 0 ]
