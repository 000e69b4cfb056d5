#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every ```swift block of README.md, docs/LIBRARY.md and GettingStarted.md is in Examples/Sources/snippets
line for line (indentation aside; `import` lines, which head that file, left out), so
that building the target compiles the docs' snippets as written. Package.swift lines
(`.package(`, `.product(`) are left out here: Examples/run.sh checks them in a package
of their own. Called by Examples/run.sh."""
import glob
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
docs = ["README.md", "docs/LIBRARY.md", "Sources/FeedStream/FeedStream.docc/GettingStarted.md"]
code = [l.strip() for p in sorted(glob.glob(os.path.join(root, "Examples/Sources/snippets/*.swift")))
        for l in open(p).read().splitlines()]


missing, checked = [], 0
for doc in docs:
    text = open(os.path.join(root, doc)).read()
    for m in re.finditer(r"^```swift\n(.*?)^```", text, re.S | re.M):
        block = m.group(1)
        if ".package(" in block or ".product(" in block:
            continue
        lines = [l.strip() for l in block.splitlines() if l.strip() and not l.startswith("import ")]
        code_lines = [l for l in code if l]
        n = len(lines)
        found = any(code_lines[i:i + n] == lines for i in range(len(code_lines) - n + 1))
        checked += 1
        if not found:
            line = text[:m.start()].count("\n") + 1
            missing.append(f"{doc}:{line}: this block is not in Examples/Sources/snippets:\n{block}")
if missing:
    print("\n".join(missing), file=sys.stderr)
    sys.exit(1)
print(f"snippets: {checked} Swift blocks of {len(docs)} files are in Examples/Sources/snippets")
