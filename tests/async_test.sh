#!/usr/bin/env bash
# Asynchronous commits as whole programs, on 1, 2 and 4 ranks:
#  - CommitAsync with staged puts whose buffers are overwritten at once,
#    closed by Close, and by MPI_Finalize when the program never closes;
#  - kill -9 at each step of an asynchronous commit (all ranks, or one):
#    the previous revision stays intact and the store takes the next one;
#  - the same with keep_revisions = 2, once new revisions reuse the extents
#    of expired ones, for plain and asynchronous commits.
# Usage: async_test.sh CRASH_WRITER CAIRN_TOOL MPIEXEC
set -u
writer=$1 tool=$2 mpiexec=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-async-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trials=0 failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$mpiexec" -n "$1" "$writer" "${@:2}" >"$tmp/out" 2>&1; }

for np in 1 2 4; do
  store="$tmp/s-$np"
  trials=$((trials + 1))
  if run "$np" "$store" write-async 1 && run "$np" "$store" check 1 &&
     run "$np" "$store" write-async-leak 2 && run "$np" "$store" check 2 &&
     "$tool" verify "$store" >"$tmp/verify" 2>&1; then :
  else fail "np=$np: async commit, close and finalize"; cat "$tmp/out" "$tmp/verify" 2>/dev/null; fi
  # The stream each rank wrote is an object: listed, and extracted whole.
  trials=$((trials + 1))
  r=$((np - 1))
  for i in $(seq 0 999); do echo "rank $r revision 2 line $i"; done >"$tmp/want"
  if "$tool" keys "$store" --rank $r | awk -F'\t' '$2 == "log"' | grep -q . &&
     "$tool" get "$store" log --rank $r >"$tmp/got" && cmp -s "$tmp/want" "$tmp/got"; then :
  else fail "np=$np: stream 'log' of rank $r not listed or not extracted as written"; fi
done

for np in 1 2 4; do
  # Revision 1, written once per rank count; each trial crashes a copy of
  # it (the same files a fresh setup writes: values depend only on rank
  # and revision).
  base="$tmp/c-base-$np"
  run "$np" "$base" write 1 || { fail "setup np=$np"; cat "$tmp/out"; continue; }
  for point in before_flush after_flush before_manifest torn_manifest after_manifest; do
    for who in all one; do
      # At 1 rank "one" is rank 0, every rank: the "all" trial again (the
      # same CAIRN_CRASH_RANK test in src/store/crash_point.cc).
      [ "$np" = 1 ] && [ "$who" = one ] && continue
      crash_rank=""
      [ "$who" = one ] && crash_rank=$((np - 1))
      case $point in torn_manifest|after_manifest|before_manifest) [ "$who" = one ] && crash_rank=0 ;; esac
      store="$tmp/c-$np-$point-$who"
      trials=$((trials + 1))
      cp -a "$base" "$store" || { fail "copying the setup np=$np"; continue; }
      if CAIRN_CRASH_POINT=$point CAIRN_CRASH_RANK=$crash_rank run "$np" "$store" write-async 2; then
        fail "np=$np $point ($who): the crashing run exited 0"
      fi
      want=1
      [ "$point" = after_manifest ] && want=2
      run "$np" "$store" check $want || { fail "np=$np $point ($who): revision $want not intact"; cat "$tmp/out"; continue; }
      "$tool" verify "$store" >"$tmp/verify" 2>&1 || { fail "np=$np $point ($who): cairn verify"; cat "$tmp/verify"; }
      run "$np" "$store" write-async $((want + 1)) && run "$np" "$store" check $((want + 1)) ||
        { fail "np=$np $point ($who): next revision after the crash"; cat "$tmp/out"; }
    done
  done
done
# A collective call made by only some ranks: with collective_timeout_s the
# job aborts with a message naming the wait, instead of hanging; the store
# keeps its revision.
# Each kind of collective: a commit (gather, broadcast), an Open (the
# communicator's duplication), a Close (the window's free) and a GetShared
# (whose root, rank 0, used to return alone at once). The run is
# bounded by `timeout`, so that a hang fails the trial, not the suite.
for np in 2 4; do
  store="$tmp/alone-$np"
  run "$np" "$store" write 1 || { fail "setup alone np=$np"; continue; }
  for call in commit open close getshared; do
    trials=$((trials + 1))
    t0=$(date +%s)
    if timeout -k 5 60 "$mpiexec" -n "$np" "$writer" "$store" $call-alone 2 >"$tmp/out" 2>&1; then
      fail "np=$np: a $call made by rank 0 alone returned 0"
    fi
    t1=$(date +%s)
    grep -q "did not join it" "$tmp/out" || { fail "np=$np $call: no timeout message"; cat "$tmp/out"; }
    [ $((t1 - t0)) -lt 25 ] || fail "np=$np $call: the timeout took $((t1 - t0)) s (set: 2 s)"
    run "$np" "$store" check 1 || { fail "np=$np $call: revision 1 not intact after the aborted $call"; cat "$tmp/out"; }
  done
done

# Retention under crashes: with keep 2, revisions 1..6 make later ones reuse
# expired extents; a kill at each step of commit 7 (plain and asynchronous,
# all ranks) must leave 6 intact, and the store must go on.
for np in 2 4; do
  # Revisions 1..6 by six jobs, once per rank count; each trial crashes a
  # copy of that store (the same files a fresh setup writes).
  base="$tmp/k-base-$np"
  ok=1
  for r in 1 2 3 4 5 6; do CAIRN_TEST_KEEP=2 run "$np" "$base" write $r || ok=0; done
  [ $ok = 1 ] || { fail "setup keep np=$np"; cat "$tmp/out"; continue; }
  for mode in write write-async; do
    for point in before_flush after_flush before_manifest torn_manifest after_manifest; do
      store="$tmp/k-$np-$mode-$point"
      trials=$((trials + 1))
      cp -a "$base" "$store" || { fail "copying the keep setup np=$np"; continue; }
      if CAIRN_TEST_KEEP=2 CAIRN_CRASH_POINT=$point run "$np" "$store" $mode 7; then
        fail "keep np=$np $mode $point: the crashing run exited 0"
      fi
      want=6
      [ "$point" = after_manifest ] && want=7
      CAIRN_TEST_KEEP=2 run "$np" "$store" check $want || { fail "keep np=$np $mode $point: revision $want not intact"; cat "$tmp/out"; continue; }
      "$tool" verify "$store" >"$tmp/verify" 2>&1 || { fail "keep np=$np $mode $point: cairn verify"; cat "$tmp/verify"; }
      CAIRN_TEST_KEEP=2 run "$np" "$store" $mode $((want + 1)) && CAIRN_TEST_KEEP=2 run "$np" "$store" check $((want + 1)) ||
        { fail "keep np=$np $mode $point: next revision after the crash"; cat "$tmp/out"; }
    done
  done
done
echo "async trials: $trials, failures: $failures"
[ "$failures" -eq 0 ]
