#!/usr/bin/env bash
# Cross-check the independent Python reader (tools/cairn_reader.py, written
# from doc/format.md alone) against the cairn tool on a store written by
# crash_writer under mpiexec: ls, keys (revisions, keys, sizes, tags) and the
# bytes of every value of every revision must agree.
#
# usage: reader_test.sh CRASH_WRITER CAIRN_TOOL MPIEXEC
set -u

if [ $# -ne 3 ]; then
  echo "usage: $0 CRASH_WRITER CAIRN_TOOL MPIEXEC" >&2
  exit 2
fi
WRITER=$1
CAIRN=$2
MPIEXEC=$3
HERE=$(cd "$(dirname "$0")" && pwd)
READER="$HERE/../tools/cairn_reader.py"
PY=${PYTHON:-python3}

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

pass=0
fail=0
ok()  { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn_reader_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
store=$tmp/store

# --- the checksum library -------------------------------------------------
NOVERIFY=()
if ! $PY -c 'import xxhash' 2>/dev/null; then
  echo "python xxhash missing: installing it with pip"
  $PY -m pip install --quiet xxhash >/dev/null 2>&1 ||
    pip install --quiet xxhash >/dev/null 2>&1 || true
  if ! $PY -c 'import xxhash' 2>/dev/null; then
    echo "NOTE: pip could not install xxhash: running the reader with" \
         "--no-verify (checksums NOT checked by the reader)"
    NOVERIFY=(--no-verify)
  fi
fi
reader() { $PY "$READER" "${NOVERIFY[@]}" "$@"; }

# --- a store with two revisions -------------------------------------------
for rev in 1 2; do
  if "$MPIEXEC" -n 2 "$WRITER" "$store" write "$rev" >"$tmp/w$rev.log" 2>&1; then
    ok "crash_writer write $rev"
  else
    bad "crash_writer write $rev"; cat "$tmp/w$rev.log"
  fi
done

# Compare two JSON files with a small Python program (argv: mode a b).
compare() {
  $PY - "$@" <<'EOF'
import json, math, sys
mode, a_path, b_path = sys.argv[1:4]
a = json.load(open(a_path, encoding="utf-8", errors="surrogateescape"))
b = json.load(open(b_path, encoding="utf-8", errors="surrogateescape"))

def same(x, y):
    if isinstance(x, bool) or isinstance(y, bool):
        return x is y
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        if isinstance(x, int) and isinstance(y, int):
            return x == y
        if isinstance(x, str) or isinstance(y, str):
            return False
        return x == y or math.isclose(x, y, rel_tol=1e-15) or \
            (math.isnan(x) and math.isnan(y))
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(same(p, q) for p, q in zip(x, y))
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    return x == y

errors = []
if mode == "ls":
    fields = ["revision", "parent", "ranks", "objects", "value_bytes",
              "index_bytes", "time"]
    if len(a) != len(b):
        errors.append("reader lists %d revisions, cairn %d" % (len(a), len(b)))
    for x, y in zip(a, b):
        for f in fields:
            if not same(x.get(f), y.get(f)):
                errors.append("revision %s field %s: reader %r, cairn %r"
                              % (x.get("revision"), f, x.get(f), y.get(f)))
elif mode == "keys":
    # Both list the shared namespace as rank "shared", after the ranks.
    if len(a) != len(b):
        errors.append("reader lists %d keys, cairn %d" % (len(a), len(b)))
    for x, y in zip(a, b):
        for f in ["rank", "key", "size", "inline", "tags"]:
            if not same(x.get(f), y.get(f)):
                errors.append("rank %s key %s field %s: reader %r, cairn %r"
                              % (x.get("rank"), x.get("key"), f, x.get(f),
                                 y.get(f)))
    if not a:
        errors.append("no keys at all")
else:
    errors.append("bad mode " + mode)
for e in errors[:20]:
    print("  " + e)
sys.exit(1 if errors else 0)
EOF
}

# --- ls -------------------------------------------------------------------
if reader "$store" ls >"$tmp/ls.reader" 2>"$tmp/err" &&
   "$CAIRN" ls --json "$store" >"$tmp/ls.cairn" 2>>"$tmp/err"; then
  if compare ls "$tmp/ls.reader" "$tmp/ls.cairn"; then
    ok "ls agrees"
  else
    bad "ls differs"
  fi
else
  bad "ls failed: $(cat "$tmp/err")"
fi

revs=$($PY -c 'import json,sys; print(" ".join(str(r["revision"]) for r in json.load(open(sys.argv[1]))))' "$tmp/ls.cairn" 2>/dev/null)
if [ "$revs" = "1 2" ]; then
  ok "revisions are 1 2"
else
  bad "revisions are '$revs', expected '1 2'"
fi

# --- keys and get, per revision ---------------------------------------------
for rev in $revs; do
  kr=$tmp/keys.$rev.reader
  kc=$tmp/keys.$rev.cairn
  if reader "$store" keys --revision "$rev" >"$kr" 2>"$tmp/err" &&
     "$CAIRN" keys --json --revision "$rev" "$store" >"$kc" 2>>"$tmp/err"; then
    if compare keys "$kr" "$kc"; then
      ok "keys agree (revision $rev)"
    else
      bad "keys differ (revision $rev)"
    fi
  else
    bad "keys failed (revision $rev): $(cat "$tmp/err")"
    continue
  fi
  # Same listing through --rank, one namespace at a time.
  for rank in 0 1; do
    if reader "$store" keys --revision "$rev" --rank "$rank" >"$kr.$rank" 2>"$tmp/err" &&
       "$CAIRN" keys --json --revision "$rev" --rank "$rank" "$store" >"$kc.$rank" 2>>"$tmp/err" &&
       compare keys "$kr.$rank" "$kc.$rank"; then
      ok "keys --rank $rank agree (revision $rev)"
    else
      bad "keys --rank $rank (revision $rev) $(cat "$tmp/err")"
    fi
  done

  # Every value, byte for byte; also the sha256 the reader's dump reports.
  reader "$store" dump --revision "$rev" >"$tmp/dump.$rev" 2>"$tmp/err" ||
    bad "dump failed (revision $rev): $(cat "$tmp/err")"
  $PY -c '
import json, sys
for e in json.load(open(sys.argv[1])):
    print(e["rank"], e["key"])' "$kc" >"$tmp/list.$rev"
  n=0; nbad=0
  while read -r rank key; do
    n=$((n + 1))
    reader "$store" get "$key" --rank "$rank" --revision "$rev" >"$tmp/v.reader" 2>"$tmp/err.r"
    rr=$?
    if [ "$rank" = shared ]; then which=(--shared); else which=(--rank "$rank"); fi
    "$CAIRN" get "$store" "$key" "${which[@]}" --revision "$rev" >"$tmp/v.cairn" 2>"$tmp/err.c"
    rc=$?
    if [ $rr -ne 0 ] || [ $rc -ne 0 ]; then
      nbad=$((nbad + 1))
      echo "  get $key rank $rank rev $rev: reader rc=$rr ($(cat "$tmp/err.r")), cairn rc=$rc ($(cat "$tmp/err.c"))"
    elif ! cmp -s "$tmp/v.reader" "$tmp/v.cairn"; then
      nbad=$((nbad + 1))
      echo "  get $key rank $rank rev $rev: bytes differ ($(wc -c <"$tmp/v.reader") vs $(wc -c <"$tmp/v.cairn"))"
    else
      sum=$($PY -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$tmp/v.cairn")
      want=$($PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
for ns in d["revisions"][0]["namespaces"]:
    if str(ns["rank"]) == sys.argv[2]:
        for e in ns["entries"]:
            if e["key"] == sys.argv[3]:
                print(e["sha256"])' "$tmp/dump.$rev" "$rank" "$key")
      if [ "$sum" != "$want" ]; then
        nbad=$((nbad + 1))
        echo "  dump sha256 of $key rank $rank rev $rev: $want, value has $sum"
      fi
    fi
  done <"$tmp/list.$rev"
  if [ "$n" -gt 0 ] && [ "$nbad" -eq 0 ]; then
    ok "get: $n values byte-identical, dump sha256 matches (revision $rev)"
  else
    bad "get: $nbad of $n values differ or fail (revision $rev)"
  fi
done

# --- a torn manifest tail: both tools drop the unfinished revision ----------
cp -r "$store" "$tmp/torn"
size=$(wc -c <"$tmp/torn/MANIFEST")
truncate -s $((size - 5)) "$tmp/torn/MANIFEST"
if reader "$tmp/torn" ls >"$tmp/ls.torn.reader" 2>/dev/null &&
   "$CAIRN" ls --json "$tmp/torn" >"$tmp/ls.torn.cairn" 2>/dev/null &&
   compare ls "$tmp/ls.torn.reader" "$tmp/ls.torn.cairn" &&
   [ "$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/ls.torn.reader")" = 1 ]; then
  ok "torn MANIFEST tail: both list revision 1 only"
else
  bad "torn MANIFEST tail handled differently"
fi

# --- a MANIFEST cut inside its first record: the header's committed flag ----
# makes it Corruption for both (not an empty store)
cp -r "$store" "$tmp/cut"
truncate -s 80 "$tmp/cut/MANIFEST"
reader "$tmp/cut" ls >/dev/null 2>"$tmp/err.cut.r"; rr=$?
"$CAIRN" ls "$tmp/cut" >/dev/null 2>"$tmp/err.cut.c"; rc=$?
if [ $rr -eq 2 ] && grep -q "Corruption.*offset 64" "$tmp/err.cut.r" &&
   [ $rc -ne 0 ] && grep -q "Corruption.*MANIFEST.*offset 64" "$tmp/err.cut.c"; then
  ok "MANIFEST cut inside its first record: both report Corruption at offset 64"
else
  bad "MANIFEST cut inside its first record: reader rc=$rr ($(cat "$tmp/err.cut.r")), cairn rc=$rc ($(cat "$tmp/err.cut.c"))"
fi

# --- a damaged first record: both skip it (resync) and list revision 2 ------
# (the reader needs checksums to find the next record)
if [ ${#NOVERIFY[@]} -ne 0 ]; then
  echo "NOTE: no xxhash: the damaged-record check is not run"
else
cp -r "$store" "$tmp/mid"
$PY -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(64+1); b=f.read(1); f.seek(64+1); f.write(bytes([b[0]^4]))' "$tmp/mid/MANIFEST"
if reader "$tmp/mid" ls >"$tmp/ls.mid.reader" 2>/dev/null &&
   "$CAIRN" ls --json "$tmp/mid" >"$tmp/ls.mid.cairn" 2>/dev/null &&
   compare ls "$tmp/ls.mid.reader" "$tmp/ls.mid.cairn" &&
   [ "$($PY -c 'import json,sys; print([r["revision"] for r in json.load(open(sys.argv[1]))])' "$tmp/ls.mid.reader")" = "[2]" ]; then
  ok "damaged first MANIFEST record (length field): both skip it and list revision 2"
else
  bad "damaged first MANIFEST record handled differently"
fi
fi

# --- a damaged chunk is detected (only when checksums are verified) ---------
if [ ${#NOVERIFY[@]} -eq 0 ]; then
  cp -r "$store" "$tmp/flip"
  read -r ffile foff fkey frank < <($PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
for ns in d["revisions"][0]["namespaces"]:
    for e in ns["entries"]:
        if e.get("chunks"):
            c = e["chunks"][0]
            print("data.%05d" % c["file_id"], c["offset"] + 7, e["key"], ns["rank"])
            sys.exit(0)' "$tmp/dump.2")
  $PY -c '
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2]))
    f.write(bytes([b[0] ^ 0xFF]))' "$tmp/flip/$ffile" "$foff"
  reader "$tmp/flip" get "$fkey" --rank "$frank" >/dev/null 2>"$tmp/err.r"; rr=$?
  "$CAIRN" get "$tmp/flip" "$fkey" --rank "$frank" >/dev/null 2>/dev/null; rc=$?
  if [ $rr -eq 2 ] && grep -q Corruption "$tmp/err.r" && [ $rc -ne 0 ]; then
    ok "flipped byte in a chunk: both report it"
  else
    bad "flipped byte in a chunk: reader rc=$rr ($(cat "$tmp/err.r")), cairn rc=$rc"
  fi
else
  echo "NOTE: skipping the damaged-chunk check (--no-verify)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
