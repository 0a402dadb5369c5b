#!/usr/bin/env bash
# The span hot path beside swift-otel: N spans (startSpan, 8 attributes, end) on 1 task and on 8 tasks
# through NoOpTracer (the baseline), OTLPWire into a file and to rotel over OTLP/HTTP, and swift-otel with
# exporter none and to rotel over OTLP/HTTP (rotel --exporter blackhole on loopback). Each configuration
# runs in its own process, in interleaved rounds; each row's ratio is against NoOpTracer in the same round
# with the same tasks, and the summary gives the medians. Installs nothing beyond `make deps` (rotel); the
# first build resolves and builds swift-otel (several minutes on 2 cores). Runs under `nice -n 19`.
# usage: Benchmarks/SwiftOTelComparison/run-pipeline.sh [--spans N] [--rounds R] [--tasks "1 8"] [-- pipeline-benchmark flags]
set -euo pipefail
cd "$(dirname "$0")"
spans=200000
rounds=3
task_counts="1 8"
extra=()
usage() { echo "usage: $0 [--spans N] [--rounds R] [--tasks \"1 8\"] [-- pipeline-benchmark flags]" >&2; exit 64; }
positive() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }
while [ $# -gt 0 ]; do
  case "$1" in
    --spans|--rounds|--tasks) [ $# -ge 2 ] || usage ;;&
    --spans) spans="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --tasks) task_counts="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) usage ;;
  esac
done
positive "$spans" && positive "$rounds" && [ -n "${task_counts// /}" ] || usage
for tasks in $task_counts; do positive "$tasks" && [ "$tasks" -le "$spans" ] || usage; done

make -C ../.. deps >/dev/null
build_log=$(mktemp)
nice -n 19 swift build -c release --product pipeline-benchmark >"$build_log" 2>&1 || { cat "$build_log" >&2; exit 1; }
rm -f "$build_log"
bin="$(swift build -c release --show-bin-path)/pipeline-benchmark"

# shellcheck source=start-rotel.sh
source ./start-rotel.sh
echo "swift-otel $(swift_otel_version); $rotel_version on 127.0.0.1:$rotel_http_port" >&2
echo "$spans spans per run, tasks: $task_counts, $rounds rounds, each configuration in its own process under nice -n 19" >&2

for round in $(seq "$rounds"); do
  for tasks in $task_counts; do
    for mode in noop otlpwire otlpwire-otlp swift-otel swift-otel-otlp; do
      nice -n 19 "$bin" "$mode" --spans "$spans" --tasks "$tasks" --endpoint "http://127.0.0.1:$rotel_http_port" "${extra[@]}" \
        | sed "s/^{/{\"round\":$round,/" >>"$rotel_work/results.jsonl"
    done
  done
done
check_rotel
mkdir -p .build/results
results=".build/results/pipeline-$(date +%Y%m%d-%H%M%S).jsonl"
cp "$rotel_work/results.jsonl" "$results"
echo "raw results: Benchmarks/SwiftOTelComparison/$results" >&2

python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
names = {
    "noop": "NoOpTracer (baseline)",
    "otlpwire": "OTLPWire, to a file",
    "otlpwire-otlp": "OTLPWire, OTLP/HTTP to rotel",
    "swift-otel": "swift-otel, exporter none",
    "swift-otel-otlp": "swift-otel, OTLP/HTTP to rotel",
}
baseline = {(r["round"], r["tasks"]): r["hot_path_nanos_per_span"] for r in rows if r["mode"] == "noop"}
for r in rows:
    r["ratio"] = r["hot_path_nanos_per_span"] / baseline[(r["round"], r["tasks"])]
print("| round | tasks | configuration | hot path ns/span | × NoOpTracer | s to all exported | exported | dropped | peak RSS MB |")
print("|---:|---:|---|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r['round']} | {r['tasks']} | {names[r['mode']]} | {r['hot_path_nanos_per_span']:,.0f} | {r['ratio']:.2f} | "
          f"{r['total_seconds']:.3f} | {r['exported']:,} | {r['dropped']:,} | {r['peak_resident_bytes'] / 1e6:.0f} |")
print()
print(f"Medians over {len({r['round'] for r in rows})} rounds ({rows[0]['spans']:,} spans per run; exported and dropped: the range):")
print()
print("| tasks | configuration | hot path ns/span | × NoOpTracer | s to all exported | exported | dropped | peak RSS MB |")
print("|---:|---|---:|---:|---:|---:|---:|---:|")
def span(values): return f"{min(values):,}" if min(values) == max(values) else f"{min(values):,}–{max(values):,}"
for tasks in sorted({r["tasks"] for r in rows}):
    for mode in names:
        group = [r for r in rows if r["tasks"] == tasks and r["mode"] == mode]
        if not group: continue
        med = lambda key: statistics.median(r[key] for r in group)
        print(f"| {tasks} | {names[mode]} | {med('hot_path_nanos_per_span'):,.0f} | **{med('ratio'):.2f}** | {med('total_seconds'):.3f} | "
              f"{span([r['exported'] for r in group])} | {span([r['dropped'] for r in group])} | {med('peak_resident_bytes') / 1e6:.0f} |")
PY
