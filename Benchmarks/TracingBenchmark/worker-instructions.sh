#!/usr/bin/env bash
# Instructions per item of the batching worker thread (callgrind), for spans and for log records: the burst
# workload (BurstBenchmark) with one signal at a time and a queue large enough that nothing is dropped, so the
# worker does every item's deferred work and export (encode, check, frame, gzip for logs, write).
# usage: Benchmarks/TracingBenchmark/worker-instructions.sh [ITEMS per thread, default 2500] (4 threads)
# environment: QUEUE=default runs the default queue (2,048) with whenFull wait instead (nothing dropped either):
#   callers then render batches themselves and the worker's share per item is what is left to it;
#   TRACING_BENCHMARK=<executable> measures that build (e.g. a copy made before a change) instead
#   of building this package's
set -euo pipefail
cd "$(dirname "$0")"
items=${1:-2500}
command -v valgrind >/dev/null || { echo "needs valgrind (make bench-deps)" >&2; exit 1; }
if [ -z "${TRACING_BENCHMARK:-}" ]; then
  swift build -c release --product tracing-benchmark >/dev/null
  TRACING_BENCHMARK=$(swift build -c release --show-bin-path)/tracing-benchmark
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# valgrind 3.19 cannot read the DWARF 5 that clang emits: a copy without debug sections (symbols stay).
objcopy --strip-debug "$TRACING_BENCHMARK" "$out/tracing-benchmark"
cp "$(dirname "$TRACING_BENCHMARK")"/lib*.so "$out/" 2>/dev/null || true
for signal in traces logs; do
  total=$((4 * items))
  if [ "${QUEUE:-}" = default ]; then queue="--when-full wait"; else queue="--queue $((total * 2))"; fi
  (cd "$out" && valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg.$signal" \
    ./tracing-benchmark --burst --threads 4 --items "$items" --runs 1 $queue --only "$signal" >/dev/null 2>"$out/log.$signal")
  # The worker: the thread whose profile holds OTLPBatchStage's work loop and the most instructions.
  best=0
  for file in "$out"/cg.$signal-*; do
    grep -q 'OTLPBatchStage.*4work' "$file" || continue
    n=$(sed -n 's/^totals: *//p;s/^summary: *//p' "$file" | head -n 1)
    if [ "${n:-0}" -gt "$best" ]; then best=$n; fi
  done
  noun=$([ "$signal" = traces ] && echo span || echo "log record")
  printf 'batching worker: %s instructions per %s (%d items, %s, callgrind)\n' "$(echo "$best / $total" | bc)" "$noun" "$total" \
    "$([ "${QUEUE:-}" = default ] && echo "default queue, whenFull wait" || echo "queue holding the whole run")"
done
