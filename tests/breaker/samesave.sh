#!/usr/bin/env bash
# Seventh pass: samesave.py as a chain of rank counts on one store, with a
# read-only job holding the newest pinned revision and one holding the
# newest revision while each step writes, then a check at a random rank
# count and the tool on the final state.
# Usage: samesave.sh BUILD DIR KEEP STAGING "NP:ROUNDS NP:ROUNDS ..."
# (READER_PY: a python with the xxhash package, for tools/cairn_reader.py)
set -u
B=$(cd "$1" && pwd); D=$2; KEEP=$3; STG=$4; STEPS=$5
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../scripts/mpi_env.sh"
PY=$B/venv/bin/python
export PYTHONPATH=$B/python
run() { nice timeout 600 mpiexec -n "$1" "${@:2}"; }
fail=0
for s in $STEPS; do
  np=${s%:*}; rounds=${s#*:}
  holds=()
  if [ -d "$D" ]; then
    pinned=$("$B/tools/cairn" ls "$D" --json 2>/dev/null | $PY -c 'import json,sys; r=[x["revision"] for x in json.load(sys.stdin) if x.get("pinned")]; print(r[-1] if r else "")' 2>/dev/null)
    newest=$(ls "$D.model" | sed 's/.pkl//' | sort -n | tail -1)
    rm -f "$D.go"
    for h in $pinned $newest; do
      hn=$(( (RANDOM % 3) + 1 ))
      ( run $hn $PY "$here/samesave.py" "$D" hold "$h" > "$D.hold.$h.log" 2>&1 ) &
      holds+=($!)
    done
    sleep 3
  fi
  run "$np" $PY "$here/samesave.py" "$D" write "$rounds" "$KEEP" "$STG" || { echo "write at $np failed"; fail=1; }
  touch "$D.go"
  for p in "${holds[@]}"; do wait "$p" || fail=1; done
  cat "$D".hold.*.log 2>/dev/null | grep -h 'hold' ; rm -f "$D".hold.*.log
  cn=$(( (RANDOM % 4) + 1 ))
  run "$cn" $PY "$here/samesave.py" "$D" check || fail=1
  "$B/tools/cairn" verify "$D" --all > /dev/null || { echo "verify --all failed"; fail=1; }
done
# the tool and the reader (READER_PY: a python with xxhash) on the final state
$PY "$here/samesave.py" "$D" tools "$B/tools/cairn" "${READER_PY:-python3}" "$here/../../tools/cairn_reader.py" || fail=1
exit $fail
