#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Callers of the functions matching REGEX in a callgrind profile, with their inclusive cost and call counts. Usage: callers.py FILE.out REGEX [N]"""
import sys, re, subprocess
f, pat = sys.argv[1], sys.argv[2]
out = subprocess.run(['callgrind_annotate','--tree=caller',f],capture_output=True,text=True).stdout.splitlines()
block=[]
for line in out:
    m = re.match(r'\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+([<*])\s+(.*)', line)
    if not m: block=[]; continue
    n=int(m.group(1).replace(',','')); kind=m.group(2); name=m.group(3)
    if kind=='<': block.append((n,name))
    else:
        if re.search(pat,name):
            print(f"{n:>14,} * {name[:150]}")
            for c,nm in sorted(block,reverse=True)[:int(sys.argv[3]) if len(sys.argv)>3 else 8]:
                print(f"{c:>14,}   < {nm[:150]}")
        block=[]
