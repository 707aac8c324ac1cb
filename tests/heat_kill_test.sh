#!/usr/bin/env bash
# heat_kill_test.sh: kill -9 the heat example at random moments, restart it
# with the same flags, and check that it ends with the same checksum as a run
# that was never interrupted.
#
# usage: tests/heat_kill_test.sh [HEAT_BINARY]
#
#   HEAT_BINARY     path of the heat executable (default: $HEAT, else
#                   ./examples/heat/heat, i.e. run from the build directory)
# environment (all optional):
#   MPIEXEC         the launcher (default: mpiexec)
#   MPIEXEC_FLAGS   extra launcher flags (default: --oversubscribe)
#   NPS             rank counts the trials cycle through (default: "4 2")
#   TRIALS          number of kill/restart trials (default: 6)
#   SEED            seed of the kill delays (default: random; printed)
#   CAIRN           the cairn tool; if found (default: tools/cairn next to
#                   the build's examples/), `cairn verify` checks each killed
#                   store before the restart
#   KEEP=1          keep the temporary directory (for debugging)
#   STARTUP_MS      a run's start-up time in ms, for the kill delays (default
#                   500; the Python heat example takes longer)
#
# What it checks, for every trial:
#   - the killed run's store restarts, and the restart exits 0;
#   - the restart resumes from the last revision the killed run reported as
#     committed or a newer one (rank 0's output reaches the log through
#     mpiexec, so the last lines before a kill can be lost), and the restored
#     step is revision * EVERY;
#   - the final checksum equals the uninterrupted reference;
#   - the uninterrupted runs on 1, 2 and 4 ranks agree (the result does not
#     depend on the decomposition).
# A kill goes to the mpiexec process group and to every process of its
# session (Open MPI puts each rank in its own process group), all with -9.

set -u -o pipefail

HEAT=${1:-${HEAT:-./examples/heat/heat}}
MPIEXEC=${MPIEXEC:-mpiexec}
MPIEXEC_FLAGS=${MPIEXEC_FLAGS---oversubscribe}
NPS=${NPS:-"4 2"}
TRIALS=${TRIALS:-6}
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
STARTUP_MS=${STARTUP_MS:-500}

# The run: an uneven grid (161 rows, 193 columns do not split evenly over
# 2 or 4 ranks), slowed to ~3 s, with a checkpoint every 3 steps so that a
# third or more of the run is spent inside Commit() and many kills land
# in the middle of one.
NX=193 NY=161 STEPS=120 EVERY=3 SLEEP_MS=10
RUN_TIMEOUT=60  # seconds any single run may take before the test gives up

fail() { echo "heat_kill_test: FAIL: $*" >&2; exit 1; }
# trial_fail DIR MESSAGE: shows the trial's logs, then fails.
trial_fail() {
  local f
  for f in "$1"/killed.log "$1"/restart.log; do
    [[ -f "$f" ]] && { echo "----- $f (last 15 lines)" >&2; tail -n 15 "$f" >&2; }
  done
  fail "$2 (to reproduce and keep the logs: KEEP=1 SEED=$SEED $0 ${HEAT})"
}
note() { echo "heat_kill_test: $*"; }

[[ -x "$HEAT" ]] || fail "heat binary '$HEAT' not found or not executable (pass its path as the first argument)"
HEAT=$(cd "$(dirname "$HEAT")" && pwd)/$(basename "$HEAT")
command -v "$MPIEXEC" >/dev/null || fail "launcher '$MPIEXEC' not found (set MPIEXEC)"
command -v setsid >/dev/null || fail "setsid (util-linux) is required"

if [[ -z "${CAIRN:-}" ]]; then
  cand=$(dirname "$HEAT")/../../tools/cairn
  [[ -x "$cand" ]] && CAIRN=$cand
fi
CAIRN=${CAIRN:-}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/heatkill.XXXXXX") || fail "mktemp failed"
SESSIONS=()  # the session ids (= mpiexec pids) of every run started

# Prints the pids of the live (non-zombie) processes of session $1.
session_pids() {
  ps -e -o pid=,sid=,stat= | awk -v s="$1" '$2 == s && $3 !~ /^Z/ { print $1 }'
}

# kill -9 the process group of mpiexec and every process of its session.
kill_session() {
  local sid=$1 pids i
  pids=$(session_pids "$sid")
  kill -9 -- "-$sid" $pids 2>/dev/null
  for ((i = 0; i < 100; i++)); do
    pids=$(session_pids "$sid")
    [[ -z "$pids" ]] && return 0
    kill -9 $pids 2>/dev/null
    sleep 0.05
  done
  echo "heat_kill_test: warning: processes of session $sid survive kill -9: $pids" >&2
  return 1
}

cleanup() {
  local sid
  for sid in "${SESSIONS[@]}"; do
    [[ -n "$(session_pids "$sid")" ]] && kill_session "$sid"
  done
  if [[ "${KEEP:-0}" == 1 ]]; then
    echo "heat_kill_test: kept $TMP" >&2
  else
    rm -rf "$TMP"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Open MPI: keep its session directory and shared-memory segments inside
# $TMP, so the leftovers of killed runs are removed with it.
mkdir -p "$TMP/ompi" "$TMP/shm"
export OMPI_MCA_orte_tmpdir_base="$TMP/ompi"
export OMPI_MCA_btl_vader_backing_directory="$TMP/shm"
if [[ $(id -u) == 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# start_run NP STORE LOG SLEEP_MS: starts heat in a new session; sets JOB.
start_run() {
  local np=$1 store=$2 log=$3 sleep_ms=$4
  # shellcheck disable=SC2086
  setsid "$MPIEXEC" $MPIEXEC_FLAGS -np "$np" "$HEAT" --store "$store" --steps "$STEPS" \
    --every "$EVERY" --nx "$NX" --ny "$NY" --sleep-ms "$sleep_ms" >"$log" 2>&1 </dev/null &
  JOB=$!
  SESSIONS+=("$JOB")
}

# wait_run PID LOG: waits (at most RUN_TIMEOUT s) and returns its exit status.
wait_run() {
  local pid=$1 log=$2 deadline=$(( $(now_ms) + RUN_TIMEOUT * 1000 ))
  while kill -0 "$pid" 2>/dev/null; do
    if (( $(now_ms) > deadline )); then
      disown "$pid"
      kill_session "$pid"
      echo "----- $log" >&2; tail -n 30 "$log" >&2
      fail "run timed out after ${RUN_TIMEOUT}s (hung?)"
    fi
    sleep 0.05
  done
  wait "$pid"
}

# The checksum printed by a finished run (its last line), or "".
checksum_of() {
  local last
  last=$(tail -n 1 "$1")
  [[ "$last" =~ ^checksum\ ([0-9a-f]{16})$ ]] && echo "${BASH_REMATCH[1]}"
}

# run_to_end NP STORE LOG SLEEP_MS: a complete run; sets SUM to its checksum.
run_to_end() {
  local rc
  SUM=""
  start_run "$@"
  wait_run "$JOB" "$3"; rc=$?
  if (( rc != 0 )); then
    echo "----- $3" >&2; tail -n 30 "$3" >&2
    fail "heat -np $1 --store $2 exited with status $rc"
  fi
  SUM=$(checksum_of "$3")
  if [[ -z "$SUM" ]]; then
    echo "----- $3" >&2; tail -n 30 "$3" >&2
    fail "heat -np $1 did not end with a 'checksum <16 hex digits>' line"
  fi
}

T0=$(now_ms)
note "heat=$HEAT launcher='$MPIEXEC $MPIEXEC_FLAGS' grid ${NY}x${NX} steps=$STEPS every=$EVERY sleep-ms=$SLEEP_MS seed=$SEED tmp=$TMP"
[[ -n "$CAIRN" ]] && note "verifying killed stores with $CAIRN"

# --- References: uninterrupted runs on 1 rank and on every NPS count. ---
run_to_end 1 "$TMP/ref1" "$TMP/ref1.log" 0
REF=$SUM
note "reference (1 rank, uninterrupted): checksum $REF"
for np in $NPS; do
  [[ $np == 1 ]] && continue
  run_to_end "$np" "$TMP/ref$np" "$TMP/ref$np.log" 0
  [[ "$SUM" == "$REF" ]] ||
    fail "uninterrupted run on $np ranks gives checksum $SUM, on 1 rank $REF: the result depends on the decomposition"
  note "reference ($np ranks, uninterrupted): checksum $SUM (same)"
done

# --- Kill/restart trials. ---
RANDOM=$SEED
read -r -a np_list <<<"$NPS"
# The length of a run: the sleeps, ~25 ms per commit, the start-up.
span_ms=$(( STEPS * SLEEP_MS + STEPS / EVERY * 25 + STARTUP_MS ))
declare -i killed_mid=0
for ((t = 1; t <= TRIALS; t++)); do
  np=${np_list[$(( (t - 1) % ${#np_list[@]} ))]}
  dir="$TMP/trial$t"; mkdir -p "$dir"
  store="$dir/store"
  # Kill anywhere from launcher start-up to about the end of the run: the
  # span is cut into TRIALS slots, trial t is killed at a random point of slot t.
  slot_ms=$(( span_ms / TRIALS ))
  delay_ms=$(( 150 + (t - 1) * slot_ms + RANDOM % slot_ms ))

  start_run "$np" "$store" "$dir/killed.log" "$SLEEP_MS"
  pid=$JOB
  disown "$pid"  # its end is not reported ("Killed"); bash still reaps it
  end=$(( $(now_ms) + delay_ms ))
  while kill -0 "$pid" 2>/dev/null && (( $(now_ms) < end )); do sleep 0.01; done
  if kill -0 "$pid" 2>/dev/null; then
    kill_session "$pid" || fail "trial $t: could not kill every process of the run"
    how="killed after ${delay_ms} ms"
    killed_mid+=1
  else
    how="finished before the kill at ${delay_ms} ms"
  fi
  # The last revision the killed run reported as committed (0: none).
  last_rev=$(awk '$1 == "checkpoint" && $2 == "rev" { r = $3 } END { print r + 0 }' "$dir/killed.log")

  if [[ -n "$CAIRN" && $last_rev -gt 0 ]]; then
    if ! "$CAIRN" verify "$store" >"$dir/verify.log" 2>&1; then
      echo "----- cairn verify $store" >&2; tail -n 30 "$dir/verify.log" >&2
      fail "trial $t: 'cairn verify' rejects the store of a run $how (last reported revision $last_rev)"
    fi
  fi

  run_to_end "$np" "$store" "$dir/restart.log" "$SLEEP_MS"
  sum=$SUM
  if grep -q '^restart from revision' "$dir/restart.log"; then
    read -r rev step < <(awk '/^restart from revision/ { print $4, $7 }' "$dir/restart.log")
  else
    rev=0 step=0
  fi
  if (( rev < last_rev )); then
    trial_fail "$dir" "trial $t (np=$np, $how): the killed run reported revision $last_rev committed, but the restart resumed from revision $rev"
  fi
  if (( step != rev * EVERY )); then
    trial_fail "$dir" "trial $t (np=$np, $how): revision $rev restored step $step, expected $(( rev * EVERY ))"
  fi
  if [[ "$sum" != "$REF" ]]; then
    trial_fail "$dir" "trial $t (np=$np, $how, restarted from revision $rev at step $step): checksum $sum != reference $REF"
  fi
  note "trial $t: np=$np, $how (last reported revision $last_rev); restart from revision $rev at step $step; checksum $sum OK"
done

(( killed_mid > 0 )) || note "warning: no trial was killed while running (all finished first)"
note "PASS: $TRIALS trials, $killed_mid killed mid-run, $(( ($(now_ms) - T0) / 1000 )) s"
