#!/usr/bin/env python3
"""Rewrites the Swift examples of README.md, the DocC catalogs and the doc comments of Sources/ from their
compiled copies.

Each ```swift block of the documentation (in a doc comment: of its `///` lines) starts with
`// Compiled copy: PATH` (a file of Tests/DocumentationExamples). This script replaces the rest of the block with PATH's code: its imports, if the
block shows imports, then each top-level declaration the block names (`func name`, `struct Name`, ...), in the
block's order, as PATH has it. A new example can be written as the marker, `import` lines and declaration heads
alone. DocumentationExamplesTests fails when a block and its copy differ, or a doc comment's Swift example has
no copy; run this after changing an example.

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


# Swift examples without a compiled copy, as document:line.
UNCOMPILED = []
DOC_COMMENT = re.compile(r"^(\s*///) ?(.*)$")


def split(document, raw):
    """The documentation text of each line of `document`, and what goes before it: a Markdown file is all text; in
    a Swift source, the text of a doc comment line is what follows `/// `, and other lines have none (None)."""
    if not document.endswith(".swift"):
        return [("", line) for line in raw]
    lines = []
    for line in raw:
        match = DOC_COMMENT.match(line)
        lines.append((match.group(1), match.group(2)) if match else (None, None))
    return lines


def join(prefix, line):
    if not prefix:
        return line
    return prefix + (" " + line if line else "")


def sync(document, check):
    with open(os.path.join(ROOT, document)) as handle:
        raw = handle.read().split("\n")
    lines = split(document, raw)
    text = [line if line is not None else "" for _, line in lines]
    is_text = [line is not None for _, line in lines]
    out, index, changed = [], 0, False
    while index < len(text):
        out.append(raw[index])
        line = text[index]
        stripped = line.lstrip(" ")
        if is_text[index] and stripped.startswith("```swift") and not (
                index + 1 < len(text) and is_text[index + 1] and text[index + 1].lstrip(" ").startswith(MARKER)):
            UNCOMPILED.append(f"{document}:{index + 1}")
        if (is_text[index] and stripped.startswith("```swift") and index + 1 < len(text) and is_text[index + 1]
                and text[index + 1].lstrip(" ").startswith(MARKER)):
            prefix = lines[index][0]
            indent = " " * (len(line) - len(stripped))
            end = index + 1
            while not (is_text[end] and text[end].lstrip(" ").startswith("```")):
                if not is_text[end]:
                    sys.exit(f"sync-doc-examples: {document}:{index + 1}: the example's doc comment ends before its fence")
                end += 1
            block = [l[len(indent):] if l.startswith(indent) else l.lstrip(" ") for l in text[index + 1:end]]
            path = block[0][len(MARKER):].strip()
            new = [block[0]] + render(block[1:], path)
            new = [join(prefix, indent + l if l else l) for l in new]
            changed |= new != raw[index + 1:end]
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
    documents += sorted(
        os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "Sources/**/*.swift"), recursive=True))
    changed = [d for d in documents if sync(d, check)]
    for place in UNCOMPILED:
        print(f"sync-doc-examples: {place}: a Swift example without `{MARKER.strip()} Tests/DocumentationExamples/…`")
    sys.exit(1 if (check and changed) or UNCOMPILED else 0)


main()
