#!/usr/bin/env bash
# Reproducer of finding 2 (FINDINGS4.md; fixed: tests/verify_live_test.sh is
# its ctest form, and this one passes now): `cairn verify --all` beside a writer
# whose keep_revisions expires revisions reports an intact store as damaged
# (exit 2, "CORRUPT revision N: NotFound: ... was dropped (expired by
# keep_revisions ...)", "FAILED"). An expiry is not damage: it should skip
# (or re-list) revisions expired meanwhile, or exit 1 saying so.
# Usage: verify_live.sh BUILD    (exit 1 when the false report is seen)
set -u
build=$1
d=$(mktemp -d)
trap 'kill $w 2>/dev/null; wait 2>/dev/null; rm -rf "$d"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BIG_KEEP=1 "$build/tests/breaker_bigcat" write "$d/s" 2000 3000 > "$d/w.out" 2>&1 &
w=$!
sleep 1
for i in $(seq 1 200); do
  out=$("$build/tools/cairn" verify "$d/s" --all 2>&1); rc=$?
  if [ $rc -eq 2 ] && echo "$out" | grep -q "NotFound"; then
    echo "verify --all of an intact store beside a writer exited 2 (try $i):"; echo "$out" | head -3
    exit 1
  fi
done
echo "no false damage report in 200 verifies"
