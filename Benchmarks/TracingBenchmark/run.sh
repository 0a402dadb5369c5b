#!/usr/bin/env bash
# Builds and runs the tracing benchmark with malloc-interposer preloaded (allocation counts).
# usage: Benchmarks/TracingBenchmark/run.sh [--spans N] [--reps R]
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release >/dev/null
bin=$(swift build -c release --show-bin-path)
LD_PRELOAD="$bin/libMallocInterposerSwift.so" "$bin/tracing-benchmark" "$@"
