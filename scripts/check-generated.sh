#!/usr/bin/env bash
# Fails when Vendor/COTLPProto differs from what scripts/generate-protos.sh makes from proto/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$root/scripts/generate-protos.sh" "$tmp/COTLPProto" >/dev/null
if diff -r "$tmp/COTLPProto" "$root/Vendor/COTLPProto"; then
  echo "Vendor/COTLPProto is up to date"
else
  echo "Vendor/COTLPProto differs from a fresh generation: run scripts/generate-protos.sh and commit" >&2
  exit 1
fi
