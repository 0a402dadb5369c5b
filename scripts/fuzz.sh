#!/usr/bin/env bash
# Builds the libFuzzer targets (FuzzTesting/, release, -sanitize=fuzzer,address) and runs each for a fixed time.
#
#   scripts/fuzz.sh                 every target, FUZZ_SECONDS each (default 600)
#   scripts/fuzz.sh FuzzDecoder     one target
#   FUZZ_SEED=1 scripts/fuzz.sh     a fixed random seed (make fuzz-smoke), so a run's mutations can be replayed
#
# Seeds: Tests/Fixtures/vectors and Tests/Fixtures/metrickit-samples (copied into .build-fuzz/corpus/<target>, which
# keeps what the fuzzer finds between runs). A crash leaves its input in FuzzTesting/FailCases/<target>/:
# fix the bug, move the input next to the tests of the module at fault and add a regression test that
# replays it (as Tests/OTLPMetricKitTests/FailCases and FuzzRegressionTests.swift do).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/Tests/Fixtures}
seconds=${FUZZ_SECONDS:-600}
seed_option=()
[ -z "${FUZZ_SEED:-}" ] || seed_option=(-seed="$FUZZ_SEED")
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzFrameReader FuzzDecoder FuzzMetricsDecoder FuzzJSONLines FuzzResponses FuzzMetricKit FuzzMetricKitArithmetic FuzzJSONNumbers FuzzRoundTrip FuzzTreePrinter FuzzConfiguration)
cd "$root/FuzzTesting"
# Release builds (-O keeps Swift's bounds and overflow checks) run several times faster than debug ones.
# SwiftPM passes -sanitize=fuzzer to every Swift module, yet identical clean builds came out with the Swift
# objects instrumented for coverage or not (2026-11-22, Swift 6.3.1: only the C objects had __sancov
# sections), and a blind fuzzer reports "INITED" without "cov:". Naming the coverage kinds libFuzzer uses
# explicitly made every build instrumented; the probe below still checks, and rebuilds (up to 3 times).
flags=(-c release --sanitize=fuzzer --sanitize=address
       -Xswiftc -sanitize-coverage=edge,indirect-calls,trace-cmp,inline-8bit-counters,pc-table)
bin=""
for attempt in 1 2 3; do
  rm -rf .build
  swift build "${flags[@]}" >/dev/null
  bin=$(swift build "${flags[@]}" --show-bin-path)
  probe=$(mktemp -d)
  printf '{}' > "$probe/seed"
  # The probe's output is read whole before grep: `grep -q` closes the pipe at its first match, and under
  # pipefail the fuzzer's SIGPIPE on its next line would fail the check of an instrumented build.
  probe_output=$("$bin/FuzzConfiguration" -runs=1 "$probe" 2>&1 || true)
  if grep -q "INITED cov:" <<<"$probe_output"; then rm -rf "$probe"; break; fi
  rm -rf "$probe"
  echo "build $attempt is not instrumented for coverage; rebuilding" >&2
  [ "$attempt" -lt 3 ] || { echo "no instrumented build after 3 attempts" >&2; exit 1; }
done

seed() {
  local target=$1 corpus=$2
  mkdir -p "$corpus"
  case $target in
    FuzzFrameReader)
      for f in "$shared"/vectors/framed/* "$shared"/vectors/bad/* "$shared"/vectors/traces/*.pb "$shared"/vectors/logs/*.pb; do cp -n "$f" "$corpus/$(basename "$(dirname "$f")")-$(basename "$f")"; done
      # zstd: whole files (the zstd tool), and u32be records of one zstd frame each (the Collector's layout).
      for f in "$shared"/vectors/framed/traces-mixed.jsonl "$shared"/vectors/framed/logs-mixed.u32be.bin; do
        zstd -q -c --check "$f" > "$corpus/zstd-$(basename "$f").zst"
      done
      python3 -c 'import sys, zstandard
data = open(sys.argv[1], "rb").read(); out = bytearray(); pos = 0
while pos < len(data):
    n = int.from_bytes(data[pos:pos + 4], "big"); frame = zstandard.ZstdCompressor().compress(data[pos + 4:pos + 4 + n])
    out += len(frame).to_bytes(4, "big") + frame; pos += 4 + n
open(sys.argv[2], "wb").write(out)' "$shared"/vectors/framed/traces-mixed.u32be.bin "$corpus/zstd-records-traces.u32be.bin" ;;
    FuzzDecoder) for f in "$shared"/vectors/traces/*.pb "$shared"/vectors/logs/*.pb "$shared"/vectors/bad/*.pb; do cp -n "$f" "$corpus/$(basename "$(dirname "$f")")-$(basename "$f")"; done ;;
    FuzzMetricsDecoder)
      # The reference package's metrics requests (every data kind, and messages protobuf merges), each a seed,
      # protobuf and OTLP JSON.
      local fixtures; fixtures=$(mktemp -d)
      python3 "$root/scripts/reference-metrics.py" "$fixtures"
      python3 - "$fixtures" "$corpus" <<'PY'
import sys
fixtures, corpus = sys.argv[1:3]
for name in ("metrics.u32be.bin", "merged.u32be.bin"):
    data, pos, n = open(f"{fixtures}/{name}", "rb").read(), 0, 0
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        open(f"{corpus}/{name}-{n}", "wb").write(data[pos + 4:pos + 4 + length])
        pos, n = pos + 4 + length, n + 1
for n, line in enumerate(open(f"{fixtures}/metrics.jsonl", "rb").read().split(b"\n")):
    if line.strip():
        open(f"{corpus}/metrics.json-{n}", "wb").write(line)
PY
      rm -rf "$fixtures" ;;
    FuzzJSONLines) for f in "$shared"/vectors/framed/*.jsonl "$shared"/vectors/traces/*.json "$shared"/vectors/logs/*.json; do cp -n "$f" "$corpus/$(basename "$(dirname "$f")")-$(basename "$f")"; done ;;
    FuzzResponses)
      # An ExportTraceServiceResponse with a partial success, a google.rpc.Status with a detail, and both in JSON.
      printf '\x0a\x07\x08\x03\x12\x03bad' > "$corpus/seed-response.pb"
      printf '\x08\x03\x12\x03bad\x1a\x2a\x0a\x28type.googleapis.com/google.rpc.ErrorInfo' > "$corpus/seed-status.pb"
      printf '%s' '{"partialSuccess":{"rejectedSpans":"3","rejectedLogRecords":"4","errorMessage":"bad"}}' > "$corpus/seed-response.json"
      printf '%s' '{"code":3,"message":"bad","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"R"}]}' > "$corpus/seed-status.json" ;;
    FuzzMetricKit) cp -n "$shared"/metrickit-samples/*.json "$corpus/" ;;
    FuzzJSONNumbers) for n in 0 -1 123 1e3 1.5e1 1.85e19 -1e19 -9.3e18 1.700000000000000001e18 18446744073709551615 -9223372036854775808 4294967296 0.0e0 -0; do printf '%s' "$n" > "$corpus/seed-$n"; done ;;
    FuzzMetricKitArithmetic|FuzzRoundTrip|FuzzTreePrinter) for n in 1 2 3 4; do python3 -c "import random, sys; r = random.Random($n); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range($n * 64)))" > "$corpus/seed-$n"; done ;;
    FuzzConfiguration) printf '%s' '{"service":{"name":"x"},"traces":{"path":"t.bin","gzip":true},"batch":{"maxQueueSize":10},"telemetry":{"startup":{"enabled":true}},"rum":{"region":"r"}}' > "$corpus/seed.json" ;;
  esac
}

# Crashes are reported by libFuzzer and ASan; Swift's own backtracer would hold the output pipe open for up
# to its 30 s timeout after the fuzzer died.
export SWIFT_BACKTRACE=enable=no
# A sanitizer's or libFuzzer's report ("==123== ERROR: libFuzzer: deadly signal", "==123==ERROR: AddressSanitizer"),
# not any line with ERROR in it: the fuzzer's dictionary lines quote inputs such as "SEVERITY_NUMBER_ERROR".
failure_pattern='^==[0-9]+== ?ERROR|^SUMMARY: '
status=0
for target in "${targets[@]}"; do
  corpus="$root/.build-fuzz/corpus/$target"
  failures="$root/FuzzTesting/FailCases/$target"
  seed "$target" "$corpus"
  mkdir -p "$failures"
  echo "== $target: ${seconds}s"
  if ! "$bin/$target" "${seed_option[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=262144 -timeout=20 \
       -artifact_prefix="$failures/" "$corpus" 2>&1 | tee "$root/.build-fuzz/$target.log" | grep -E "^#[0-9]+ +(DONE|pulse)|$failure_pattern"; then
    :
  fi
  if grep -qE "$failure_pattern" "$root/.build-fuzz/$target.log"; then
    status=1
    # What stopped it (a fatalError's message comes before libFuzzer's report), and the input, so a failure
    # on a CI machine can be replayed here: base64 -d > input; .build/.../$target input
    grep -B 12 -m 1 -E "$failure_pattern" "$root/.build-fuzz/$target.log" >&2 || true
    for artifact in "$failures"/*; do
      [ -f "$artifact" ] || continue
      if [ "$(stat -c %s "$artifact")" -le 65536 ]; then
        echo "$target input $(basename "$artifact") (base64):" >&2
        base64 -w 0 "$artifact" >&2; echo >&2
      fi
    done
  fi
  if ! grep -q "INITED cov:" "$root/.build-fuzz/$target.log"; then echo "$target: no coverage instrumentation" >&2; status=1; fi
  grep -E "DONE" "$root/.build-fuzz/$target.log" | tail -1 || true
done
exit $status
