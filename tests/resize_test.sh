#!/usr/bin/env bash
# One store written by jobs of different sizes, read-write (issue 12 item 4):
#   sync:   4 -> 3 -> 6 -> 1 -> 2 ranks, one revision each, then a rollback
#           to the 6-rank revision on 4 ranks; every revision read back
#           read-only on another rank count with its own number of namespaces;
#           the cairn tool's info, keys and get on revisions of other counts
#   subfiles: 4 -> 3 -> 6 -> 2 ranks with subfiles = 4 and keep_revisions = 2
#           (ranks on other data files than their namespace's chunks)
#   array:  a global array of 4 ranks' blocks must be put again (or deleted)
#           by the first commit on 3 ranks, which otherwise fails naming it
#   async:  2 -> 4 -> 1 ranks, five asynchronous commits at each, with
#           keep_revisions = 2, so that later commits reuse the extents of
#           revisions written by another rank count; the data files stop
#           growing within each rank count
# and `cairn ls` shows each revision's rank count, `cairn verify --all`
# checks every retained revision's checksums. resize_writer.cc checks, in
# every write, that every namespace of the revision it starts from is
# readable by every rank (Get, GetTags, List, Query, streams, QueryAll).
# Usage: resize_test.sh RESIZE_WRITER CAIRN_TOOL MPIEXEC
set -u
writer=$1 tool=$2 mpiexec=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-resize-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
steps=0 failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# run NP ARGS...: one job; its output is shown if it fails.
run() {
  steps=$((steps + 1))
  if ! "$mpiexec" -n "$1" "$writer" "${@:2}" >"$tmp/out" 2>&1; then
    fail "mpiexec -n $1 resize_writer ${*:2}"
    tail -n 20 "$tmp/out"
    return 1
  fi
}
verify_all() {
  "$tool" verify --all "$1" >"$tmp/verify" 2>&1 || { fail "cairn verify --all $1"; cat "$tmp/verify"; }
}
# The rank counts `cairn ls` shows, oldest revision first.
ls_ranks() { "$tool" ls "$1" | awk 'NR > 1 { printf "%s ", $4 }'; }
data_bytes() { du -cb "$1"/data.* | tail -n 1 | cut -f1; }

# --- Synchronous commits: 4 -> 3 -> 6 -> 1 -> 2, and a rollback.
s="$tmp/sync"
run 4 "$s" write 1
run 3 "$s" write 2      # namespace 3 of revision 1 read by all 3 ranks, not carried
run 2 "$s" check 2 3    # the new revision has 3 namespaces ...
run 3 "$s" check 1 4    # ... and the old one still opens with 4
run 6 "$s" write 3
run 4 "$s" check 3 6
run 1 "$s" write 4      # one rank reads the six namespaces of revision 3
run 2 "$s" write 5
run 3 "$s" check 5 2
run 4 "$s" write 6 3    # rollback: revision 3 (6 ranks) is the base of 6, on 4
run 5 "$s" check 6 4
got=$(ls_ranks "$s")
[ "$got" = "4 3 6 1 2 4 " ] || fail "cairn ls shows ranks '$got', expected '4 3 6 1 2 4 '"
verify_all "$s"
# The tool reads each revision with its own rank count.
"$tool" info -r 3 "$s" | grep -q "^ranks *6$" || fail "cairn info -r 3 does not say 6 ranks"
got=$("$tool" keys -r 1 "$s" | awk '$2 == "v1" { printf "%s ", $1 }')
[ "$got" = "0 1 2 3 " ] || fail "cairn keys -r 1 shows v1 in namespaces '$got'"
"$tool" get -r 1 --rank 3 "$s" v0 >/dev/null || fail "cairn get -r 1 --rank 3"

# --- Data files per rank block (subfiles = 4): 4 -> 3 leaves data.00003 to
# the revisions that use it, 6 ranks write 4 files again, 2 ranks 2 of
# them; keep_revisions = 2 frees the extents of each file's expired data.
f="$tmp/subfiles"
rev=0
for np in 4 3 6 2; do
  for i in 1 2; do
    rev=$((rev + 1))
    CAIRN_TEST_SUBFILES=4 CAIRN_TEST_KEEP=2 run "$np" "$f" write $rev || break 2
  done
  verify_all "$f"
done
run 5 "$f" check $rev 2
run 1 "$f" check $((rev - 1)) 2
[ -e "$f/data.00003" ] || fail "subfiles = 4 at 4 and 6 ranks: no data.00003"

# --- A global array written by 4 ranks, continued on 3: a commit that does
# not put it again fails naming it (its blocks in namespace 3 would be
# lost); read with GetArray and put again, it commits with 3 ranks' blocks.
g="$tmp/array"
run 4 "$g" array-put 1
run 3 "$g" array-stale 2
run 2 "$g" check 2 3

# --- Asynchronous commits with keep_revisions = 2: 2 -> 4 -> 1.
a="$tmp/async"
rev=0
for np in 2 4 1; do
  for i in 1 2 3 4 5 6 7; do
    rev=$((rev + 1))
    CAIRN_TEST_ASYNC=1 CAIRN_TEST_KEEP=2 run "$np" "$a" write $rev || break 2
    # The first commits at a new rank count may take new space (more
    # ranks, and a revision's expired extents are free only once the
    # record expiring it is durable, i.e. from the commit after, while an
    # asynchronous commit is in flight beside the two kept revisions);
    # from the fifth on, the extents of the revisions that expired are
    # enough. A data file's tail may still move by a few small values
    # (about 2 KB, depending on which extent a commit's small values land
    # in), never by a fresh extent (64 KiB here) per commit: the bound is
    # 16 KiB over the size after the fourth commit.
    size=$(data_bytes "$a")
    [ "$i" -eq 4 ] && base=$size
    if [ "$i" -ge 5 ] && [ "$size" -gt $((base + 16384)) ]; then
      fail "np=$np: commit $i at this rank count grew the data files from $base (after commit 4) to $size bytes"
      "$tool" space "$a"
    fi
    verify_all "$a"
  done
done
run 3 "$a" check $rev 1
run 2 "$a" check $((rev - 1)) 1
got=$(ls_ranks "$a")
[ "$got" = "1 1 " ] || fail "keep_revisions = 2: cairn ls shows ranks '$got', expected '1 1 '"

echo "resize steps: $steps, failures: $failures"
[ "$failures" -eq 0 ]
