#!/usr/bin/env bash
# Builds and runs the tracing benchmark with malloc-interposer preloaded (allocation counts).
# usage: Benchmarks/TracingBenchmark/run.sh [--spans N] [--reps R]
#        Benchmarks/TracingBenchmark/run.sh --whole-process [--spans N] [--rounds R] [--gzip-levels 6,1]
#        (each configuration in a process of its own, without the allocation counter)
set -euo pipefail
cd "$(dirname "$0")"
log=$(mktemp)
# The build's output is shown only when it fails (swift build prints its errors on stdout).
swift build -c release >"$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; exit 1; }
rm -f "$log"
bin=$(swift build -c release --show-bin-path)
LD_PRELOAD="$bin/libMallocInterposerSwift.so" "$bin/tracing-benchmark" "$@"
