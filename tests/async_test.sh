#!/usr/bin/env bash
# Asynchronous commits as whole programs, on 1, 2 and 4 ranks:
#  - CommitAsync with staged puts whose buffers are overwritten at once,
#    closed by Close, and by MPI_Finalize when the program never closes;
#  - kill -9 at each step of an asynchronous commit (all ranks, or one):
#    the previous revision stays intact and the store takes the next one.
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
  for point in before_flush after_flush before_manifest torn_manifest after_manifest; do
    for who in all one; do
      crash_rank=""
      [ "$who" = one ] && crash_rank=$((np - 1))
      case $point in torn_manifest|after_manifest|before_manifest) [ "$who" = one ] && crash_rank=0 ;; esac
      store="$tmp/c-$np-$point-$who"
      trials=$((trials + 1))
      run "$np" "$store" write 1 || { fail "setup np=$np"; cat "$tmp/out"; continue; }
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
echo "async trials: $trials, failures: $failures"
[ "$failures" -eq 0 ]
