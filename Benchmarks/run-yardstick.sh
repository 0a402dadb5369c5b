#!/usr/bin/env bash
# Runs OTLPWire's encoder beside the reference peers of ../shared/yardstick, then measures decoding.
#
#   Benchmarks/run-yardstick.sh            full run (N=200000, REPS=5; about 10 minutes, longer on first build)
#   Benchmarks/run-yardstick.sh --smoke    CI smoke run: a small N, two peers, hashes must agree
#
# Every figure is printed beside a baseline measured in the same run. Environment: N, REPS, ROUNDS, PEERS
# (passed to the yardstick), DECODE_ITEMS (workload size for decoding, default 200000), DECODE_ROUNDS
# (interleaved decoding rounds, default 3), BIG_FILE_MB
# (size of the big-file memory check, default 1024; 0 skips it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/../shared}
yardstick=$shared/yardstick
out=$root/.build-bench
mkdir -p "$out"
smoke=false
[ "${1:-}" = "--smoke" ] && smoke=true

[ -x "$yardstick/run.sh" ] || { echo "no yardstick at $yardstick" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

echo "== building release binaries"
(cd "$root" && swift build -c release --product yardstick-peer >/dev/null)
# valgrind 3.19 cannot read the DWARF 5 that clang emits for the C targets: run a copy without debug
# sections (symbols stay), so instructions.sh can count it too.
peer=$out/yardstick-peer
objcopy --strip-debug "$root/.build/release/yardstick-peer" "$peer"
if $smoke; then
  # The smoke run checks that decoding runs and agrees, not its speed: the debug otlp-dump that make test
  # built serves (a release build of it and of SwiftNIO, which its send command links, takes CI minutes).
  (cd "$root" && swift build --product otlp-dump >/dev/null)
  dump=$root/.build/debug/otlp-dump
else
  (cd "$root" && swift build -c release --product otlp-dump >/dev/null)
  dump=$root/.build/release/otlp-dump
fi

echo "== encoding: yardstick peers (PROTO_ROOT = our proto/)"
export YS_BUILD_DIR=${YS_BUILD_DIR:-$root/.build-yardstick}
if $smoke; then
  PROJECT_PEER=$peer N=${N:-2048} REPS=${REPS:-1} PEERS=${PEERS:-"project c-protobuf-c+strcopy"} \
    "$yardstick/run.sh" "$root/proto"
  # The peer's own output must carry the reference hashes of WORKLOAD.md.
  "$peer" --signal traces --mode build+encode --items 2048 --reps 1 2>/dev/null | grep -q aa53a47aec31e92be92e45e01f56553ce6f960177b25a04a2d44204ee7328da0
  "$peer" --signal logs --mode build+encode --items 2048 --reps 1 2>/dev/null | grep -q f9340fbdaa9d0dd435c6f37da534f52fa27f383b781c06cbf56999bf7a6d09d5
  decode_items=${DECODE_ITEMS:-20000}
  decode_rounds=${DECODE_ROUNDS:-1}
  big_mb=${BIG_FILE_MB:-0}
else
  PROJECT_PEER=$peer "$yardstick/run.sh" "$root/proto"
  echo
  echo "== instructions per item (callgrind; repeatable on a noisy machine)"
  PROJECT_PEER=$peer PEERS=${INSTRUCTION_PEERS:-"project swift-handwritten c-protobuf-c c-protobuf-c+strcopy cpp-protobuf swift-protobuf"} \
    "$yardstick/instructions.sh" "$root/proto"
  decode_items=${DECODE_ITEMS:-200000}
  decode_rounds=${DECODE_ROUNDS:-3}
  big_mb=${BIG_FILE_MB:-1024}
fi

echo
echo "== decoding: otlp-dump vs the reference Python decoder (upb), same files, same run"
# Whole processes, DECODE_ROUNDS rounds (default 3) interleaved: each round times the reference, then
# otlp-dump. Wall time moves with the machine's other load; CPU time (user + system, /usr/bin/time) much less,
# so both are shown, as the median of the rounds' ratios (reference time / otlp-dump time: above 1 is faster).
timed() {  # timed CMD... -> "wall cpu" seconds of the whole process
  /usr/bin/time -f "%e %U %S" -o "$out/time.txt" "$@" >/dev/null
  local wall user sys
  read -r wall user sys < "$out/time.txt"
  echo "$wall $(echo "$user + $sys" | bc -l)"
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { echo "$1 / $2" | bc -l; }
printf '| signal | MB | otlp-dump validate MB/s | python parse MB/s | ratio (wall) | ratio (CPU) | otlp-dump --format json MB/s | python to JSON MB/s | ratio (wall) |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for signal in traces logs; do
  file=$out/$signal.u32be.bin
  "$peer" --signal $signal --mode build+encode --items "$decode_items" --reps 1 --dump "$file" >/dev/null 2>&1
  mb=$(echo "$(stat -c %s "$file") / 1000000" | bc -l)
  walls="" cpus="" jwalls="" v_best="" pv_best="" j_best="" pj_best=""
  for _ in $(seq "$decode_rounds"); do
    read -r pv pvc <<<"$(timed python3 "$root/scripts/reference-decode.py" "$file" u32be $signal --parse-only)"
    read -r v vc <<<"$(timed "$dump" validate --signal $signal "$file")"
    read -r pj _ <<<"$(timed python3 "$root/scripts/reference-decode.py" "$file" u32be $signal)"
    read -r j _ <<<"$(timed "$dump" --format json --signal $signal "$file")"
    walls="$walls $(ratio "$pv" "$v")" cpus="$cpus $(ratio "$pvc" "$vc")" jwalls="$jwalls $(ratio "$pj" "$j")"
    v_best=$(printf '%s\n' $v_best $v | sort -g | head -1) pv_best=$(printf '%s\n' $pv_best $pv | sort -g | head -1)
    j_best=$(printf '%s\n' $j_best $j | sort -g | head -1) pj_best=$(printf '%s\n' $pj_best $pj | sort -g | head -1)
  done
  printf '| %s | %.1f | %.1f | %.1f | %.2f | %.2f | %.1f | %.1f | %.2f |\n' $signal "$mb" \
    "$(ratio "$mb" "$v_best")" "$(ratio "$mb" "$pv_best")" "$(echo "$walls" | median)" "$(echo "$cpus" | median)" \
    "$(ratio "$mb" "$j_best")" "$(ratio "$mb" "$pj_best")" "$(echo "$jwalls" | median)"
done
echo "(MB/s: the fastest of $decode_rounds rounds; ratios: the median of the rounds' ratios)"

if ! $smoke; then
  echo
  echo "== otlp-dump validate: instructions per item (callgrind; the process's fixed cost taken out)"
  # Two files of the same workload, 20,480 and 512 items: the difference over the 19,968 items between them.
  dump_copy=$out/otlp-dump-stripped
  objcopy --strip-debug "$dump" "$dump_copy"
  instructions() {  # instructions FILE SIGNAL -> instructions of the whole validate process
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$dump_copy" validate --signal "$2" "$1" 2>&1 >/dev/null |
      sed -n 's/.*Collected : *//p'
  }
  for signal in traces logs; do
    for items in 512 20480; do
      "$peer" --signal $signal --mode build+encode --items $items --reps 1 --dump "$out/$signal-$items.u32be.bin" >/dev/null 2>&1
    done
    small=$(instructions "$out/$signal-512.u32be.bin" $signal)
    big=$(instructions "$out/$signal-20480.u32be.bin" $signal)
    printf '%s: %.0f instructions per %s\n' $signal "$(echo "($big - $small) / 19968" | bc -l)" \
      "$([ $signal = traces ] && echo span || echo 'log record')"
  done
fi

if [ "$big_mb" -gt 0 ]; then
  echo
  echo "== peak memory of otlp-dump on a ${big_mb} MB framed file"
  big=$out/big.u32be.bin
  : > "$big"
  while [ "$(stat -c %s "$big")" -lt $((big_mb * 1000000)) ]; do cat "$out/traces.u32be.bin" >> "$big"; done
  for args in "validate" "--format json" "stats"; do
    /usr/bin/time -f "%M %e" -o "$out/time.txt" "$dump" $args --signal traces "$big" >/dev/null
    read -r kb secs < "$out/time.txt"
    printf 'otlp-dump %-14s %6.0f MB file: peak RSS %5.1f MB, %5.1f s, %6.1f MB/s\n' "$args" \
      "$(echo "$(stat -c %s "$big") / 1000000" | bc -l)" "$(echo "$kb / 1024" | bc -l)" "$secs" \
      "$(echo "$(stat -c %s "$big") / 1000000 / $secs" | bc -l)"
  done
  rm -f "$big"
fi
