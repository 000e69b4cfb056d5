#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The public API of the FeedStream module, from its symbol graph.

    api/surface.py SYMBOLGRAPH_DIR            print the surface (what api/FeedStream.txt holds)
    api/surface.py SYMBOLGRAPH_DIR --undocumented
                                              print public symbols without a doc comment

One line per public symbol, sorted by path: its kind, its path, its declaration, and
for types the protocols they conform to, in brackets.
A line added is an addition (minor version), a line changed or removed a breaking change
(major version, or minor before 1.0): see CHANGELOG.md. Symbols that only implement a
documented requirement of a protocol (Codable's init(from:), Equatable's ==, ...) carry
the requirement's documentation and are not reported as undocumented.
"""
import glob
import json
import os
import sys


def load(directory):
    symbols, relationships = [], []
    for path in sorted(glob.glob(os.path.join(directory, "FeedStream*.symbols.json"))):
        name = os.path.basename(path)
        if not (name == "FeedStream.symbols.json" or name.startswith("FeedStream@")):
            continue
        with open(path) as f:
            graph = json.load(f)
        symbols += graph["symbols"]
        relationships += graph.get("relationships", [])
    return symbols, relationships


def declaration(symbol):
    text = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
    return " ".join(text.split())


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    symbols, relationships = load(sys.argv[1])
    symbols = [s for s in symbols if s.get("accessLevel") in ("public", "open")]
    # Conformances are part of the API (Sendable, Codable, ...): listed on the type's line.
    conformances = {}
    names = {s["identifier"]["precise"]: s["names"]["title"] for s in symbols}
    for r in relationships:
        if r["kind"] in ("conformsTo", "inheritsFrom"):
            target = names.get(r["target"]) or r.get("targetFallback", r["target"]).split(".")[-1]
            conformances.setdefault(r["source"], set()).add(target)
    seen = set()
    lines = []
    undocumented = []
    for s in symbols:
        precise = s["identifier"]["precise"]
        if precise in seen or "::SYNTHESIZED::" in precise:
            continue
        seen.add(precise)
        path = ".".join(s["pathComponents"])
        kind = s["kind"]["identifier"].replace("swift.", "")
        line = f"{kind} {path}: {declaration(s)}"
        if precise in conformances:
            line += " [" + ", ".join(sorted(conformances[precise])) + "]"
        lines.append(line)
        has_doc = bool(s.get("docComment", {}).get("lines"))
        if not has_doc and "sourceOrigin" not in s:
            undocumented.append(f"{path}: {declaration(s)}")
    out = sorted(set(undocumented)) if "--undocumented" in sys.argv else sorted(set(lines))
    for line in out:
        print(line)


if __name__ == "__main__":
    main()
