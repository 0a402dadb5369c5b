#!/usr/bin/env bash
# The documentation of every library product builds without a warning (a broken ``symbol`` link, a
# parameter the doc comment leaves out, a catalog topic that names nothing), and every public declaration has a
# doc comment: the symbol graphs of the debug
# build (`swift package dump-symbol-graph`, which reuses what `swift build` / `swift test` built), then the
# toolchain's `docc convert --warnings-as-errors` on each module's catalog, Sources/<Module>/<Module>.docc.
# The archives go to a temporary directory and are deleted; DOCS_OUTPUT=<dir> keeps them there instead.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every module of a library product (so a new product needs a catalog too).
mapfile -t MODULES < <(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
for product in package["products"]:
    if "library" in product["type"]:
        print("\n".join(product["targets"]))')
[ "${#MODULES[@]}" -gt 0 ] || { echo "check-docs: no library product found" >&2; exit 1; }

docc=${DOCC:-$(command -v docc || true)}
if [ -z "$docc" ]; then
  # Not on the PATH: the toolchain ships it beside swift.
  docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi
[ -x "$docc" ] || { echo "check-docs: docc not found (set DOCC=/path/to/docc)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

log="$work/dump.log"
if ! swift package dump-symbol-graph >"$log" 2>&1; then
  cat "$log" >&2
  echo "check-docs: swift package dump-symbol-graph failed" >&2
  exit 1
fi
graphs=$(sed -n 's/^Files written to //p' "$log" | tail -1)
[ -d "$graphs" ] || { cat "$log" >&2; echo "check-docs: no symbol graph directory in the output above" >&2; exit 1; }

status=0
# Every public or open declaration written in Sources/ has a doc comment (DocC does not warn about a missing one).
if ! python3 - "$graphs" "${MODULES[@]}" <<'PY'
import glob, json, sys
graphs, modules = sys.argv[1], sys.argv[2:]
missing = []
for module in modules:
    for path in glob.glob(f"{graphs}/{module}.symbols.json") + glob.glob(f"{graphs}/{module}@*.symbols.json"):
        for symbol in json.load(open(path))["symbols"]:
            location = symbol.get("location", {})
            if symbol.get("accessLevel") not in ("public", "open") or symbol.get("docComment") or "/Sources/" not in location.get("uri", ""):
                continue
            file = location["uri"].split("/Sources/", 1)[1]
            missing.append(f"Sources/{file}:{location['position']['line'] + 1}: {'.'.join(symbol['pathComponents'])} has no doc comment")
for line in sorted(set(missing)):
    print(line, file=sys.stderr)
sys.exit(1 if missing else 0)
PY
then
  echo "check-docs: public declarations without a doc comment (above)" >&2
  status=1
fi
for module in "${MODULES[@]}"; do
  catalog="Sources/$module/$module.docc"
  [ -d "$catalog" ] || { echo "check-docs: $module has no catalog at $catalog" >&2; status=1; continue; }
  # Only this module's graphs: its own and its extensions of other modules' types (Module@Other).
  mkdir -p "$work/graphs/$module"
  cp "$graphs/$module.symbols.json" "$work/graphs/$module/"
  find "$graphs" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$work/graphs/$module/" \;
  archives="${DOCS_OUTPUT:-$work/archives}"
  mkdir -p "$archives"
  output="$archives/$module.doccarchive"
  if "$docc" convert "$catalog" --additional-symbol-graph-dir "$work/graphs/$module" --output-path "$output" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.otlpwire.$module" \
    --warnings-as-errors >"$work/$module.log" 2>&1; then
    echo "check-docs: $module: no warnings"
  else
    cat "$work/$module.log" >&2
    echo "check-docs: $module: the documentation has warnings (above)" >&2
    status=1
  fi
done
exit $status
