#!/usr/bin/env bash
# Sixth pass driver: resize_mix.py writers at a chain of rank counts, each
# with read-only jobs holding an older revision (the newest pinned one and
# the newest one) while it writes, then a check at another rank count and
# the tool/reader comparison.
# Usage: resize_mix.sh BUILD WORKDIR KEEP BIG "4:6 2:5 3:4 1:4 4:3"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd); w=$2; keep=$3; big=$4; steps=$5
source "$here/../../scripts/mpi_env.sh"
export PYTHONPATH=$build/python
py=$build/venv/bin/python; r=$here/resize_mix.py; c=$build/tools/cairn
rm -rf "$w"; mkdir -p "$w"; s=$w/s
first=1
for st in $steps; do
  np=${st%%:*}; rounds=${st##*:}
  holds=()
  if [ $first = 0 ]; then
    rm -f "$s.go"
    newest=$($c ls "$s" --json | $py -c 'import json,sys; print(json.load(sys.stdin)[-1]["revision"])')
    pinned=$($c ls "$s" --json | $py -c 'import json,sys; p=[r["revision"] for r in json.load(sys.stdin) if r["pinned"]]; print(p[-1] if p else 0)')
    for rev in $newest $pinned; do
      [ "$rev" = 0 ] && continue
      hn=$(( (RANDOM % 3) + 1 ))
      timeout 600 mpiexec -n $hn "$py" "$r" "$s" hold "$rev" > "$w/hold.$rev.log" 2>&1 &
      holds+=($!)
    done
    sleep 2
  fi
  timeout 900 mpiexec -n "$np" "$py" "$r" "$s" write "$rounds" "$keep" "$big"
  touch "$s.go"
  for h in "${holds[@]}"; do wait "$h" || { echo "hold job failed"; cat "$w"/hold.*.log; exit 1; }; done
  cat "$w"/hold.*.log 2>/dev/null | grep -v '^$' || true; rm -f "$w"/hold.*.log
  cn=$(( (RANDOM % 4) + 1 ))
  timeout 900 mpiexec -n $cn "$py" "$r" "$s" check
  first=0
done
timeout 900 "$py" "$r" "$s" tools "$c"
$c space "$s"
