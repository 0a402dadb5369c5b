#!/usr/bin/env bash
# Counts the public declaration lines of the library products: lines that declare something `public` or
# `open` (after any attributes), leaving out `public import` lines. Issue 22's measure of the API's size.
# Usage: scripts/count-public-api.sh [--limit N]   (exit 1 when the total is above N)
set -euo pipefail
cd "$(dirname "$0")/.."
limit=""
if [[ "${1:-}" == "--limit" ]]; then limit="$2"; fi
modules=(OTLPWire OTLPTelemetry OTLPHTTP OTLPInstrumentation OTLPMetricKit OTLPServiceLifecycle OTLPTesting)
total=0
for module in "${modules[@]}"; do
    count=$(grep -rhE '^\s*(@[A-Za-z]+(\([^)]*\))?\s+)*(public|open) ' "Sources/$module" --include='*.swift' \
        | grep -vcE '^\s*public import ' || true)
    printf '%-22s %5d\n' "$module" "$count"
    total=$((total + count))
done
printf '%-22s %5d\n' "total" "$total"
if [[ -n "$limit" && "$total" -gt "$limit" ]]; then
    echo "public declaration lines: $total, above the limit of $limit" >&2
    exit 1
fi
