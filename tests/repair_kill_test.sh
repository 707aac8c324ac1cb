#!/usr/bin/env bash
# `cairn repair` killed -9 at each of its steps (doc/interactions.md,
# `repair` x `kill`), on stores written at 1, 2 and 4 ranks with
# keep_revisions = 2 (3 for the middle damage). The crash points (src/store/crash_point.h), in order:
# half the copy of the original written, the copy not synced, half the new
# manifest written to its temporary file, not synced, synced (before the
# rename), renamed (before the directory fsync), done (not reported). The
# damage repaired, one kind per trial in turn:
#  - final: revision 3's record (the last) damaged: newest intact 2, repair
#    reserves 3, so the next commit is 4;
#  - middle: revision 3's record damaged between 2 and 4: newest 4, next 5
#    (keep 3, so the lost record expired nothing: with keep 2 it expired
#    revision 1, whose space 3 and 4 reused, and repair would keep 1 as a
#    doubtful pin that `cairn verify --all` finds damaged, as documented);
#  - torn: a commit of 3 killed half-way through its record: newest 2, the
#    torn bytes cut, next 3.
# After the kill: a read-only open in another process finds the newest
# intact revision, which reads back exactly; every MANIFEST.damaged-* copy
# left is the original manifest, whole; a second `cairn repair` succeeds;
# `cairn verify --all` passes; a writer commits the next revision, and
# `cairn verify --all` passes again.
# Usage: repair_kill_test.sh CRASH_WRITER CAIRN_TOOL MPIEXEC
set -u
writer=$1 tool=$2 mpiexec=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-repair-kill-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trials=0 failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$mpiexec" -n "$1" "$writer" "${@:2}" >"$tmp/out" 2>&1; }
flip() { printf '\x5a' | dd of="$1/MANIFEST" bs=1 seek="$2" conv=notrunc status=none; }
points=(repair_torn_backup repair_unsynced_backup repair_torn_tmp repair_unsynced_tmp repair_before_rename
        repair_after_rename repair_after_dir_sync)
kinds=(final middle torn)

# base NP KIND: the damaged store, built once per (ranks, kind) and copied
# for each trial; sets newest (intact) and next (the next commit's number).
base() {
  local np=$1 kind=$2 b="$tmp/base-$1-$2"
  case $kind in final) newest=2 next=4 ;; middle) newest=4 next=5 ;; torn) newest=2 next=3 ;; esac
  export CAIRN_TEST_KEEP=2
  [ "$kind" = middle ] && export CAIRN_TEST_KEEP=3
  [ -d "$b" ] && return 0
  run "$np" "$b" write 1 && run "$np" "$b" write 2 || return 1
  local s2 s3
  s2=$(stat -c %s "$b/MANIFEST")
  if [ "$kind" = torn ]; then
    if CAIRN_CRASH_POINT=torn_manifest CAIRN_CRASH_RANK=0 run "$np" "$b" write 3; then return 1; fi
    [ "$(stat -c %s "$b/MANIFEST")" -gt "$s2" ] || return 1
  else
    run "$np" "$b" write 3 || return 1
    s3=$(stat -c %s "$b/MANIFEST")
    [ "$kind" = middle ] && { run "$np" "$b" write 4 || return 1; }
    flip "$b" $(((s2 + s3) / 2))  # inside revision 3's record (no compaction at this size)
  fi
  cp "$b/MANIFEST" "$tmp/orig-$np-$kind"
}

for np in 1 2 4; do
  for i in "${!points[@]}"; do
    point=${points[$i]} kind=${kinds[$(((i + np) % 3))]}
    what="np=$np $kind $point"
    trials=$((trials + 1))
    base "$np" "$kind" || { fail "$what: setup"; cat "$tmp/out"; continue; }
    store="$tmp/s-$np-$i"
    cp -a "$tmp/base-$np-$kind" "$store"
    CAIRN_CRASH_POINT=$point "$tool" repair "$store" >"$tmp/repair" 2>&1
    rc=$?
    [ $rc -eq 137 ] || { fail "$what: repair was not killed at the crash point (exit $rc)"; cat "$tmp/repair"; }
    run "$np" "$store" check-ro $newest || { fail "$what: newest revision $newest after the killed repair"; cat "$tmp/out"; }
    for copy in "$store"/MANIFEST.damaged-*; do
      [ -e "$copy" ] || continue
      cmp -s "$copy" "$tmp/orig-$np-$kind" || fail "$what: $(basename "$copy") is not the original manifest, whole"
    done
    "$tool" repair "$store" >"$tmp/repair" 2>&1 || { fail "$what: the second repair failed"; cat "$tmp/repair"; continue; }
    "$tool" verify --all "$store" >"$tmp/verify" 2>&1 || { fail "$what: cairn verify --all after the second repair"; cat "$tmp/verify"; }
    CAIRN_TEST_PARENT=$newest run "$np" "$store" write $next ||
      { fail "$what: the next commit ($next) after the repairs"; cat "$tmp/out"; continue; }
    "$tool" verify --all "$store" >"$tmp/verify" 2>&1 || { fail "$what: cairn verify --all after commit $next"; cat "$tmp/verify"; }
    rm -rf "$store"
  done
done
echo "$trials trials, $failures failures"
[ "$failures" -eq 0 ]
