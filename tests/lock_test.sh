#!/usr/bin/env bash
# The writer lock between processes (issue 10, items 2 and 3), at 1, 2 and
# 4 ranks. While lock_holder has a store open for writing: a second job's
# open fails on every rank, naming the holder's host and pid; `cairn pin`,
# `drop`, `unpin` and `repair` refuse and write nothing; the read-only `cairn ls` and
# `verify` work. After the holder commits and ends, the tool works. A holder
# killed with -9 does not block the restart.
# Usage: lock_test.sh LOCK_HOLDER CRASH_WRITER CAIRN_TOOL MPIEXEC
set -u
holder=$1 writer=$2 tool=$3 mpiexec=$4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-lock-XXXXXX")
hjob=
cleanup() { [ -n "$hjob" ] && kill "$hjob" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
failures=0 checks=0
check() { checks=$((checks + 1)); if ! eval "$2"; then echo "FAIL: $1"; failures=$((failures + 1)); fi; }
# Waits (up to 30 s) for the holder to say it holds the store.
wait_held() { for _ in $(seq 300); do [ -f "$1.held" ] && return 0; sleep 0.1; done; echo "FAIL: holder never held $1"; return 1; }
revs() { "$tool" ls "$1" --json | python3 -c "import json,sys; print(' '.join('%d%s' % (r['revision'], '*' if r['pinned'] else '') for r in json.load(sys.stdin)))"; }
host=$(hostname)

for n in 1 2 4; do
  s="$tmp/s$n"
  "$mpiexec" -n $n "$writer" "$s" write 1 >/dev/null 2>&1 || { echo "FAIL: np$n setup"; failures=$((failures + 1)); continue; }

  # A holder that ends normally, committing revision 2.
  "$mpiexec" -n $n "$holder" "$s" 60 >"$tmp/h$n" 2>&1 &
  hjob=$!
  wait_held "$s" || { failures=$((failures + 1)); continue; }
  hpid=$(cut -d' ' -f1 "$s.held")
  "$mpiexec" -n $n "$writer" "$s" write 2 >"$tmp/w$n" 2>&1; rc=$?
  check "np$n: a second job's open fails" '[ $rc -ne 0 ]'
  check "np$n: on every rank, naming the holder's host and pid" \
    '[ "$(grep -c "^rank [0-9]*: open: IOError: store $s is open for writing by host $host, pid $hpid, " "$tmp/w$n")" -eq $n ] || { cat "$tmp/w$n"; false; }'
  check "np$n: read-only ls and verify work meanwhile" '"$tool" ls "$s" >/dev/null && "$tool" verify "$s" >/dev/null'
  "$tool" pin "$s" 1 >"$tmp/p$n" 2>&1; rc=$?
  check "np$n: pin is refused, naming the holder" \
    '{ [ $rc -ne 0 ] && grep -q "store $s is open for writing by host $host, pid $hpid, " "$tmp/p$n"; } || { cat "$tmp/p$n"; false; }'
  check "np$n: drop and unpin are refused" '! "$tool" drop "$s" 1 2>/dev/null && ! "$tool" unpin "$s" 1 2>/dev/null'
  "$tool" repair "$s" >"$tmp/r$n" 2>&1; rc=$?
  check "np$n: repair is refused, naming the holder, and copies nothing" \
    '{ [ $rc -ne 0 ] && grep -q "open for writing by host $host, pid $hpid, " "$tmp/r$n" && ! ls "$s"/MANIFEST.* >/dev/null 2>&1; } || { cat "$tmp/r$n"; false; }'
  touch "$s.release"
  wait $hjob; rc=$?
  hjob=
  check "np$n: the holder commits revision 2 and ends" '[ $rc -eq 0 ] && grep -q "committed rev 2" "$tmp/h$n"'
  check "np$n: nothing was pinned or dropped meanwhile" '[ "$(revs "$s")" = "1 2" ]'
  check "np$n: after the job ends the tool works" '"$tool" pin "$s" 1 >/dev/null && [ "$(revs "$s")" = "1* 2" ]'
  rm -f "$s.held" "$s.release"

  # A holder killed with -9 (every rank): the kernel drops its lock.
  "$mpiexec" -n $n "$holder" "$s" 60 >/dev/null 2>&1 &
  hjob=$!
  wait_held "$s" || { failures=$((failures + 1)); continue; }
  kill -9 $(cat "$s.held")
  wait $hjob 2>/dev/null
  hjob=
  rm -f "$s.held"
  check "np$n: a restart after kill -9 of the holder commits" \
    '"$mpiexec" -n $n "$writer" "$s" write 3 >/dev/null 2>&1 && "$mpiexec" -n $n "$writer" "$s" check 3 >/dev/null 2>&1'
  check "np$n: the pin made by the tool is still there" '[ "$(revs "$s")" = "1* 2 3" ] && "$tool" verify "$s" >/dev/null'
  check "np$n: and the tool works after it" '"$tool" unpin "$s" 1 >/dev/null && [ "$(revs "$s")" = "1 2 3" ]'
done

# Compaction beside the lock (`compact` x `lock`): a holder (keep 1, a
# compaction every few commits) commits revision after revision, the
# manifest renamed under it again and again. Meanwhile a second job's
# writable open fails on every rank naming the holder, each time; `cairn ls`
# (a read-only open of the manifest) works every time; LOCK still names
# the holder; `cairn pin` is refused. Then a holder killed -9 inside a
# compaction (before and after its rename): the next holder takes the
# lock, opens at the last revision reported (or the next, whose record
# preceded the compaction) and reads it back, LOCK names it, a second job is
# refused naming it, and it compacts the manifest over the left temporary
# file; `cairn verify --all` passes at the end.
newest() { "$tool" ls "$1" --json | python3 -c "import json,sys; print(max(r['revision'] for r in json.load(sys.stdin)))"; }
for n in 1 2 4; do
  s="$tmp/c$n"
  rm -f "$s.held" "$s.release"
  CAIRN_MANIFEST_COMPACT_BYTES=512 "$mpiexec" -n $n "$holder" "$s" 60 compact >"$tmp/ch$n" 2>&1 &
  hjob=$!
  wait_held "$s" || { failures=$((failures + 1)); continue; }
  hpid=$(cut -d' ' -f1 "$s.held")
  # Inode and change time: a compaction's new MANIFEST may get the inode
  # number an earlier one freed (ext4 reuses them; after an even number of
  # compactions the inode alone matched, once in CI), never the same ctime.
  ino0=$(stat -c '%i %z' "$s/MANIFEST")
  for attempt in 1 2; do
    "$mpiexec" -n $n "$writer" "$s" write 2 >"$tmp/cw$n" 2>&1; rc=$?
    check "np$n: a second job's open beside compactions fails on every rank naming the holder (attempt $attempt)" \
      '[ $rc -ne 0 ] && [ "$(grep -c "^rank [0-9]*: open: IOError: store $s is open for writing by host $host, pid $hpid, " "$tmp/cw$n")" -eq $n ] || { cat "$tmp/cw$n"; false; }'
    lsok=0
    for i in $(seq 10); do "$tool" ls "$s" >/dev/null 2>"$tmp/cls$n" && lsok=$((lsok + 1)); done
    check "np$n: cairn ls works beside compactions (attempt $attempt)" '[ $lsok -eq 10 ] || { cat "$tmp/cls$n"; false; }'
  done
  check "np$n: LOCK names the holder after compactions" 'grep -qx "pid $hpid" "$s/LOCK" || { cat "$s/LOCK"; false; }'
  "$tool" pin "$s" 1 >"$tmp/cp$n" 2>&1; rc=$?
  check "np$n: pin is refused beside compactions, naming the holder" \
    '{ [ $rc -ne 0 ] && grep -q "open for writing by host $host, pid $hpid, " "$tmp/cp$n"; } || { cat "$tmp/cp$n"; false; }'
  check "np$n: MANIFEST was renamed meanwhile" '[ "$(stat -c '"'"'%i %z'"'"' "$s/MANIFEST")" != "$ino0" ] || { cat "$tmp/ch$n"; false; }'
  touch "$s.release"
  wait $hjob; rc=$?
  hjob=
  check "np$n: the compacting holder ends well" '[ $rc -eq 0 ] && grep -q "compactions" "$tmp/ch$n" || { cat "$tmp/ch$n"; false; }'
  last=$(grep "^committed rev" "$tmp/ch$n" | tail -n 1 | cut -d' ' -f3)
  check "np$n: the store is at its last revision" '[ "$(newest "$s")" = "$last" ]'
  for point in compact_before_rename compact_after_rename; do
    rm -f "$s.held" "$s.release"
    CAIRN_CRASH_POINT=$point CAIRN_CRASH_RANK=0 CAIRN_MANIFEST_COMPACT_BYTES=512 \
      timeout -k 5 60 "$mpiexec" -n $n "$holder" "$s" 60 compact >"$tmp/ck$n" 2>&1; rc=$?
    check "np$n: the holder was killed at $point" '[ $rc -ne 0 ] && [ $rc -ne 124 ] || { cat "$tmp/ck$n"; false; }'
    last=$(tail -n 1 "$s.acked" | cut -d' ' -f3)
    CAIRN_MANIFEST_COMPACT_BYTES=512 "$mpiexec" -n $n "$holder" "$s" 60 compact >"$tmp/ch$n" 2>&1 &
    hjob=$!
    wait_held "$s" || { failures=$((failures + 1)); continue 2; }
    hpid=$(cut -d' ' -f1 "$s.held")
    opened=$(grep "^opened at rev" "$tmp/ch$n" | cut -d' ' -f4)
    check "np$n $point: the next holder opened at the last reported revision $last or the next ($opened)" \
      '[ "$opened" = "$last" ] || [ "$opened" = "$((last + 1))" ]'
    check "np$n $point: LOCK names the next holder" 'grep -qx "pid $hpid" "$s/LOCK" || { cat "$s/LOCK"; false; }'
    "$mpiexec" -n $n "$writer" "$s" write 2 >"$tmp/cw$n" 2>&1; rc=$?
    check "np$n $point: a second job is refused naming the next holder" \
      '[ $rc -ne 0 ] && [ "$(grep -c "^rank [0-9]*: open: IOError: store $s is open for writing by host $host, pid $hpid, " "$tmp/cw$n")" -eq $n ] || { cat "$tmp/cw$n"; false; }'
    touch "$s.release"
    wait $hjob; rc=$?
    hjob=
    check "np$n $point: the next holder read its revision back, compacted and ended" '[ $rc -eq 0 ] || { cat "$tmp/ch$n"; false; }'
    check "np$n $point: verify --all" '"$tool" verify --all "$s" >"$tmp/cv$n" 2>&1 || { cat "$tmp/cv$n"; false; }'
  done
done
echo "lock checks: $checks, failures: $failures"
[ "$failures" -eq 0 ]
