#!/usr/bin/env bash
# Pin against kill -9 (doc/interactions.md, `pin` x `kill`), on 1, 2 and 4
# ranks with keep_revisions = 2: a job pinning revision 1 is killed half-way
# through the pin's manifest record (crash point torn_manifest). The pin
# never returned, so it is absent: the store reopens at revision 2, intact,
# `cairn verify` passes, and revision 1 expires with the next commit like
# any unpinned revision. Pinned again (the torn bytes cut by the writable
# open), it survives three commits that expire everything else and reads
# back exactly; `cairn verify --all` passes.
# Usage: pin_kill_test.sh CRASH_WRITER CAIRN_TOOL MPIEXEC
set -u
writer=$1 tool=$2 mpiexec=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export CAIRN_TEST_KEEP=2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-pin-kill-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trials=0 failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$mpiexec" -n "$1" "$writer" "${@:2}" >"$tmp/out" 2>&1; }

for np in 1 2 4; do
  for repin in no yes; do
    store="$tmp/s-$np-$repin"
    trials=$((trials + 1))
    run "$np" "$store" write 1 && run "$np" "$store" write 2 || { fail "setup np=$np"; cat "$tmp/out"; continue; }
    size=$(stat -c %s "$store/MANIFEST")
    if CAIRN_CRASH_POINT=torn_manifest CAIRN_CRASH_RANK=0 run "$np" "$store" pin 1; then
      fail "np=$np: the killed pin exited 0"
    fi
    [ "$(stat -c %s "$store/MANIFEST")" -gt "$size" ] || fail "np=$np: the killed pin left no torn record (crash point missed)"
    "$tool" verify "$store" >"$tmp/verify" 2>&1 || { fail "np=$np: cairn verify after the killed pin"; cat "$tmp/verify"; }
    run "$np" "$store" check-old 1 || { fail "np=$np: revision 1 after the killed pin"; cat "$tmp/out"; }
    run "$np" "$store" check 2 || { fail "np=$np: revision 2 after the killed pin"; cat "$tmp/out"; continue; }
    if [ $repin = yes ]; then
      run "$np" "$store" pin 1 || { fail "np=$np: pin after the killed one"; cat "$tmp/out"; continue; }
      for rev in 3 4 5; do
        run "$np" "$store" write $rev || { fail "np=$np: write $rev"; cat "$tmp/out"; }
      done
      run "$np" "$store" check-old 1 || { fail "np=$np: pinned revision 1 after three commits"; cat "$tmp/out"; }
      run "$np" "$store" check 5 || { fail "np=$np: revision 5"; cat "$tmp/out"; }
      "$tool" verify --all "$store" >"$tmp/verify" 2>&1 || { fail "np=$np: cairn verify --all"; cat "$tmp/verify"; }
    else
      # The torn pin is no pin: revision 1 expires with the next commit.
      run "$np" "$store" write 3 || { fail "np=$np: write 3"; cat "$tmp/out"; }
      if run "$np" "$store" check-old 1; then fail "np=$np: revision 1 kept by a pin that never returned"; fi
      grep -q "revision 1" "$tmp/out" || { fail "np=$np: opening expired revision 1 does not name it"; cat "$tmp/out"; }
      run "$np" "$store" check 3 || { fail "np=$np: revision 3"; cat "$tmp/out"; }
    fi
  done
done
echo "$trials trials, $failures failures"
[ "$failures" -eq 0 ]
