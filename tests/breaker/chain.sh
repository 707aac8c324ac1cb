#!/usr/bin/env bash
# Restart chains mixing languages and rank counts on one store: C++ at 4
# ranks, Python at 3, C at 2, C++ at 1, in turn (the model: bigcat.cc,
# "chain"; global arrays with irregular blocks and an empty rank, tags,
# streams, pins, keep_revisions 3). Each step is killed -9 at a random
# moment once, then run to its end; after each, `cairn verify --all` and
# every retained revision checked at 1, 2, 3 and 4 ranks.
# Usage: chain.sh BUILD WORKDIR STEPS
set -u
build=$1 work=$2 steps=$3
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH=$build/python OMPI_MCA_rmaps_base_oversubscribe=1
rm -rf "$work"; mkdir -p "$work"
s=$work/store
fail() { echo "CHAIN FAILED: $*"; exit 1; }
writer() {  # kind np rounds
  case $1 in
    cpp) echo "mpiexec -n $2 $build/tests/breaker_bigcat chainwrite $s $3" ;;
    py) echo "mpiexec -n $2 $build/venv/bin/python $here/py_chain.py $s $3" ;;
    c) echo "mpiexec -n $2 $build/tests/breaker_chain_c $s $3" ;;
  esac
}
kinds=(cpp py c cpp); nps=(4 3 2 1)
for k in $(seq 0 $((steps - 1))); do
  kind=${kinds[$((k % 4))]} np=${nps[$((k % 4))]}
  setsid $(writer $kind $np 400) > "$work/kill.$k" 2>&1 &
  pid=$!
  sleep "$(( RANDOM % 3 )).$(( RANDOM % 10 ))"
  # Every process of the job's session (Open MPI puts ranks in their own
  # process groups, so a group kill would leave them writing).
  for q in $(ps -e -o pid=,sid= | awk -v s=$pid '$2 == s {print $1}'); do kill -9 $q 2>/dev/null; done
  wait $pid 2>/dev/null
  sleep 0.5
  for q in $(ps -e -o pid=,sid= | awk -v s=$pid '$2 == s {print $1}'); do kill -9 $q 2>/dev/null; done
  grep -q "FAIL" "$work/kill.$k" && fail "step $k ($kind at $np) before the kill: $(cat "$work/kill.$k")"
  [ -d "$s" ] || continue
  $(writer $kind $np 3) > "$work/run.$k" 2>&1 || fail "step $k ($kind at $np) after the kill: $(tail -5 "$work/run.$k")"
  out=$("$build/tools/cairn" verify "$s" --all 2>&1) || fail "step $k: verify: $out"
  for m in 1 2 3 4; do
    out=$(mpiexec -n $m "$build/tests/breaker_bigcat" chaincheck "$s" 2>&1) || fail "step $k: check at $m: $out"
  done
  echo "step $k ($kind at $np): killed, rerun, verify ok; $(echo "$out" | tail -1)"
done
echo "chain: $steps steps ok"
