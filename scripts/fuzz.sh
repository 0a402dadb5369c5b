#!/usr/bin/env bash
# Builds the libFuzzer targets (FuzzTesting/, -sanitize=fuzzer,address) and runs each for a fixed time.
#
#   scripts/fuzz.sh                 every target, FUZZ_SECONDS each (default 600)
#   scripts/fuzz.sh FuzzDecoder     one target
#
# Seeds: ../shared/vectors and ../shared/metrickit-samples (copied into .build-fuzz/corpus/<target>, which
# keeps what the fuzzer finds between runs). A crash leaves its input in FuzzTesting/FailCases/<target>/;
# commit it: FuzzTestingTests replay every file there (make test).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/../shared}
seconds=${FUZZ_SECONDS:-600}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzFrameReader FuzzDecoder FuzzJSONLines FuzzMetricKit FuzzConfiguration)
cd "$root/FuzzTesting"
# Always a clean build: incremental rebuilds were seen to drop the coverage instrumentation of rebuilt
# modules (the fuzzer then runs blind: "INITED" without "cov:").
rm -rf .build
swift build --sanitize=fuzzer --sanitize=address >/dev/null
bin=$(swift build --sanitize=fuzzer --sanitize=address --show-bin-path)

seed() {
  local target=$1 corpus=$2
  mkdir -p "$corpus"
  case $target in
    FuzzFrameReader) for f in "$shared"/vectors/framed/* "$shared"/vectors/bad/* "$shared"/vectors/traces/*.pb "$shared"/vectors/logs/*.pb; do cp -n "$f" "$corpus/$(basename "$(dirname "$f")")-$(basename "$f")"; done ;;
    FuzzDecoder) for f in "$shared"/vectors/traces/*.pb "$shared"/vectors/logs/*.pb "$shared"/vectors/bad/*.pb; do cp -n "$f" "$corpus/$(basename "$(dirname "$f")")-$(basename "$f")"; done ;;
    FuzzJSONLines) for f in "$shared"/vectors/framed/*.jsonl "$shared"/vectors/traces/*.json "$shared"/vectors/logs/*.json; do cp -n "$f" "$corpus/$(basename "$(dirname "$f")")-$(basename "$f")"; done ;;
    FuzzMetricKit) cp -n "$shared"/metrickit-samples/*.json "$corpus/" ;;
    FuzzConfiguration) printf '%s' '{"service":{"name":"x"},"traces":{"path":"t.bin","gzip":true},"batch":{"maxQueueSize":10},"telemetry":{"startup":{"enabled":true}},"rum":{"region":"r"}}' > "$corpus/seed.json" ;;
  esac
}

status=0
for target in "${targets[@]}"; do
  corpus="$root/.build-fuzz/corpus/$target"
  failures="$root/FuzzTesting/FailCases/$target"
  seed "$target" "$corpus"
  mkdir -p "$failures"
  echo "== $target: ${seconds}s"
  if ! "$bin/$target" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=262144 -timeout=20 \
       -artifact_prefix="$failures/" "$corpus" 2>&1 | tee "$root/.build-fuzz/$target.log" | grep -E "^#[0-9]+ +(DONE|pulse)|ERROR|SUMMARY"; then
    :
  fi
  if grep -q "ERROR" "$root/.build-fuzz/$target.log"; then status=1; fi
  if ! grep -q "INITED cov:" "$root/.build-fuzz/$target.log"; then echo "$target: no coverage instrumentation" >&2; status=1; fi
  grep -E "DONE" "$root/.build-fuzz/$target.log" | tail -1 || true
done
exit $status
