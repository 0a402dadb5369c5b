#!/usr/bin/env bash
# gzip beside zstd on the same files: otlp-dump convert writing each (--to u32be --gzip, --to u32be --zstd:
# the Collector's zstd layout) and otlp-dump validate reading each back, in interleaved rounds, as MB/s of the
# uncompressed protobuf, with each file's size as a ratio to gzip's.
#
#   Benchmarks/Compression/run.sh            release otlp-dump, 200,000 items per signal, 3 rounds
#   Benchmarks/Compression/run.sh --smoke    debug otlp-dump (the one make test builds), 2,000 items, 1 round
#
# Environment: ITEMS, ROUNDS. The workload is the yardstick's (Benchmarks/Sources/yardstick-peer --dump).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/.build-bench/compression
mkdir -p "$out"
smoke=false
[ "${1:-}" = "--smoke" ] && smoke=true
if $smoke; then
  configuration=debug items=${ITEMS:-2000} rounds=${ROUNDS:-1}
else
  configuration=release items=${ITEMS:-200000} rounds=${ROUNDS:-3}
fi
(cd "$root" && swift build -c "$configuration" --product otlp-dump >/dev/null && swift build -c release --product yardstick-peer >/dev/null)
dump=$root/.build/$configuration/otlp-dump
peer=$root/.build/release/yardstick-peer

seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); echo "$end - $start" | bc -l; }
megabytes() { echo "$(stat -c %s "$1") / 1000000" | bc -l; }

echo "== gzip and zstd on the same files ($configuration otlp-dump, $items items, $rounds interleaved rounds; MB/s of the uncompressed protobuf)"
printf '| signal | MB | layout | size | ratio to gzip | write MB/s (convert) | read MB/s (validate) |\n'
printf '| --- | --- | --- | --- | --- | --- | --- |\n'
for signal in traces logs; do
  plain=$out/$signal.u32be.bin
  "$peer" --signal $signal --mode build+encode --items "$items" --reps 1 --dump "$plain" >/dev/null 2>&1
  mb=$(megabytes "$plain")
  declare -A write=() read=()
  for layout in gzip zstd; do write[$layout]=0; read[$layout]=0; done
  for ((round = 1; round <= rounds; round++)); do
    for layout in gzip zstd; do
      file=$out/$signal.$layout.u32be.bin
      rm -f "$file"
      w=$(seconds "$dump" convert "$plain" "$file" --to u32be --$layout)
      r=$(seconds "$dump" validate "$file")
      write[$layout]=$(echo "${write[$layout]} + $w" | bc -l)
      read[$layout]=$(echo "${read[$layout]} + $r" | bc -l)
    done
  done
  gzip_size=$(stat -c %s "$out/$signal.gzip.u32be.bin")
  for layout in gzip zstd; do
    size=$(stat -c %s "$out/$signal.$layout.u32be.bin")
    printf '| %s | %.1f | %s | %d | %.2fx | %.0f | %.0f |\n' $signal "$mb" $layout "$size" \
      "$(echo "$size / $gzip_size" | bc -l)" \
      "$(echo "$mb * $rounds / ${write[$layout]}" | bc -l)" "$(echo "$mb * $rounds / ${read[$layout]}" | bc -l)"
  done
  unset write read
done
