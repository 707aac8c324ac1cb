#!/usr/bin/env bash
# The writer lock against asynchronous commits, staging and restarts on
# another rank count (doc/interactions.md: async x lock, staging x lock,
# resize x lock), between processes.
#
# async, staged (1, 2 and 4 ranks): lock_holder puts 8 MiB, starts an
# asynchronous commit (without staging, and with staged puts) and puts
# more while it is in flight. Meanwhile the manifest has no record of it,
# a second job's writable open fails on every rank naming the holder, and
# LOCK names it. A third job opens over and over (lock_holder await); the
# holder then calls Close with the commit still in flight. The waiting job
# must get the store only once the commit is durable: it opens at that
# revision, every namespace whole, without the puts made while in flight.
#
# resize (2 -> 4, 4 -> 1, 1 -> 2 ranks): a job of N ranks holds the store
# and commits; then a job of M ranks holds it with a commit in flight: LOCK
# names the M-rank job (not the N-rank one), a second job of N ranks is
# refused naming it, a waiting job of N ranks opens once it closed, at its
# revision with M namespaces, and commits; the tool then takes the lock.
# Usage: lock_interactions_test.sh LOCK_HOLDER CRASH_WRITER CAIRN_TOOL MPIEXEC
set -u
holder=$1 writer=$2 tool=$3 mpiexec=$4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-lockx-XXXXXX")
hjob= ajob=
cleanup() {
  [ -n "$hjob" ] && kill "$hjob" 2>/dev/null
  [ -n "$ajob" ] && kill "$ajob" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0 checks=0
check() { checks=$((checks + 1)); if ! eval "$2"; then echo "FAIL: $1"; failures=$((failures + 1)); fi; }
# Waits (up to 30 s) for a file a job creates.
wait_file() { for _ in $(seq 300); do [ -f "$1" ] && return 0; sleep 0.1; done; echo "FAIL: no $1"; failures=$((failures + 1)); return 1; }
revs() { "$tool" ls "$1" --json | python3 -c "import json,sys; print(' '.join('%d%s' % (r['revision'], '*' if r['pinned'] else '') for r in json.load(sys.stdin)))"; }
host=$(hostname)

# refused N STORE PID LABEL: a job of N ranks cannot open STORE for
# writing; every rank's error names the holder's host and rank 0's pid.
refused() {
  local n=$1 s=$2 pid=$3 label=$4 out
  out="$tmp/refused.$checks"
  "$mpiexec" -n "$n" "$writer" "$s" write 9 >"$out" 2>&1
  local rc=$?
  check "$label: a second job of $n ranks is refused on every rank, naming host $host, pid $pid" \
    '{ [ $rc -ne 0 ] && [ "$(grep -c "^rank [0-9]*: open: IOError: store $s is open for writing by host $host, pid $pid, " "$out")" -eq "$n" ]; } || { cat "$out"; false; }'
}

# Starts lock_holder with a commit of revision REV in flight (MODE async or
# staged, on N ranks), checks the refusals, then a waiting job of W ranks
# that must open at REV once the holder's Close has made it durable.
# in_flight N W MODE STORE REV LABEL [OLD_PID]
in_flight() {
  local n=$1 w=$2 mode=$3 s=$4 rev=$5 label=$6 old=${7:-}
  rm -f "$s.held" "$s.release" "$s.polling"
  "$mpiexec" -n "$n" "$holder" "$s" 60 "$mode" >"$tmp/h.$label" 2>&1 &
  hjob=$!
  wait_file "$s.held" || return
  local hpid
  hpid=$(cut -d' ' -f1 "$s.held")
  local before
  before=$(seq -s' ' 1 $((rev - 1)))
  check "$label: revision $rev is in flight (no record yet: revisions '$before')" '[ "$(revs "$s")" = "$before" ]'
  check "$label: LOCK names the holder (pid $hpid)" 'grep -qx "pid $hpid" "$s/LOCK" || { cat "$s/LOCK"; false; }'
  [ -n "$old" ] && check "$label: LOCK no longer names the job before it (pid $old)" '! grep -qx "pid $old" "$s/LOCK"'
  refused "$w" "$s" "$hpid" "$label"
  "$mpiexec" -n "$w" "$holder" "$s" 60 await "$rev" >"$tmp/a.$label" 2>&1 &
  ajob=$!
  wait_file "$s.polling" || return
  touch "$s.release"
  wait $hjob
  local rc=$?
  hjob=
  check "$label: the holder's Close commits revision $rev, in flight until then" \
    '{ [ $rc -eq 0 ] && grep -q "^closed with rev $rev in flight" "$tmp/h.$label"; } || { cat "$tmp/h.$label"; false; }'
  wait $ajob
  rc=$?
  ajob=
  check "$label: the waiting job of $w ranks opens at revision $rev ($n namespaces, whole, no puts made in flight) and commits $((rev + 1))" \
    '{ [ $rc -eq 0 ] && grep -q "^opened rev $rev after [1-9][0-9]* refusals, $n namespaces; committed rev $((rev + 1))" "$tmp/a.$label"; } || { cat "$tmp/a.$label"; false; }'
  check "$label: cairn verify passes" '"$tool" verify "$s" >/dev/null'
}

for n in 1 2 4; do
  for mode in async staged; do
    s="$tmp/$mode$n"
    "$mpiexec" -n $n "$writer" "$s" write 1 >/dev/null 2>&1 || { echo "FAIL: $mode np$n setup"; failures=$((failures + 1)); continue; }
    in_flight $n $n $mode "$s" 2 "$mode-np$n"
  done
done

for pair in "2 4" "4 1" "1 2"; do
  read -r N M <<<"$pair"
  s="$tmp/resize$N$M"
  label="resize-$N-to-$M"
  # The job of N ranks holds the store and commits revision 1.
  "$mpiexec" -n "$N" "$holder" "$s" 60 >"$tmp/h.$label.N" 2>&1 &
  hjob=$!
  wait_file "$s.held" || continue
  npid=$(cut -d' ' -f1 "$s.held")
  check "$label: LOCK names the job of $N ranks" 'grep -qx "pid $npid" "$s/LOCK"'
  refused "$M" "$s" "$npid" "$label (first job)"
  touch "$s.release"
  wait $hjob
  rc=$?
  hjob=
  check "$label: the job of $N ranks commits revision 1" '[ $rc -eq 0 ] && grep -q "committed rev 1" "$tmp/h.$label.N"'
  # The job of M ranks takes the lock, with revision 2 in flight.
  in_flight "$M" "$N" async "$s" 2 "$label" "$npid"
  check "$label: the tool takes the lock after both jobs" '"$tool" pin "$s" 1 >/dev/null && [ "$(revs "$s")" = "1* 2 3" ]'
done
echo "lock interaction checks: $checks, failures: $failures"
[ "$failures" -eq 0 ] && [ "$checks" -gt 60 ]
