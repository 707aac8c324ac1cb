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
echo "lock checks: $checks, failures: $failures"
[ "$failures" -eq 0 ]
