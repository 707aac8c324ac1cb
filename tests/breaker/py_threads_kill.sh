#!/usr/bin/env bash
# py_threads.py under kill -9: CYCLES jobs at 1-3 ranks, each killed (the
# whole job) at a random moment, then `cairn verify --all` and the check at
# another rank count. Usage: py_threads_kill.sh BUILD WORKDIR CYCLES
set -u
build=$1 work=$2 cycles=$3
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH=$build/python OMPI_MCA_rmaps_base_oversubscribe=1
py=$build/venv/bin/python
rm -rf "$work"; mkdir -p "$work"
fails=0
for c in $(seq 1 "$cycles"); do
  np=$(( (RANDOM % 3) + 1 ))
  setsid mpiexec -n $np $py "$here/py_threads.py" "$work/s" $((RANDOM % 7)) 40 > "$work/job.$c" 2>&1 &
  pid=$!
  sleep "$(( RANDOM % 6 )).$(( RANDOM % 10 ))"
  # Every process of the job's session (Open MPI puts ranks in process
  # groups of their own).
  for q in $(ps -e -o pid=,sid= | awk -v s=$pid '$2 == s {print $1}'); do kill -9 $q 2>/dev/null; done
  wait $pid 2>/dev/null
  sleep 0.5
  for q in $(ps -e -o pid=,sid= | awk -v s=$pid '$2 == s {print $1}'); do kill -9 $q 2>/dev/null; done
  if grep -q "FAIL\|Traceback" "$work/job.$c"; then echo "cycle $c: writer failed:"; cat "$work/job.$c"; fails=$((fails+1)); break; fi
  if [ -d "$work/s" ]; then
    out=$("$build/tools/cairn" verify "$work/s" --all 2>&1); rc=$?
    if [ $rc -ne 0 ] && ls "$work"/s.r*.json >/dev/null 2>&1; then echo "cycle $c: verify rc $rc: $out"; fails=$((fails+1)); break; fi
    m=$(( (RANDOM % 3) + 1 ))
    out=$(timeout 300 mpiexec -n $m $py "$here/py_threads.py" "$work/s" check 2>&1); rc=$?
    if [ $rc -ne 0 ] && ls "$work"/s.r*.json >/dev/null 2>&1; then echo "cycle $c: check at $m ranks rc $rc: $out" | tail -5; fails=$((fails+1)); break; fi
    echo "cycle $c (np $np): $(echo "$out" | tail -1)"
  fi
done
echo "py_threads_kill: $c cycles, failures $fails"
[ $fails -eq 0 ]
