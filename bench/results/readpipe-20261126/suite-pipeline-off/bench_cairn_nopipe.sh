#!/bin/sh
# bench_cairn of this branch with the read pipeline off (same binary).
# CAIRN_READ_PIPELINE exists only in a build of commit d5e242f (the pipeline is out since 05ca5b5).
CAIRN_READ_PIPELINE=0 exec "$(dirname "$0")/../../../../build/bench/bench_cairn" "$@"
