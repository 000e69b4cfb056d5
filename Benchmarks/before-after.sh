#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Paired before/after throughput of two `feedstream` binaries: for each backend and
# input, runs `convert -q -j 1` with one binary, then the other, round after round,
# so that machine noise hits both alike; prints the median MB/s of uncompressed XML of
# each and the after/before ratio.
#
# Usage: Benchmarks/before-after.sh BEFORE_BIN AFTER_BIN [ROUNDS] INPUT...
#   e.g. git worktree add --detach /tmp/before <rev> && (cd /tmp/before && swift build -c release)
#        swift build -c release
#        Benchmarks/before-after.sh /tmp/before/.build/release/feedstream .build/release/feedstream 5 \
#            /tmp/feedstream-dump.xml /tmp/feedstream-dump.xml.gz /tmp/feedstream-files
# An input's uncompressed size is taken from `convert --stats` (bytes of XML).
set -euo pipefail
before=$1 after=$2 rounds=${3:-5}
shift 3
backends=${BACKENDS:-expat libxml2 swift}

xml_bytes() {   # uncompressed XML bytes of an input, as the tool counts them
  local stats
  stats=$(mktemp)
  "$after" convert -q -j 1 --stats "$stats" "$1" >/dev/null 2>&1 || true
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s.get("bytes_xml") or s.get("bytesXML") or s.get("mb", 0))' "$stats"
  rm -f "$stats"
}
now() { date +%s.%N; }
mbps() { awk -v b="$1" -v t0="$2" -v t1="$3" 'BEGIN {printf "%.1f", b/1e6/(t1-t0)}'; }
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

printf "%-8s %-28s %10s %10s %7s\n" backend input "before" "after" "ratio"
for input in "$@"; do
  bytes=$(xml_bytes "$input")
  for b in $backends; do
    rb="" ra=""
    for ((r = 1; r <= rounds; r++)); do
      t0=$(now); "$before" convert -q -j 1 --backend "$b" "$input" >/dev/null 2>&1 || true; t1=$(now)
      rb+="$(mbps "$bytes" "$t0" "$t1") "
      t0=$(now); "$after" convert -q -j 1 --backend "$b" "$input" >/dev/null 2>&1 || true; t1=$(now)
      ra+="$(mbps "$bytes" "$t0" "$t1") "
    done
    mb=$(echo "$rb" | median) ma=$(echo "$ra" | median)
    printf "%-8s %-28s %10s %10s %7s\n" "$b" "$(basename "$input")" "$mb" "$ma" \
      "$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.2f", a/b}')"
  done
done
