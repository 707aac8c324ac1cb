#!/usr/bin/env bash
# The cairn tool on global arrays: `cairn arrays` (text, --json, --blocks,
# --revision) and `cairn get ARRAY --select ... [--npy] [-o FILE]` on a store
# that array_tool_writer wrote on 3 ranks (irregular blocks, an empty rank,
# a regular grid), checked by array_check.py (with numpy.load when NumPy is
# importable); bad selections, a flipped data byte, and object gets next to
# arrays.
# Usage: cli_array_test.sh ARRAY_WRITER CAIRN_TOOL MPIEXEC [PYTHON]
set -u
writer=$1 tool=$2 mpiexec=$3
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# A Python with NumPy if there is one (the build's, then Debian's), else any.
py=""
for p in ${4:-} /usr/bin/python3 python3; do
  if "$p" -c "import numpy" 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
  py=python3
  echo "NOTE: no Python with NumPy: .npy files are checked by array_check.py's own parser only"
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-cli-array-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0 checks=0
check() { checks=$((checks + 1)); if ! eval "$2"; then echo "FAIL: $1"; failures=$((failures + 1)); fi; }
ac() { "$py" "$here/array_check.py" "$@" >/dev/null; }
s="$tmp/store"
"$mpiexec" -n 3 "$writer" "$s" >"$tmp/w.log" 2>&1 || { echo "FAIL: setup"; cat "$tmp/w.log"; exit 1; }

check "arrays lists the three arrays with dtype, shape, blocks, layout" \
  '"$tool" arrays "$s" >"$tmp/a" && [ "$(tail -n +2 "$tmp/a" | wc -l)" -eq 3 ] &&
   grep -Eq "^temp +float64 +7x10x4 +6  irregular units=\"K\"	step=42$" "$tmp/a" &&
   grep -Eq "^mask +int16 +5x9 +2  irregular" "$tmp/a" && grep -Eq "^grid +uint8 +8x8 +4  regular" "$tmp/a"'
check "arrays: an array no rank put a block of is listed as empty, not irregular" \
  '"$mpiexec" -n 2 "$writer" "$tmp/es" --empty >"$tmp/es.log" 2>&1 && "$tool" arrays "$tmp/es" >"$tmp/ea" &&
   [ "$(tail -n +2 "$tmp/ea" | wc -l)" -eq 1 ] && grep -Eq "^void +float32 +3x5 +0  empty *$" "$tmp/ea" ||
   { cat "$tmp/es.log" "$tmp/ea"; false; }'
check "arrays --json" \
  '"$tool" arrays "$s" --json | "$py" -c "
import json,sys; d=json.load(sys.stdin)
assert [a[\"name\"] for a in d]==[\"grid\",\"mask\",\"temp\"], d
t=d[2]; assert t[\"dtype\"]==\"float64\" and t[\"shape\"]==[7,10,4] and t[\"blocks\"]==6 and not t[\"regular\"], t
assert t[\"tags\"]=={\"units\":\"K\",\"step\":42} and t[\"tag_types\"]=={\"units\":\"string\",\"step\":\"int64\"}, t
assert d[0][\"regular\"] and d[0][\"dtype\"]==\"uint8\" and d[1][\"dtype\"]==\"int16\" and d[1][\"blocks\"]==2"'
check "arrays --blocks --json: every block with its rank, the empty rank 2 holds no mask block" \
  '"$tool" arrays "$s" --json --blocks | "$py" -c "
import json,sys; d={a[\"name\"]: a for a in json.load(sys.stdin)}
t=sorted((b[\"rank\"],b[\"start\"],b[\"count\"]) for b in d[\"temp\"][\"block_list\"])
assert t==[(0,[0,0,0],[2,3,4]),(0,[0,3,0],[2,7,4]),(1,[2,0,0],[2,3,4]),(1,[2,3,0],[2,7,4]),(2,[4,0,0],[3,3,4]),(2,[4,3,0],[3,7,4])], t
assert sorted(b[\"rank\"] for b in d[\"mask\"][\"block_list\"])==[0,1]"'
check "arrays --blocks (text)" '"$tool" arrays "$s" --blocks | grep -q "^  rank 2: 4:7,3:10,0:4$"'
# mask: rank 0's block (columns 0:4 of 7*i*j - 100) put with statistics, rank 1's without
check "arrays --blocks shows a block's statistics (text)" \
  '"$tool" arrays "$s" --blocks >"$tmp/ab" && grep -q "^  rank 0: 0:5,0:4  min -100 max -16$" "$tmp/ab" &&
   grep -q "^  rank 1: 0:5,4:9$" "$tmp/ab"'
check "arrays --blocks --json: min and max of the blocks put with statistics only" \
  '"$tool" arrays "$s" --json --blocks | "$py" -c "
import json,sys; d={a[\"name\"]: a for a in json.load(sys.stdin)}
m={b[\"rank\"]: b for b in d[\"mask\"][\"block_list\"]}
assert m[0][\"min\"]==-100 and m[0][\"max\"]==-16, m
assert \"min\" not in m[1] and \"max\" not in m[1], m
assert all(\"min\" not in b for b in d[\"temp\"][\"block_list\"])"'
check "arrays --revision 1" '"$tool" arrays "$s" --revision 1 --json | "$py" -c "import json,sys; assert len(json.load(sys.stdin))==3"'

# Sub-boxes across block edges, as .npy and raw, to a file and to stdout.
check "--select across blocks --npy -o" '"$tool" get "$s" temp --select 1:6,2:9,: --npy -o "$tmp/t1.npy" && ac npy "$tmp/t1.npy" temp 1:6,2:9,:'
check "integer indices drop their dimensions (--npy)" '"$tool" get "$s" temp --select 3,:,1 --npy -o "$tmp/t2.npy" && ac npy "$tmp/t2.npy" temp 3,:,1'
check "negative index and implied trailing dimensions" '"$tool" get "$s" temp --select -1 --npy -o "$tmp/t3.npy" && ac npy "$tmp/t3.npy" temp -1'
check "one element (0-d .npy)" '"$tool" get "$s" temp --select 6,9,3 --npy -o "$tmp/t4.npy" && ac npy "$tmp/t4.npy" temp 6,9,3'
check "--npy to standard output" '"$tool" get "$s" temp --select 0:7,-3:,2: --npy >"$tmp/t5.npy" && ac npy "$tmp/t5.npy" temp 0:7,-3:,2:'
check "--array: the whole array, raw, to standard output" '"$tool" get "$s" temp --array >"$tmp/t6" && ac raw "$tmp/t6" temp ""'
check "raw int16 across ranks" '"$tool" get "$s" mask --select :,2:7 -o "$tmp/m1" && ac raw "$tmp/m1" mask :,2:7'
check "uint8 regular grid, whole, .npy" '"$tool" get "$s" grid --npy -o "$tmp/g1.npy" && ac npy "$tmp/g1.npy" grid ""'
check "grid box across the four blocks" '"$tool" get "$s" grid --select 2:7,3:5 --npy -o "$tmp/g2.npy" && ac npy "$tmp/g2.npy" grid 2:7,3:5'
check "an empty slice gives a (0, 10, 4) .npy" '"$tool" get "$s" temp --select 2:2 --npy -o "$tmp/t7.npy" && ac npy "$tmp/t7.npy" temp 2:2'

# Bad selections: a clear error, naming the array and the dimension, and no output file.
bad() {  # bad NAME SELECT PATTERN
  ! "$tool" get "$s" "$1" --select "$2" -o "$tmp/bad.out" 2>"$tmp/bad.err" && [ ! -e "$tmp/bad.out" ] &&
    grep -q "InvalidArgument" "$tmp/bad.err" && grep -q "array '$1'" "$tmp/bad.err" && grep -q -- "$3" "$tmp/bad.err"
}
check "a slice past the shape" 'bad temp 0:8 "dimension 0 (.0:8.): the end 8 is outside the extent 7"'
check "an index past the shape" 'bad temp :,10 "dimension 1 (.10.): index 10 is outside 0..9"'
check "a negative index before the start" 'bad temp -8 "index -8 is outside"'
check "too many dimensions" 'bad temp 0,0,0,0 "has 4 dimensions but array .temp. (shape 7x10x4) has 3"'
check "a step" 'bad temp 0:4:2 "steps (a:b:c) are not supported"'
check "not a number" 'bad mask x "expected an index a, or a slice"'
check "an end before the start" 'bad mask 3:1 "the end 1 is before the start 3"'
check "an empty item" 'bad mask ",1" "empty item"'
check "a missing array is NotFound" '! "$tool" get "$s" nope --array 2>"$tmp/e" >/dev/null && grep -q NotFound "$tmp/e" && grep -q nope "$tmp/e"'
check "--rank with an array is refused" '! "$tool" get "$s" temp --select 0 --rank 1 2>"$tmp/e" >/dev/null && grep -q "array .temp. is global" "$tmp/e"'
# Objects as before: a name without --array/--select/--npy is a key.
check "get of an object next to arrays" '[ "$("$tool" get "$s" note --rank 2)" = arrays ]'
check "get of an object -o FILE" '"$tool" get "$s" note --rank 1 -o "$tmp/n" && [ "$(cat "$tmp/n")" = arrays ]'
check "an array name is not an object key" '! "$tool" get "$s" temp --rank 0 2>/dev/null >/dev/null'
check "an object key is not an array" '! "$tool" get "$s" note --array 2>"$tmp/e" >/dev/null && grep -q NotFound "$tmp/e"'

# A flipped byte in temp's data (the element (3, 5, 2) = 30502.5): a box
# holding it is Corruption with no output file, never wrong data.
cp -r "$s" "$tmp/c"
off=$("$py" -c "
import struct,sys; b=open(sys.argv[1],'rb').read(); p=b.find(struct.pack('<d', 30502.5)); assert p>=0 and b.find(struct.pack('<d', 30502.5), p+1)<0; print(p)" "$tmp/c/data.00000")
"$py" -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(int(sys.argv[2])); b=f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0]^1]))" "$tmp/c/data.00000" "$off"
check "a box over a flipped byte is Corruption, no file written" '! "$tool" get "$tmp/c" temp --select 3,5,2 -o "$tmp/c.out" 2>"$tmp/ce" && grep -q Corruption "$tmp/ce" && [ ! -e "$tmp/c.out" ]'
check "the whole array over a flipped byte is Corruption, nothing printed" '! "$tool" get "$tmp/c" temp --npy >"$tmp/c2.out" 2>"$tmp/ce" && grep -q Corruption "$tmp/ce" && [ ! -s "$tmp/c2.out" ]'

echo "cli array checks: $checks, failures: $failures"
echo "$((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
