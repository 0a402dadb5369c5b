#!/usr/bin/env bash
# Fails when `swift format` (with .swift-format) would change a Swift file of the repository: the files are
# formatted into a scratch copy and compared, so the work tree is never touched. `make format` applies it.
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests Benchmarks FuzzTesting)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Only what git tracks (or would track): no build folders, no checkouts.
git ls-files --cached --others --exclude-standard -- "${paths[@]}" | grep '\.swift$' | while read -r file; do
  mkdir -p "$scratch/$(dirname "$file")"
  cp "$file" "$scratch/$file"
done
(cd "$scratch" && find . -name '*.swift' -print0 | xargs -0 swift format format --configuration "$OLDPWD/.swift-format" --in-place --parallel)
changed=0
while read -r file; do
  if ! cmp -s "$file" "$scratch/$file"; then
    echo "check-format: $file is not formatted (make format)"
    changed=$((changed + 1))
  fi
done < <(cd "$scratch" && find . -name '*.swift' | sed 's|^\./||' | sort)
if [ "$changed" -gt 0 ]; then
  echo "check-format: $changed file(s) differ from swift format's output"
  exit 1
fi
echo "check-format: every Swift file is formatted"
