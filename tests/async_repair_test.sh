#!/usr/bin/env bash
# Asynchronous commits against `cairn repair` (doc/interactions.md, `async`
# x `repair`), on 1, 2 and 4 ranks with keep_revisions = 2 (so revision 3
# reuses the space revision 1 leaves):
#  - kill -9 of an asynchronous commit of revision 3 (staged puts, a
#    stream) half-way through its manifest record, and just after it, then
#    `cairn repair`: it must succeed (a torn append is
#    cut, nothing else is touched), revision 2 must read back exactly as
#    committed (or revision 3, whole, when the kill came after its record),
#    `cairn verify` must pass, and the next asynchronous commit must work;
#  - the asynchronous commit's record (revision 3) made durable, then
#    damaged (one byte flipped in it): a writer refuses the store, `cairn
#    repair` drops the record and reserves number 3, revision 2 reads back
#    exactly, `cairn verify --all` passes, and the next asynchronous commit
#    is numbered 4, reads back, and leaves revision 2 intact.
# Usage: async_repair_test.sh CRASH_WRITER CAIRN_TOOL MPIEXEC
set -u
writer=$1 tool=$2 mpiexec=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export CAIRN_TEST_KEEP=2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-async-repair-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trials=0 failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$mpiexec" -n "$1" "$writer" "${@:2}" >"$tmp/out" 2>&1; }

for np in 1 2 4; do
  # The two kills that leave something in the manifest (half a record, a
  # whole one); async_test covers the earlier points without repair.
  for point in torn_manifest after_manifest; do
    store="$tmp/c-$np-$point"
    trials=$((trials + 1))
    run "$np" "$store" write 1 && run "$np" "$store" write 2 || { fail "setup np=$np"; cat "$tmp/out"; continue; }
    if CAIRN_CRASH_POINT=$point CAIRN_CRASH_RANK=0 run "$np" "$store" write-async 3; then
      fail "np=$np $point: the crashing run exited 0"
    fi
    "$tool" repair "$store" >"$tmp/repair" 2>&1 || { fail "np=$np $point: cairn repair failed"; cat "$tmp/repair"; continue; }
    if [ "$point" = torn_manifest ] && ! grep -q "unfinished (torn)" "$tmp/repair"; then
      fail "np=$np $point: repair did not report the torn record"; cat "$tmp/repair"
    fi
    want=2
    [ "$point" = after_manifest ] && want=3
    run "$np" "$store" check $want || { fail "np=$np $point: revision $want not intact after repair"; cat "$tmp/out"; continue; }
    "$tool" verify "$store" >"$tmp/verify" 2>&1 || { fail "np=$np $point: cairn verify after repair"; cat "$tmp/verify"; }
    run "$np" "$store" write-async $((want + 1)) && run "$np" "$store" check $((want + 1)) ||
      { fail "np=$np $point: next revision after the crash and repair"; cat "$tmp/out"; }
  done

  # Revision 3, committed asynchronously, then its record damaged.
  store="$tmp/d-$np"
  trials=$((trials + 1))
  run "$np" "$store" write 1 && run "$np" "$store" write 2 && run "$np" "$store" write-async 3 || { fail "setup np=$np (damage)"; cat "$tmp/out"; continue; }
  size=$(stat -c %s "$store/MANIFEST")
  # A byte inside the final record (revision 3's: no compaction at this size).
  printf '\x5a' | dd of="$store/MANIFEST" bs=1 seek=$((size - 20)) conv=notrunc status=none
  if run "$np" "$store" write-async 4; then fail "np=$np: a writer appended after a damaged final record"; fi
  grep -q "cairn repair" "$tmp/out" || { fail "np=$np: the refusal does not name cairn repair"; cat "$tmp/out"; }
  "$tool" repair "$store" >"$tmp/repair" 2>&1 || { fail "np=$np: repair of the damaged record"; cat "$tmp/repair"; continue; }
  grep -q "final damaged record" "$tmp/repair" && grep -q "recorded revision 3 as dropped" "$tmp/repair" ||
    { fail "np=$np: repair did not drop the damaged record and reserve 3"; cat "$tmp/repair"; }
  run "$np" "$store" check 2 || { fail "np=$np: revision 2 not intact after repairing 3's record"; cat "$tmp/out"; }
  "$tool" verify --all "$store" >"$tmp/verify" 2>&1 || { fail "np=$np: cairn verify --all after repair"; cat "$tmp/verify"; }
  CAIRN_TEST_PARENT=2 run "$np" "$store" write-async 4 && run "$np" "$store" check 4 ||
    { fail "np=$np: the next asynchronous commit after repair is not revision 4, whole"; cat "$tmp/out"; }
  # Revision 2 (retained: keep 2) must not have been written over by 4.
  "$tool" verify --all "$store" >"$tmp/verify" 2>&1 || { fail "np=$np: cairn verify --all after revision 4"; cat "$tmp/verify"; }
done

echo "$trials trials, $failures failures"
[ "$failures" -eq 0 ]
