#!/usr/bin/env bash
# The tool's --json output is JSON text (UTF-8) when keys, tag names and
# string tags hold bytes that are not UTF-8: such a byte is the escape
# \udcXX, which Python's json.loads and .encode("utf-8", "surrogateescape")
# turn back into the byte. Before, the bytes were printed raw and no JSON
# parser read the output (found by an outside test pass).
# Usage: cli_json_bytes_test.sh JSON_BYTES_WRITER CAIRN_TOOL
set -u
writer=$1 tool=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-json-bytes-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0 checks=0
check() { checks=$((checks + 1)); if ! eval "$2"; then echo "FAIL: $1"; failures=$((failures + 1)); fi; }
s="$tmp/store"
"$writer" "$s" || { echo "FAIL: setup"; exit 1; }
# json.loads of the raw bytes: fails on any byte sequence that is not UTF-8.
load='import json,sys; d=json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))'
back='def b(x): return x.encode("utf-8","surrogateescape")'
"$tool" keys "$s" --json >"$tmp/keys.json"
check "keys --json is UTF-8 JSON" 'python3 -c "$load" "$tmp/keys.json"'
check "keys --json gives the key, tag name and tag bytes back" 'python3 -c "$load
$back
o = {b(x[\"key\"]): x for x in d}
t = o[b\"\\xff\\xfekey\"][\"tags\"]
assert {b(k): b(v) for k, v in t.items()} == {b\"na\\xe9me\": b\"caf\\xe9\", b\"ok\": \"\\u00e9t\\u00e9 \\\"q\\\"\\\\\".encode()}, t
assert b\"cut\\xe2\\x82\" in o, o" "$tmp/keys.json"'
check "keys --json: float tags that are not finite, scalars and array elements, as strings" 'python3 -c "$load
o = {x[\"key\"]: x for x in d if isinstance(x[\"key\"], str)}
t = o[\"nonfinite\"][\"tags\"]
assert t == {\"nan\": \"nan\", \"a64\": [\"nan\", \"inf\", \"-inf\", 1.5], \"a32\": [\"nan\", 2.5]}, t" "$tmp/keys.json"'
"$tool" arrays "$s" --json >"$tmp/arrays.json"
check "arrays --json is UTF-8 JSON with the name and tag bytes" 'python3 -c "$load
$back
assert b(d[0][\"name\"]) == b\"arr\\x80\" and b(d[0][\"tags\"][\"units\"]) == b\"\\xed\\xa0\\x80\", d
assert d[0][\"tags\"][\"range\"] == [\"nan\", \"inf\", \"-inf\", 1.5], d" "$tmp/arrays.json"'
"$tool" keys "$tmp/$(printf 'absent\xff')" --json >"$tmp/err.json"
check "a JSON error naming a path that is not UTF-8 is UTF-8 JSON" 'python3 -c "$load; assert d[\"error\"][\"code\"] == \"NotFound\", d" "$tmp/err.json"'
echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
