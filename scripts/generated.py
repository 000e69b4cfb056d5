"""What the generators (scripts/generate-*.py) share: writing a generated file, or with
--check, saying it is stale. Each table lives in one source; its copies are written
from it, and the tests run each generator's --check."""
import os
import sys


def write_or_check(tool, root, path, text):
    """Writes `text` to `path` (relative to `root`); with --check on the command line,
    exits 1 when the file differs from `text` instead."""
    full = os.path.join(root, path)
    if "--check" in sys.argv[1:]:
        current = open(full, encoding="utf-8").read() if os.path.exists(full) else None
        if current != text:
            sys.stderr.write("%s: %s is stale: run python3 scripts/%s.py\n" % (tool, path, tool))
            sys.exit(1)
        return
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)
