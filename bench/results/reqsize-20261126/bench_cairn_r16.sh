#!/bin/sh
CAIRN_X_REQ=16777216 exec /tmp/abx/bench_cairn_knob "$@"
