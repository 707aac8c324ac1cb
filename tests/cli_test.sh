#!/usr/bin/env bash
# The cairn tool on a real store: ls, info, keys, get (with --json), and
# verify failing, naming the object, after a flipped byte in each kind of file.
# Usage: cli_test.sh CRASH_WRITER CAIRN_TOOL MPIEXEC
set -u
writer=$1 tool=$2 mpiexec=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-cli-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0 checks=0
check() { checks=$((checks + 1)); if ! eval "$2"; then echo "FAIL: $1"; failures=$((failures + 1)); fi; }
s="$tmp/store"
"$mpiexec" -n 2 "$writer" "$s" write 1 >/dev/null 2>&1 && "$mpiexec" -n 2 "$writer" "$s" write 2 >/dev/null 2>&1 || { echo "FAIL: setup"; exit 1; }

check "ls lists 2 revisions" '[ "$("$tool" ls "$s" | tail -n +2 | wc -l)" -eq 2 ]'
check "ls --json" '"$tool" ls "$s" --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert [r[\"revision\"] for r in d]==[1,2] and d[1][\"ranks\"]==2 and d[1][\"objects\"]==13"'
check "info --json" '"$tool" info "$s" --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"ranks\"]==2 and len(d[\"namespaces\"])==3"'
check "keys lists 12 keys and the shared one, with tags" '[ "$("$tool" keys "$s" | grep -c "rev=2")" -eq 13 ]'
check "keys --json --rank 1" '"$tool" keys "$s" --rank 1 --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert len(d)==6 and all(o[\"rank\"]==1 and o[\"tags\"][\"rev\"]==2 for o in d)"'
check "get of an older revision" '[ "$("$tool" get "$s" v1 --rank 1 --revision 1 | wc -c)" -eq 43000 ]'
check "keys --shared lists the shared object" '"$tool" keys "$s" --shared | grep -q "^shared	meta	10	rev=2"'
check "get --shared" '[ "$("$tool" get "$s" meta --shared)" = "revision 2" ]'
check "get of a missing key fails" '! "$tool" get "$s" nope 2>/dev/null'
check "verify passes on an intact store" '"$tool" verify "$s" >/dev/null'
# Rough edges: JSON errors under --json, --rank validated, get asks for a
# rank on a multi-rank store, tag types (widths) in keys --json.
check "--version" '"$tool" --version | grep -Eq "^cairn [0-9]+\.[0-9]+\.[0-9]+$"'
check "keys --rank -3 is an error, not every rank" '! "$tool" keys "$s" --rank -3 >"$tmp/k3" 2>"$tmp/k3e" && [ ! -s "$tmp/k3" ] && grep -q -- "--rank" "$tmp/k3e"'
check "get --rank -3 is an error" '! "$tool" get "$s" v1 --rank -3 >/dev/null 2>&1'
check "get on a 2-rank store without --rank asks for one" '! "$tool" get "$s" v1 >"$tmp/g0" 2>"$tmp/g0e" && [ ! -s "$tmp/g0" ] && grep -q "written by 2 ranks.*--rank 0..1" "$tmp/g0e"'
check "a failed keys --json prints a JSON error" '! "$tool" keys "$tmp/absent" --json >"$tmp/je" && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"error\"][\"code\"]==\"NotFound\" and sys.argv[2] in d[\"error\"][\"message\"]" "$tmp/je" "$tmp/absent"'
check "a bad option under --json is a JSON error" '! "$tool" keys "$s" --json --rank -3 >"$tmp/je2" && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert \"rank\" in d[\"error\"][\"message\"]" "$tmp/je2"'
check "verify --json of a missing store is a JSON error" '! "$tool" verify "$tmp/absent" --json >"$tmp/je3" && python3 -c "import json,sys; json.load(open(sys.argv[1]))[\"error\"]" "$tmp/je3"'
check "keys --json keeps tag widths" '"$tool" keys "$s" --rank 0 --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert all(o[\"tag_types\"]==({\"rev\": \"uint64\"}) for o in d)"'

# A flipped byte in a value of the newest revision (its extents start at
# revision 1's high-water mark): verify fails and names the object.
cp -r "$s" "$tmp/c1"
hw=$("$tool" info "$s" --revision 1 --json | python3 -c "import json,sys; print(json.load(sys.stdin)['data_files'][0]['high_water'])")
flip() { python3 -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(int(sys.argv[2])); b=f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0]^1]))" "$1" "$2"; }
flip "$tmp/c1/data.00000" $((hw + 5000))
"$tool" verify "$tmp/c1" >"$tmp/v1" 2>&1; rc=$?
check "verify fails on a flipped data byte" '[ $rc -ne 0 ]'
check "verify names the corrupt object" 'grep -q "CORRUPT .*key '"'"'v" "$tmp/v1"'
key=$(grep -o "rank [0-9] key 'v[0-9]'" "$tmp/v1" | head -1)
r=$(echo "$key" | cut -d" " -f2); k=$(echo "$key" | grep -o "v[0-9]")
check "get reports corruption and prints no data" '! "$tool" get "$tmp/c1" "$k" --rank "$r" >"$tmp/g" 2>"$tmp/ge" && grep -q Corruption "$tmp/ge" && [ ! -s "$tmp/g" ]'
check "get of a corrupt value exits 2, as verify does" '"$tool" get "$tmp/c1" "$k" --rank "$r" >/dev/null 2>&1; [ $? -eq 2 ]'
check "get of a missing key exits 1, not 2" '"$tool" get "$tmp/c1" nosuchkey --rank "$r" >/dev/null 2>&1; [ $? -eq 1 ]'
# A failed get -o leaves what was at the path: a regular file (an earlier
# extract) as it was, a FIFO (or /dev/null) in place. Before, the path was
# removed, whatever it was.
echo precious >"$tmp/prev.out"
check "a failed get -o keeps an existing file as it was" '"$tool" get "$tmp/c1" "$k" --rank "$r" -o "$tmp/prev.out" 2>/dev/null; [ $? -eq 2 ] && [ "$(cat "$tmp/prev.out")" = precious ] && [ -z "$(ls "$tmp" | grep cairn-)" ]'
mkfifo "$tmp/fifo" && { cat "$tmp/fifo" >/dev/null & }
check "a failed get -o into a FIFO leaves the FIFO" '"$tool" get "$tmp/c1" "$k" --rank "$r" -o "$tmp/fifo" 2>/dev/null; [ $? -eq 2 ] && [ -p "$tmp/fifo" ]'
wait
check "a good get -o replaces the existing file" '"$tool" get "$tmp/c1" "$k" --rank "$r" --revision 1 -o "$tmp/prev.out" 2>/dev/null && [ "$(cat "$tmp/prev.out")" != precious ]'
check "the older revision still verifies" '"$tool" verify "$tmp/c1" --revision 1 >/dev/null'
# A flipped byte in revision 1's data: only revision 1 is affected.
cp -r "$s" "$tmp/c4"
flip "$tmp/c4/data.00000" $(( (1 << 20) + 5000 ))
check "verify of revision 1 fails" '! "$tool" verify "$tmp/c4" --revision 1 >/dev/null'
check "verify of revision 2 passes" '"$tool" verify "$tmp/c4" >/dev/null'
# A flipped byte in an index table (rank 0 writes them all in one block,
# the last thing in the revision): the namespace is reported.
cp -r "$s" "$tmp/c5"
idx=$("$tool" info "$s" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['namespaces'][1]['index_offset'])")
flip "$tmp/c5/data.00000" $((idx + 30))
"$tool" verify "$tmp/c5" >"$tmp/v5" 2>&1; rc=$?
check "verify fails on a flipped index byte, naming rank 1's index" '[ $rc -ne 0 ] && grep -q "rank 1: index table checksum" "$tmp/v5"'
check "keys of a namespace with a damaged index exits 2" '"$tool" keys "$tmp/c5" --rank 1 >/dev/null 2>&1; [ $? -eq 2 ]'
# Rank 0's index table of the newest revision damaged: that revision cannot
# be opened, but ls (the manifest) still lists both revisions and verify
# --all checks revision 1 and reports revision 2 (before: both stopped at
# the open with exit 2, listing and checking nothing).
cp -r "$s" "$tmp/c6"
idx0=$("$tool" info "$s" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['namespaces'][0]['index_offset'])")
flip "$tmp/c6/data.00000" $((idx0 + 30))
check "ls lists every revision when the newest one's rank-0 index is damaged" '[ "$("$tool" ls "$tmp/c6" | tail -n +2 | wc -l)" -eq 2 ]'
"$tool" verify "$tmp/c6" --all >"$tmp/v6" 2>&1; rc=$?
check "verify --all checks the older revision and fails the damaged one" '[ $rc -eq 2 ] && grep -q "^revision 1: .*OK$" "$tmp/v6" && grep -q "FAILED: 2$" "$tmp/v6"'
check "keys --json of it exits 2 with a JSON Corruption error" '"$tool" keys "$tmp/c5" --rank 1 --json >"$tmp/kj" 2>/dev/null; [ $? -eq 2 ] && python3 -c "import json,sys; assert json.load(open(sys.argv[1]))[\"error\"][\"code\"]==\"Corruption\"" "$tmp/kj"'
# A flipped byte in the manifest's last record: that revision is not trusted.
cp -r "$s" "$tmp/c2"
size=$(stat -c %s "$tmp/c2/MANIFEST")
python3 -c "import sys; f=open(sys.argv[1],'r+b'); f.seek($size-20); b=f.read(1); f.seek($size-20); f.write(bytes([b[0]^1]))" "$tmp/c2/MANIFEST"
check "a damaged final manifest record leaves revision 1 newest" '"$tool" ls "$tmp/c2" --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert [r[\"revision\"] for r in d]==[1]"'
# A flipped byte in the manifest header: refused as corruption.
cp -r "$s" "$tmp/c3"
python3 -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(20); f.write(b'Z')" "$tmp/c3/MANIFEST"
check "damaged manifest header is reported" '"$tool" ls "$tmp/c3" 2>&1 | grep -q Corruption'
check "verify of a damaged manifest header exits 2 (corruption)" '"$tool" verify "$tmp/c3" >/dev/null 2>&1; [ $? -eq 2 ]'
check "verify --all of a damaged manifest header exits 2" '"$tool" verify "$tmp/c3" --all >/dev/null 2>&1; [ $? -eq 2 ]'
check "repair of a damaged manifest header exits 2 and writes nothing" '"$tool" repair "$tmp/c3" >/dev/null 2>&1; [ $? -eq 2 ] && ! ls "$tmp/c3"/MANIFEST.* >/dev/null 2>&1'
check "verify of a missing store exits 1, not 2" '"$tool" verify "$tmp/absent" >/dev/null 2>&1; [ $? -eq 1 ]'
# A MANIFEST whose header has the committed flag (set after the first
# revision record's fsync) but no intact revision record, cut inside its
# first record or just after the header: verify and repair report damage
# (exit 2), and repair says that nothing can be recovered automatically and
# writes nothing, to the manifest or the data files.
for cut in 64 80; do
  f="$tmp/first$cut"
  cp -r "$s" "$f"
  truncate -s $cut "$f/MANIFEST"
  (cd "$f" && sha256sum MANIFEST data.* >"$tmp/sums$cut")
  "$tool" verify "$f" >"$tmp/fv" 2>&1; rc=$?
  check "cut to $cut: verify exits 2 naming the damage" '[ $rc -eq 2 ] && grep -q "Corruption.*offset 64" "$tmp/fv"'
  "$tool" verify "$f" --all >"$tmp/fva" 2>&1; rc=$?
  check "cut to $cut: verify --all exits 2" '[ $rc -eq 2 ] && grep -q "Corruption" "$tmp/fva"'
  "$tool" verify "$f" --json >"$tmp/fvj" 2>/dev/null; rc=$?
  check "cut to $cut: verify --json exits 2 with a JSON Corruption error" '[ $rc -eq 2 ] && python3 -c "import json,sys; assert json.load(open(sys.argv[1]))[\"error\"][\"code\"]==\"Corruption\"" "$tmp/fvj"'
  "$tool" repair "$f" >"$tmp/fr" 2>&1; rc=$?
  check "cut to $cut: repair exits 2" '[ $rc -eq 2 ]'
  check "cut to $cut: repair says the log was committed and no record is intact" 'grep -q "header says a revision was committed" "$tmp/fr" && grep -q "no revision record after the header is intact" "$tmp/fr"'
  check "cut to $cut: repair says nothing can be recovered and the files are untouched" 'grep -q "Nothing can be recovered automatically" "$tmp/fr" && grep -q "MANIFEST and the data files are left untouched" "$tmp/fr"'
  check "cut to $cut: repair says what the user can do" 'grep -q "Restore MANIFEST from a backup" "$tmp/fr" && grep -q "new store" "$tmp/fr"'
  check "cut to $cut: repair does not blame the header" '! grep -q "not the header" "$tmp/fr"'
  check "cut to $cut: repair wrote nothing" '(cd "$f" && sha256sum -c --quiet "$tmp/sums$cut") && ! ls "$f"/MANIFEST.* >/dev/null 2>&1'
done
# Retention: pin, drop, space (on a copy with four revisions).
cp -r "$s" "$tmp/r"
"$mpiexec" -n 2 "$writer" "$tmp/r" write 3 >/dev/null 2>&1 && "$mpiexec" -n 2 "$writer" "$tmp/r" write 4 >/dev/null 2>&1
check "space --json before any drop" '"$tool" space "$tmp/r" --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"retained_revisions\"]==4 and d[\"dropped_revisions\"]==0 and d[\"referenced_bytes\"]>0 and d[\"data_logical_bytes\"]>0"'
check "pin 2" '"$tool" pin "$tmp/r" 2 >/dev/null && "$tool" ls "$tmp/r" --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert [r[\"pinned\"] for r in d]==[False,True,False,False]"'
check "a negative revision is refused as such, not read as 2^64 - 1" '! "$tool" drop "$tmp/r" -1 2>"$tmp/ne" && grep -q "number >= 0" "$tmp/ne" && ! grep -q 18446744073709551615 "$tmp/ne" && ! "$tool" info "$tmp/r" --revision -1 --json >"$tmp/nj" && grep -q "number >= 0" "$tmp/nj"'
check "drop of a pinned revision is refused" '! "$tool" drop "$tmp/r" 2 2>"$tmp/de" && grep -q pinned "$tmp/de"'
check "drop 1 and 3" '"$tool" drop "$tmp/r" 1 >/dev/null && "$tool" drop "$tmp/r" 3 >/dev/null && "$tool" ls "$tmp/r" --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert [r[\"revision\"] for r in d]==[2,4]"'
check "a dropped revision cannot be opened, clearly" '! "$tool" get "$tmp/r" v1 --rank 1 --revision 1 2>"$tmp/ge" >/dev/null && grep -q "revision 1 .*was dropped" "$tmp/ge"'
check "space shows reclaimable bytes after the drops" '"$tool" space "$tmp/r" --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"dropped_revisions\"]==2 and d[\"reclaimable_bytes\"]>0 and d[\"referenced_bytes\"]+d[\"reclaimable_bytes\"]<=d[\"allocated_bytes\"]"'
check "space text output" '"$tool" space "$tmp/r" | grep -q "^total"'
check "retained revisions still verify" '"$tool" verify "$tmp/r" >/dev/null && "$tool" verify "$tmp/r" --revision 2 >/dev/null'
check "unpin 2, then drop it" '"$tool" unpin "$tmp/r" 2 >/dev/null && "$tool" drop "$tmp/r" 2 >/dev/null'
check "the next writer reuses the space" 'before=$(stat -c %s "$tmp/r/data.00000"); "$mpiexec" -n 2 "$writer" "$tmp/r" write 5 >/dev/null 2>&1 && "$mpiexec" -n 2 "$writer" "$tmp/r" write 6 >/dev/null 2>&1 && [ "$(stat -c %s "$tmp/r/data.00000")" -le "$before" ] && "$tool" verify "$tmp/r" >/dev/null'
check "verify --all passes on the retained revisions" '"$tool" verify "$tmp/r" --all >"$tmp/va" && grep -q "retained revision(s): .* OK$" "$tmp/va"'
check "verify --all --json" '"$tool" verify "$tmp/r" --all --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"ok\"] and d[\"failed\"]==[] and len(d[\"revisions\"])>=2"'
# --all checks every retained revision: a --revision beside it is a usage
# error, not ignored (an outside pass, FINDINGS5.md 8: exit 0 for "-r 99").
check "verify --all refuses --revision" '"$tool" verify "$tmp/r" --all -r 99 >"$tmp/vr" 2>&1; rc=$?; [ $rc -eq 1 ] && grep -q "revision" "$tmp/vr"'
# Usage errors exit 1, as --help and the README say ("1 on any other error";
# they exited with CLI11's codes, 109 for an unknown option).
check "an unknown option exits 1" '"$tool" verify "$tmp/r" --no-such-option >/dev/null 2>&1; [ $? -eq 1 ]'
check "an unknown option with --json exits 1 with a JSON error" '"$tool" verify "$tmp/r" --no-such-option --json >"$tmp/uj" 2>/dev/null; [ $? -eq 1 ] && python3 -c "import json,sys; assert json.load(open(sys.argv[1]))[\"error\"][\"code\"]==\"InvalidArgument\"" "$tmp/uj"'
check "--help exits 0" '"$tool" --help >/dev/null 2>&1'

# A damaged manifest record between intact ones (issue 10, item 6): readers
# skip it, verify --all and writers report it, repair rewrites the manifest.
cp -r "$s" "$tmp/m"
"$mpiexec" -n 2 "$writer" "$tmp/m" write 3 >/dev/null 2>&1 && "$mpiexec" -n 2 "$writer" "$tmp/m" write 4 >/dev/null 2>&1
# Offset of revision 2's record (records: u32 length, u32 type, payload; a
# type-2 payload starts with a u32 length, then the revision number).
rec2=$(python3 -c "
import struct,sys
b=open(sys.argv[1],'rb').read(); o=64
while o+16<=len(b):
    n,t=struct.unpack_from('<II',b,o)
    r=struct.unpack_from('<Q',b,o+8+(4 if t==2 else 0))[0]
    if t in (1,2) and r==2: print(o); break
    o+=n+16" "$tmp/m/MANIFEST")
flip "$tmp/m/MANIFEST" $((rec2 + 30))
check "a damaged middle record: ls shows the intact revisions" '"$tool" ls "$tmp/m" --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert [r[\"revision\"] for r in d]==[1,3,4]"'
check "plain verify of the newest: only the manifest damage is reported" 'out=$("$tool" verify "$tmp/m"); [ $? -eq 2 ] && [ "$(echo "$out" | grep -c "^CORRUPT")" -eq 1 ] && echo "$out" | grep -q "^CORRUPT MANIFEST"'
check "revision 2 is Corruption, not missing" '! "$tool" get "$tmp/m" v1 --rank 1 --revision 2 2>"$tmp/me" >/dev/null && grep -q "Corruption.*offset $rec2" "$tmp/me"'
"$tool" verify "$tmp/m" --all >"$tmp/mv" 2>&1; rc=$?
check "verify --all fails on the damaged manifest, naming the record" '[ $rc -eq 2 ] && grep -q "CORRUPT MANIFEST: the record(s) at offset $rec2" "$tmp/mv" && grep -q "cairn repair" "$tmp/mv"'
check "verify --all checks every retained revision" '[ "$(grep -c "^revision [0-9]*: .* OK$" "$tmp/mv")" -eq 3 ]'
check "a writer (pin) refuses and names cairn repair" '! "$tool" pin "$tmp/m" 3 2>"$tmp/pe" && grep -q "cairn repair" "$tmp/pe"'
"$tool" repair "$tmp/m" >"$tmp/rep" 2>&1; rc=$?
check "repair reports what it dropped and keeps the original" '[ $rc -eq 0 ] && grep -q "dropped damaged record(s) at offset $rec2" "$tmp/rep" && ls "$tmp/m"/MANIFEST.damaged-* >/dev/null && grep -q "pinned revision 1" "$tmp/rep"'
check "after repair verify --all passes" '"$tool" verify "$tmp/m" --all >/dev/null'
check "after repair a job commits again" '"$mpiexec" -n 2 "$writer" "$tmp/m" write 5 >/dev/null 2>&1 && "$tool" ls "$tmp/m" --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert [r[\"revision\"] for r in d]==[1,3,4,5]" && "$tool" verify "$tmp/m" --all >/dev/null'
check "a second repair has nothing to do" '"$tool" repair "$tmp/m" | grep -q "nothing to repair"'
mkdir "$tmp/nostore"
check "repair of a directory that holds no store says so and writes nothing into it" '! "$tool" repair "$tmp/nostore" 2>"$tmp/ne" && grep -q "no cairn store" "$tmp/ne" && [ -z "$(ls -A "$tmp/nostore")" ]'
check "repair of a path that does not exist is NotFound" '! "$tool" repair "$tmp/missing" 2>"$tmp/ne" && grep -q "NotFound" "$tmp/ne" && [ ! -e "$tmp/missing" ]'
# verify --all names a revision whose data is damaged.
cp -r "$s" "$tmp/d"
flip "$tmp/d/data.00000" $(( (1 << 20) + 5000 ))
"$tool" verify "$tmp/d" --all >"$tmp/dv" 2>&1; rc=$?
check "verify --all fails naming revision 1 only" '[ $rc -eq 2 ] && grep -q "FAILED: 1$" "$tmp/dv" && grep -q "^CORRUPT revision 1: " "$tmp/dv"'
# Every revision damaged (three): verify --all names each, in order, and
# lists the store once per pass: the listing it starts with, and one after
# the pass for all its failed revisions (not an open and a listing per
# failed revision). Counted as opens of MANIFEST under strace, against
# those of one `ls` (a listing) and one `verify --revision` (a check).
cp -r "$s" "$tmp/d3"
"$mpiexec" -n 2 "$writer" "$tmp/d3" write 3 >/dev/null 2>&1 || { echo "FAIL: setup of d3"; failures=$((failures + 1)); }
for r in 1 2 3; do flip "$tmp/d3/data.00000" $(( (r << 20) + 5000 )); done
"$tool" verify "$tmp/d3" --all >"$tmp/d3v" 2>&1; rc=$?
check "verify --all of three damaged revisions names each, in order" '[ $rc -eq 2 ] && grep -q "FAILED: 1, 2, 3$" "$tmp/d3v" && [ "$(grep -o "^revision [0-9]*: .*FAILED$" "$tmp/d3v" | cut -d: -f1 | tr "\n" " ")" = "revision 1 revision 2 revision 3 " ] && ! grep -q expired "$tmp/d3v"'
"$tool" verify "$tmp/d3" --all --json >"$tmp/d3j" 2>&1; rc=$?
check "verify --all --json of three damaged revisions" '[ $rc -eq 2 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"failed\"]==[1,2,3] and d[\"expired\"]==[] and [r[\"revision\"] for r in d[\"revisions\"]]==[1,2,3] and not d[\"ok\"]" "$tmp/d3j"'
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
  opens() { strace -f -e trace=openat -o "$tmp/trace" "$@" >/dev/null 2>&1; grep -c 'MANIFEST"' "$tmp/trace"; }
  list=$(opens "$tool" ls "$tmp/d3") one=$(opens "$tool" verify "$tmp/d3" --revision 2) all=$(opens "$tool" verify "$tmp/d3" --all)
  check "verify --all of three failed revisions lists once per pass ($all MANIFEST opens; a listing $list, a check $one)" '[ "$list" -ge 1 ] && [ "$all" -le $((2 * list + 3 * one)) ]'
else
  echo "SKIP: no usable strace: verify --all's listings per pass not counted"
fi

echo "cli checks: $checks, failures: $failures"
echo "$((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
