#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Self instructions of a callgrind profile by group (tokenizer, copies, C machine, Swift writer, ...). Usage: groups.py FILE.out"""
import sys, re, subprocess
f = sys.argv[1]
out = subprocess.run(['callgrind_annotate','--threshold=100',f],capture_output=True,text=True).stdout.splitlines()
rows=[]
for line in out:
    m = re.match(r'\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)', line)
    if m and 'PROGRAM TOTALS' not in line: rows.append((int(m.group(1).replace(',','')), m.group(2)))
dem = subprocess.run(['swift','demangle','--simplified'],input='\n'.join(n for _,n in rows),capture_output=True,text=True).stdout.splitlines()
rows=[(n,d) for (n,_),d in zip(rows,dem)]
total=sum(n for n,_ in rows)
groups=[
 ('expat tokenizer (libexpat)', r'libexpat'),
 ('Swift XML tokenizer (XMLTokenizer, prolog, names, references)', r'XMLTokenizer|XMLProlog|PrologGrammar|XMLTranscoder'),
 ('Swift feed machine (MachineCore, SFM*, SwiftFeedMachine)', r'MachineCore|SFM|SwiftFeedMachine|SwiftRules'),
 ('Swift record walk (FeedRecordView.walk, RecordSink)', r'FeedRecordView|RecordSink|RawRecord'),
 ('memcpy/memmove (libc)', r'memcpy|memmove'),
 ('strlen/strchr (libc; expat.c split_name)', r'strlen|strchr'),
 ('memcmp (libc)', r'memcmp'),
 ('Swift JSON escaping: appendJSONEscaped/appendJSONString', r'appendJSONEscaped|appendJSONString'),
 ('Swift JSON record writer (writeItem, links, text, date, header, decimal, ...)', r'ByteBuffer\.|JSONLinesWriter|FeedHandlerGroup'),
 ('Swift dates (FeedDate.*, Scanner.*)', r'FeedDate|Scanner'),
 ('Swift views (FeedBytes.trimmed, FeedItemView/FeedInfoView getters, links)', r'FeedBytes|FeedItemView|FeedInfoView|makeLink|primaryLink|FeedViewCollection|FeedLinkView|textType|FeedPersonView|FeedCategoryView|bytes\(|isRSSFamily'),
 ('C callbacks into Swift (NativeParser, InputDriver, SwiftDocumentReader closures)', r'NativeParser|InputDriver|SwiftDocumentReader'),
 ('C feed machine (cfs_machine_*, arena, classify, on_start/on_end/on_text)', r'cfs_|on_start|on_end|on_text|classify|build_links|find_attr|push_|begin_item|capture|split_name|feedstream-stripped\]|tokonly\]|/feedstream\]|tokenize_only\]'),
 ('Swift runtime / libswiftCore', r'libswiftCore|libswift'),
 ('libc other', r'libc\.so'),
 ('ld.so', r'ld-linux'),
]
acc={g:0 for g,_ in groups}; other=[]
for n,name in rows:
    for g,p in groups:
        if re.search(p,name): acc[g]+=n; break
    else: other.append((n,name))
for g,_ in groups:
    if acc[g]: print(f"{acc[g]:>14,}  {acc[g]/total*100:5.1f}%  {g}")
print(f"{sum(n for n,_ in other):>14,}  other"); print(f"{total:>14,}  total")
for n,name in sorted(other,reverse=True)[:5]: print('   other:',n,name[:120])
