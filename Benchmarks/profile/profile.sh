#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where the time goes between tokenize-only and end to end, in instructions (callgrind
# counts are reproducible, unlike timings on a shared machine).
#
#   Benchmarks/profile/profile.sh [MB]     (default 60: the first 60 MB of the dump)
#
# Cuts the first MB megabytes of the plain standard dump at a document boundary, runs
#   tokenize only   Benchmarks/profile/tokenize_only.c (cfs_baseline_tokenize_fd)
#   end to end      feedstream convert -q -j 1 --backend B SLICE > /dev/null   (B → JSON Lines,
#                   one thread, as the tokenizer runs;
#                   FEEDSTREAM_BACKEND, default expat)
# under valgrind --tool=callgrind, on a release binary stripped of debug info
# (objcopy --strip-debug: valgrind cannot read Swift's DWARF), and prints both totals,
# the instructions per byte and per item, and the end-to-end profile by group
# (groups.py). callgrind_annotate / callers.py dig further, e.g.
#   python3 Benchmarks/profile/callers.py /tmp/feedstream-profile/convert.out appendJSONEscaped
set -euo pipefail
cd "$(dirname "$0")/../.."
mb=${1:-60}
backend=${FEEDSTREAM_BACKEND:-expat}
out=/tmp/feedstream-profile
mkdir -p "$out"
dump=${FEEDSTREAM_DUMP:-/tmp/feedstream-dump.xml.gz}
xml=${dump%.gz}
[ -f "$dump" ] || python3 corpus/generate.py dump --size-mb 500 --seed 42 -o "$dump"
[ -f "$xml" ] || gzip -dc "$dump" > "$xml"
slice="$out/slice-$mb.xml"
python3 - "$xml" "$slice" "$mb" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read(int(sys.argv[3]) * 1_000_000)
cut = data.rfind(b'<?xml')
open(sys.argv[2], 'wb').write(data[:cut])
PY
swift build -c release --product feedstream >/dev/null
objcopy --strip-debug .build/release/feedstream "$out/feedstream"
cc -O2 -ICSources/CFeedStream/include -ICSources/CFeedStreamBaseline/include -ICSources/CFeedStreamInflate/include \
  -o "$out/tokenize_only" Benchmarks/profile/tokenize_only.c CSources/CFeedStreamBaseline/baseline.c \
  CSources/CFeedStreamInflate/inflate.c $(pkg-config --cflags --libs expat zlib) -lpthread -ldl
valgrind --tool=callgrind --callgrind-out-file="$out/tok.out" "$out/tokenize_only" "$slice" 2>/dev/null
"$out/feedstream" convert -j 1 --backend "$backend" "$slice" 2>"$out/convert.summary" >/dev/null
valgrind --tool=callgrind --callgrind-out-file="$out/convert.out" "$out/feedstream" convert -q -j 1 --backend "$backend" "$slice" \
  >/dev/null 2>/dev/null
echo "== end to end: $(cat "$out/convert.summary")"
python3 - "$out" "$slice" <<'PY'
import re, subprocess, sys, os
out, slice = sys.argv[1], sys.argv[2]
def total(f):
    t = subprocess.run(['callgrind_annotate', f], capture_output=True, text=True).stdout
    return int(re.search(r'([\d,]+) \(100.0%\)\s+PROGRAM TOTALS', t).group(1).replace(',', ''))
s = open(os.path.join(out, 'convert.summary')).read()
items = int(re.search(r'(\d+) items', s).group(1))
size = os.path.getsize(slice)
t, c = total(os.path.join(out, 'tok.out')), total(os.path.join(out, 'convert.out'))
print(f"tokenize only: {t:,} Ir ({t/size:.1f}/byte)   end to end: {c:,} Ir ({c/size:.1f}/byte, {c/items:,.0f}/item)")
print(f"tokenize-only / end-to-end = {t/c:.3f}; end to end does {c-t:,} more ({(c-t)/items:,.0f}/item)")
PY
echo "== tokenize only, by group"
python3 Benchmarks/profile/groups.py "$out/tok.out"
echo "== end to end, by group"
python3 Benchmarks/profile/groups.py "$out/convert.out"
