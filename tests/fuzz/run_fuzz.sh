#!/usr/bin/env bash
# Runs every fuzz target for a bounded time, from seeds made from real
# encodings. Usage: run_fuzz.sh FUZZ_BUILD_DIR [SECONDS_PER_TARGET]
# Default 20 s per target; CAIRN_LONG_TESTS=1 makes it 600 s, and
# CAIRN_FUZZ_SECONDS overrides both. Exit 77 (skipped) when the fuzzers were
# not built (no clang++), with the reason.
set -u
dir=$1
secs=${2:-20}
if [ -n "${CAIRN_LONG_TESTS:-}" ] && [ "${CAIRN_LONG_TESTS}" != 0 ]; then secs=600; fi
secs=${CAIRN_FUZZ_SECONDS:-$secs}
if [ ! -x "$dir/make_fuzz_seeds" ]; then
  echo "SKIP: fuzzers not built in $dir (clang++ with libFuzzer is needed: scripts/install_deps.sh installs it)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/cairn-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT
"$dir/make_fuzz_seeds" "$work/seeds" || { echo "FAIL: make_fuzz_seeds"; exit 1; }
failed=0
for t in manifest index_table subfile_header tags entry_body array_meta; do
  mkdir -p "$work/corpus-$t" "$dir/artifacts/$t"
  # Leaks are checked too: the decoders own no memory beyond their results.
  if "$dir/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix="$dir/artifacts/$t/" \
       "$work/corpus-$t" "$work/seeds/$t" >"$work/log-$t" 2>&1; then
    echo "fuzz_$t: $(grep -E '^stat::number_of_executed_units' "$work/log-$t" | awk '{print $2}') runs in ${secs}s, no failure"
  else
    failed=1
    echo "FAIL: fuzz_$t"
    tail -40 "$work/log-$t"
    for a in "$dir/artifacts/$t"/*; do [ -f "$a" ] && { echo "input ($a):"; od -A d -t x1 "$a" | head -20; }; done
  fi
done
exit $failed
