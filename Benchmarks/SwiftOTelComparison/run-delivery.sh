#!/usr/bin/env bash
# The delivery benchmark: the yardstick workload (N spans, N log records) sent to rotel on loopback
# (`--exporter blackhole`) by OTLPWire's OTLP/HTTP exporter and by swift-otel's, each SDK in its own
# process, interleaved for R rounds; a table of each round with the ratios OTLPWire / swift-otel, and the
# median ratios; then OTLPWire's delivery against its own file path (the same pipeline writing a gzip file). Installs nothing beyond `make deps` (which installs rotel); the first build resolves
# and builds swift-otel (several minutes on 2 cores). Builds and runs under `nice -n 19`.
# usage: Benchmarks/SwiftOTelComparison/run-delivery.sh [--items N] [--rounds R] [-- extra delivery-benchmark flags]
set -euo pipefail
cd "$(dirname "$0")"
items=100000
rounds=3
extra=()
usage() { echo "usage: $0 [--items N] [--rounds R] [-- delivery-benchmark flags]" >&2; exit 64; }
positive() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }
while [ $# -gt 0 ]; do
  case "$1" in
    --items|--rounds) [ $# -ge 2 ] || usage ;;&
    --items) items="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) usage ;;
  esac
done
positive "$items" && positive "$rounds" || usage

make -C ../.. deps >/dev/null
build_log=$(mktemp)
nice -n 19 swift build -c release --product delivery-benchmark >"$build_log" 2>&1 || { cat "$build_log" >&2; exit 1; }
rm -f "$build_log"
bin="$(swift build -c release --show-bin-path)/delivery-benchmark"

# shellcheck source=start-rotel.sh
source ./start-rotel.sh
work=$rotel_work
echo "swift-otel $(swift_otel_version); $rotel_version on 127.0.0.1:$rotel_http_port" >&2
echo "$items spans and $items log records per run, $rounds rounds, each SDK in its own process under nice -n 19" >&2

for round in $(seq "$rounds"); do
  for mode in otlpwire "otlpwire --no-gzip" otlpwire-file swift-otel; do
    # shellcheck disable=SC2086 # the mode's flags
    nice -n 19 "$bin" $mode --endpoint "http://127.0.0.1:$rotel_http_port" --items "$items" "${extra[@]}" \
      | sed "s/^{/{\"round\":$round,/" >>"$work/results.jsonl"
  done
done
check_rotel

python3 - "$work/results.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
def fmt(value, digits): return f"{value:,.{digits}f}"
print("| round | signal | SDK | items/s delivered | CPU s per 100k items | wall s | delivered | dropped | protobuf MB |")
print("|---:|---|---|---:|---:|---:|---:|---:|---:|")
ratios = {}
for row in rows:
    row["rate"] = row["delivered"] / row["wall_seconds"]
    row["cpu100k"] = row["cpu_seconds"] / row["items"] * 100_000
    print(f"| {row['round']} | {row['signal']} | {row['mode']} | {fmt(row['rate'], 0)} | {fmt(row['cpu100k'], 3)} | "
          f"{fmt(row['wall_seconds'], 3)} | {row['delivered']} | {row['dropped']} | {fmt(row['encoded_bytes'] / 1e6, 1) if row['encoded_bytes'] else 'n/a'} |")
print()
print("OTLPWire / swift-otel within each round (swift-otel 1.6 sends uncompressed whatever it is asked;")
print("OTLPWire with gzip, the default, and without, like for like):")
print()
print("| round | signal | items/s, gzip | CPU per item, gzip | items/s, no gzip | CPU per item, no gzip |")
print("|---:|---|---:|---:|---:|---:|")
def pick(round_, signal, mode):
    return next((r for r in rows if r["round"] == round_ and r["signal"] == signal and r["mode"] == mode), None)
for (round_, signal) in sorted({(r["round"], r["signal"]) for r in rows}, key=lambda k: (k[0], k[1] != "traces")):
    theirs = pick(round_, signal, "swift-otel")
    cells = []
    for mode in ("otlpwire", "otlpwire-identity"):
        ours = pick(round_, signal, mode)
        pair = (ours["rate"] / theirs["rate"], ours["cpu100k"] / theirs["cpu100k"]) if ours and theirs else None
        ratios.setdefault((signal, mode), []).append(pair)
        cells += [f"{pair[0]:.2f}", f"{pair[1]:.2f}"] if pair else ["n/a", "n/a"]
    print(f"| {round_} | {signal} | " + " | ".join(cells) + " |")
for signal in ("traces", "logs"):
    cells = []
    for mode in ("otlpwire", "otlpwire-identity"):
        pairs = [p for p in ratios.get((signal, mode), []) if p]
        cells += [f"**{statistics.median(p[0] for p in pairs):.2f}**", f"**{statistics.median(p[1] for p in pairs):.2f}**"] if pairs else ["n/a", "n/a"]
    print(f"| median | {signal} | " + " | ".join(cells) + " |")
print()
print("OTLPWire delivering over OTLP/HTTP (gzip) against the same pipeline writing a gzip file, within each round")
print("(the issue's bound: CPU per item at most 1.3x the file path's):")
print()
print("| round | signal | CPU per item, HTTP / file | items/s, HTTP / file |")
print("|---:|---|---:|---:|")
against_file = {}
for (round_, signal) in sorted({(r["round"], r["signal"]) for r in rows}, key=lambda k: (k[0], k[1] != "traces")):
    http, file = pick(round_, signal, "otlpwire"), pick(round_, signal, "otlpwire-file")
    if not (http and file):
        continue
    pair = (http["cpu100k"] / file["cpu100k"], http["rate"] / file["rate"])
    against_file.setdefault(signal, []).append(pair)
    print(f"| {round_} | {signal} | {pair[0]:.2f} | {pair[1]:.2f} |")
for signal, pairs in against_file.items():
    print(f"| median | {signal} | **{statistics.median(p[0] for p in pairs):.2f}** | **{statistics.median(p[1] for p in pairs):.2f}** |")
failed = [r for r in rows if r["dropped"]]
if failed:
    print(f"\nwarning: {len(failed)} runs dropped items (see the dropped column)", file=sys.stderr)
PY
