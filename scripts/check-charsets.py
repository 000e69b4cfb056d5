#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the charset table, CSources/CFeedStreamCharset/charset_aliases.def.

The charset stage (transcode.c) includes that file and is the only reader of it, for
every backend; it finds aliases by bisection, so the keys must be sorted. Checked: keys
in the normalized form (lower case, no '-', '_' or '.'), sorted, each once; names in
lower case; built-in names in upper case with a known kind; C1 charsets named in the
alias table. Exit 2 with the reason when one is not so.

Run from anywhere:
    python3 scripts/check-charsets.py

CharsetTests runs it.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generated import ROOT, def_entries  # noqa: E402

DEF = "CSources/CFeedStreamCharset/charset_aliases.def"
ENTRY = re.compile(r'^CHARSET_ALIAS\("([^"]+)", "([^"]+)"\)$')
BUILTIN = re.compile(r'^BUILTIN_CHARSET\("([^"]+)", ([A-Z0-9]+)\)$')
C1 = re.compile(r'^C1_CHARSET\("([^"]+)"\)$')
# BUILTIN_CHARSET kinds: the charset stage's CFS_CHARSET_<kind>.
KINDS = {"UTF8", "LATIN1", "ASCII", "UTF16BE", "UTF16LE", "UTF32BE", "UTF32LE"}


def fail(msg):
    sys.stderr.write("check-charsets: %s\n" % msg)
    sys.exit(2)


def read_entries():
    entries = []
    for where, (key, name) in def_entries(ROOT, DEF, "CHARSET_ALIAS", ENTRY, 'CHARSET_ALIAS("key", "name")', fail):
        if key != re.sub(r"[-_.]", "", key.lower()) or not re.fullmatch(r"[a-z0-9]+", key):
            fail("%s: key %r is not normalized" % (where, key))
        if name != name.lower():
            fail("%s: name %r is not lower case" % (where, name))
        entries.append((key, name))
    keys = [k for k, _ in entries]
    if keys != sorted(keys) or len(set(keys)) != len(keys):
        fail("%s: keys must be sorted and unique" % DEF)
    return entries


def read_builtins():
    builtins = []
    for where, (name, kind) in def_entries(ROOT, DEF, "BUILTIN_CHARSET", BUILTIN, 'BUILTIN_CHARSET("NAME", KIND)', fail):
        if name != name.upper() or not re.fullmatch(r"[A-Z0-9-]+", name):
            fail("%s: name %r is not upper case ASCII" % (where, name))
        if kind not in KINDS:
            fail("%s: kind %r is none of %s" % (where, kind, ", ".join(sorted(KINDS))))
        builtins.append((name, kind))
    if len({b for b, _ in builtins}) != len(builtins):
        fail("%s: a built-in name twice" % DEF)
    return builtins


def read_c1(entries):
    names = {name for _, name in entries}
    c1 = []
    for where, (name,) in def_entries(ROOT, DEF, "C1_CHARSET", C1, 'C1_CHARSET("name")', fail):
        if name not in names:
            fail("%s: %r is no charset name of the alias table" % (where, name))
        c1.append(name)
    return c1


def main():
    entries = read_entries()
    read_builtins()
    read_c1(entries)


main()
