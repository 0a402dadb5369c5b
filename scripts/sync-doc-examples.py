#!/usr/bin/env python3
"""Rewrites the Swift examples of README.md and the DocC catalogs from their compiled copies.

Each ```swift block of the documentation starts with `// Compiled copy: PATH` (a file of
Tests/DocumentationExamples). This script replaces the rest of the block with PATH's code: its imports, if the
block shows imports, then each top-level declaration the block names (`func name`, `struct Name`, ...), in the
block's order, as PATH has it. A new example can be written as the marker, `import` lines and declaration heads
alone. DocumentationExamplesTests fails when a block and its copy differ; run this after changing an example.

Usage: scripts/sync-doc-examples.py [--check]   (--check: report what would change, exit 1 if anything would)
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = "// Compiled copy: "
DECLARATION = re.compile(r"^(?:func|struct|final class|class|enum|extension)\s+([A-Za-z_][A-Za-z0-9_]*)")


def declarations(lines):
    """Top-level declarations of a file: name -> its lines (head to the closing brace at column 0)."""
    found = {}
    index = 0
    while index < len(lines):
        match = DECLARATION.match(lines[index])
        if not match:
            index += 1
            continue
        end = index
        if lines[index].count("{") != lines[index].count("}") or "{" not in lines[index]:
            end = index + 1
            while end < len(lines) and lines[end] != "}":
                end += 1
        found[match.group(1)] = lines[index:end + 1]
        index = end + 1
    return found


def render(block, path):
    with open(os.path.join(ROOT, path)) as handle:
        lines = handle.read().split("\n")
    available = declarations(lines)
    out = []
    if any(line.startswith("import ") for line in block):
        out += [line for line in lines if line.startswith("import ")] + [""]
    names = [m.group(1) for m in (DECLARATION.match(line) for line in block) if m]
    for number, name in enumerate(names):
        if name not in available:
            sys.exit(f"sync-doc-examples: {path} has no top-level declaration {name}")
        if number:
            out.append("")
        out += available[name]
    return out


def sync(document, check):
    with open(os.path.join(ROOT, document)) as handle:
        text = handle.read().split("\n")
    out, index, changed = [], 0, False
    while index < len(text):
        line = text[index]
        out.append(line)
        stripped = line.lstrip(" ")
        if stripped.startswith("```swift") and index + 1 < len(text) and text[index + 1].lstrip(" ").startswith(MARKER):
            indent = " " * (len(line) - len(stripped))
            end = index + 1
            while not text[end].lstrip(" ").startswith("```"):
                end += 1
            block = [l[len(indent):] if l.startswith(indent) else l.lstrip(" ") for l in text[index + 1:end]]
            path = block[0][len(MARKER):].strip()
            new = [block[0]] + render(block[1:], path)
            new = [indent + l if l else l for l in new]
            changed |= new != text[index + 1:end]
            out += new
            index = end
            continue
        index += 1
    if changed:
        print(f"sync-doc-examples: {document}" + (" differs" if check else " rewritten"))
        if not check:
            with open(os.path.join(ROOT, document), "w") as handle:
                handle.write("\n".join(out))
    return changed


def main():
    check = "--check" in sys.argv[1:]
    documents = ["README.md"] + sorted(
        os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "Sources/*/*.docc/*.md")))
    changed = [d for d in documents if sync(d, check)]
    sys.exit(1 if check and changed else 0)


main()
