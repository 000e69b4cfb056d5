#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the document starts, CSources/CFeedStreamInput/document_starts.def.

The input stage (input.c) includes that file and is its only reader, for every backend.
Checked: the XML declaration first, every start 1 to 8 bytes (input.c's DOC_START_MAX)
and once, delimiters never empty and never NUL (input.c finds them with strchr), and the
three DOCUMENT_* defines present. Exit 2 with the reason when one is not so.

Run from anywhere:
    python3 scripts/check-document-starts.py

ResyncTests runs it.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generated import ROOT, def_entries  # noqa: E402

DEF = "CSources/CFeedStreamInput/document_starts.def"
ENTRY = re.compile(r'^DOCUMENT_START\("((?:[^"\\]|\\x[0-9A-Fa-f]{2}|\\.)+)", "((?:[^"\\]|\\.)+)"\)$')
ESCAPES = {"t": 0x09, "n": 0x0A, "r": 0x0D, "\\": 0x5C, '"': 0x22}
DOC_START_MAX = 8


def fail(msg):
    sys.stderr.write("check-document-starts: %s\n" % msg)
    sys.exit(2)


def unescape(s, where):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and s[i + 1:i + 2] == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", s[i + 2:i + 4]):
            out.append(int(s[i + 2:i + 4], 16))
            i += 4
        elif s[i] == "\\":
            if i + 1 >= len(s) or s[i + 1] not in ESCAPES:
                fail("%s: unknown escape in %r" % (where, s))
            out.append(ESCAPES[s[i + 1]])
            i += 2
        else:
            if ord(s[i]) >= 0x80:
                fail("%s: not ASCII: %r" % (where, s))
            out.append(ord(s[i]))
            i += 1
    return out


def read_entries():
    entries = []
    for where, (start, delimiters) in def_entries(ROOT, DEF, "DOCUMENT_START", ENTRY,
                                                  'DOCUMENT_START("start", "delimiters")', fail):
        start, delimiters = unescape(start, where), unescape(delimiters, where)
        if not 1 <= len(start) <= DOC_START_MAX:
            fail("%s: a start has 1 to %d bytes" % (where, DOC_START_MAX))
        if 0 in delimiters or len(set(delimiters)) != len(delimiters):
            fail("%s: delimiters must be distinct and not NUL" % where)
        entries.append((start, delimiters))
    if not entries or entries[0][0] != list(b"<?xml"):
        fail("%s: the XML declaration (\"<?xml\") must come first" % DEF)
    if len({bytes(s) for s, _ in entries}) != len(entries):
        fail("%s: a start is listed twice" % DEF)
    return entries


DEFINE = re.compile(r'^#define DOCUMENT_(LOOKAHEAD_MAX|CANDIDATE_MAX) ([0-9]+)$|^#define DOCUMENT_(CUT_SHORT_MESSAGE) "([ -!#-~]*)"$')


def read_defines():
    """The #define DOCUMENT_* lines: the two limits and the message."""
    found = {}
    for where, groups in def_entries(ROOT, DEF, "#define DOCUMENT_", DEFINE,
                                     '#define DOCUMENT_LOOKAHEAD_MAX N (or CANDIDATE_MAX N, CUT_SHORT_MESSAGE "...")', fail):
        name, value = (groups[0], int(groups[1])) if groups[0] else (groups[2], groups[3])
        found[name] = value
    for name in ("LOOKAHEAD_MAX", "CANDIDATE_MAX", "CUT_SHORT_MESSAGE"):
        if name not in found:
            fail("%s: #define DOCUMENT_%s is missing" % (DEF, name))
    return found


def main():
    read_entries()
    read_defines()


main()
