#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compare two JSON Lines outputs of `feedstream convert` over the same inputs, by member.

    scripts/corpus-diff.py BEFORE.jsonl AFTER.jsonl

Lines are matched by (source, document, kind, index). For every member path (nested
objects joined with '.', arrays as '[]'), it counts the lines where the member was
lost (in BEFORE only), gained (in AFTER only) or changed, and lists lines that exist on
one side only (items lost or gained). An `error` that is gone (a document read now) is
counted apart, not as lost. Exit status 1 when anything was lost.
"""
import collections
import json
import sys


def flatten(value, prefix, out):
    if isinstance(value, dict):
        for k, v in value.items():
            flatten(v, prefix + "." + k if prefix else k, out)
    elif isinstance(value, list):
        out.setdefault(prefix + "[]", []).append(json.dumps(value, sort_keys=True))
        for v in value:
            if isinstance(v, (dict, list)):
                flatten(v, prefix + "[]", {})
    else:
        out.setdefault(prefix, []).append(json.dumps(value))


def load(path):
    lines = {}
    with open(path, encoding="utf-8") as f:
        for raw in f:
            rec = json.loads(raw)
            key = (rec.get("source"), rec.get("document"), rec.get("kind"), rec.get("index"))
            members = {}
            flatten({k: v for k, v in rec.items() if k not in ("source", "document", "kind", "index")}, "", members)
            lines[key] = members
    return lines


def main():
    before, after = load(sys.argv[1]), load(sys.argv[2])
    lost_lines = [k for k in before if k not in after]
    gained_lines = [k for k in after if k not in before]
    lost, gained, changed = collections.Counter(), collections.Counter(), collections.Counter()
    fixed = collections.Counter()  # documents that failed before and are read now
    examples = {}
    for key, b in before.items():
        a = after.get(key)
        if a is None:
            continue
        for m in b.keys() | a.keys():
            kind = key[2]
            if m not in a and m.startswith("error."):
                fixed[(kind, m.split(".")[0])] += 1 if m == "error.code" else 0
            elif m not in a:
                lost[(kind, m)] += 1
                examples.setdefault(("lost", kind, m), key)
            elif m not in b:
                gained[(kind, m)] += 1
            elif a[m] != b[m]:
                changed[(kind, m)] += 1
                examples.setdefault(("changed", kind, m), key)
    items_before = sum(1 for k in before if k[2] == "item")
    items_after = sum(1 for k in after if k[2] == "item")
    print(f"lines: {len(before)} -> {len(after)}; items: {items_before} -> {items_after}")
    print(f"lines only before: {len(lost_lines)}; only after: {len(gained_lines)}")
    for k in lost_lines[:20]:
        print("  only before:", k)
    print(f"documents that failed before and are read now: {sum(fixed.values())}")
    for title, counter in (("lost", lost), ("gained", gained), ("changed", changed)):
        print(f"{title} members (kind member: lines):")
        for (kind, m), n in sorted(counter.items(), key=lambda x: (-x[1], x[0])):
            ex = examples.get((title, kind, m))
            print(f"  {kind} {m}: {n}" + (f"   e.g. {ex[0]} doc {ex[1]} index {ex[3]}" if ex else ""))
    return 1 if lost_lines or lost else 0


if __name__ == "__main__":
    sys.exit(main())
