# SPDX-License-Identifier: Apache-2.0
"""What the generators (scripts/generate-*.py) share: writing a generated file, or with
--check, saying it is stale. Each table lives in one source; its copies are written
from it, and the tests run each generator's --check."""
import os
import sys

# The repository's root, where every generator's paths start.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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


def def_entries(root, path, macro, pattern, usage, fail):
    """The entries of a .def table: for each line that begins with `macro`, where it is
    ("path:line") and the groups of `pattern` (a compiled regex of the whole line);
    `fail` is called with a message when such a line does not match (`usage` shows the
    form)."""
    for n, line in enumerate(open(os.path.join(root, path), encoding="ascii"), 1):
        line = line.rstrip("\n")
        if not line.startswith(macro):
            continue
        m = pattern.match(line)
        where = "%s:%d" % (path, n)
        if not m:
            fail("%s: not %s" % (where, usage))
        yield where, m.groups()
