#!/usr/bin/env bash
# heat_resize_test.sh: the heat example restarted on other rank counts in one
# store (issue 12 item 5): 60 steps on 4 ranks, then to step 120 on 3 ranks
# (asynchronous checkpoints), then to step 180 on 6 ranks, must print the
# checksum of an uninterrupted 180-step run on 4 ranks. The grid is a global
# array, so each run reads its own blocks of it whatever blocks wrote it.
# Also: `cairn ls` shows the revisions' rank counts (4, 3, 6) and
# `cairn verify --all` passes.
#
# usage: tests/heat_resize_test.sh HEAT_BINARY [CAIRN_TOOL]
# environment: MPIEXEC (default mpiexec), MPIEXEC_FLAGS (default --oversubscribe)
set -u -o pipefail
HEAT=$1
CAIRN=${2:-}
MPIEXEC=${MPIEXEC:-mpiexec}
MPIEXEC_FLAGS=${MPIEXEC_FLAGS---oversubscribe}
if [[ $(id -u) == 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/heatresize.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
fail() { echo "heat_resize_test: FAIL: $*" >&2; exit 1; }
# An uneven grid: 161 rows and 193 columns split unevenly over 2x2, 3x1 and
# 3x2 process grids, so every restart reads boxes that cross the old blocks.
GRID=(--nx 193 --ny 161 --every 20)

# heat NP LOG ARGS...: one run; prints its checksum.
heat() {
  local np=$1 log=$2 rc=0
  # shellcheck disable=SC2086
  "$MPIEXEC" $MPIEXEC_FLAGS -np "$np" "$HEAT" "${GRID[@]}" "${@:3}" >"$log" 2>&1 || rc=$?
  if (( rc != 0 )); then
    tail -n 20 "$log" >&2
    fail "heat -np $np ${*:3} exited with status $rc"
  fi
  local last
  last=$(tail -n 1 "$log")
  [[ "$last" =~ ^checksum\ ([0-9a-f]{16})$ ]] || { tail -n 20 "$log" >&2; fail "no checksum line from heat -np $np"; }
  echo "${BASH_REMATCH[1]}"
}

ref=$(heat 4 "$TMP/ref.log" --store "$TMP/ref" --steps 180) || exit 1
echo "heat_resize_test: reference, 4 ranks, 180 steps: checksum $ref"

s="$TMP/store"
heat 4 "$TMP/a.log" --store "$s" --steps 60 >/dev/null || exit 1
heat 3 "$TMP/b.log" --store "$s" --steps 120 --async >/dev/null || exit 1
grep -q "^restart from revision 3 at step 60" "$TMP/b.log" || { cat "$TMP/b.log"; fail "the 3-rank run did not restart from revision 3 at step 60"; }
grep -q "written by 4 ranks, this run has 3" "$TMP/b.log" || { cat "$TMP/b.log"; fail "the 3-rank run did not say the revision had 4 ranks"; }
got=$(heat 6 "$TMP/c.log" --store "$s" --steps 180) || exit 1
grep -q "^restart from revision 6 at step 120" "$TMP/c.log" || { cat "$TMP/c.log"; fail "the 6-rank run did not restart from revision 6 at step 120"; }
[[ "$got" == "$ref" ]] || fail "4 -> 3 -> 6 ranks gives checksum $got, an uninterrupted 4-rank run $ref"
echo "heat_resize_test: 4 -> 3 -> 6 ranks: checksum $got (same)"

if [[ -n "$CAIRN" ]]; then
  ranks=$("$CAIRN" ls "$s" | awk 'NR > 1 { printf "%s ", $4 }')
  [[ "$ranks" == "4 4 4 3 3 3 6 6 6 " ]] || fail "cairn ls shows ranks '$ranks', expected 4 4 4 3 3 3 6 6 6"
  "$CAIRN" verify --all "$s" >"$TMP/verify.log" 2>&1 || { cat "$TMP/verify.log"; fail "cairn verify --all"; }
fi
echo "heat_resize_test: PASS"
