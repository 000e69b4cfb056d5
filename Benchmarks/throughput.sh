#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Side-by-side throughput on one generated dump, rounds alternating so that machine
# noise hits every contender alike. Prints the median MB/s of uncompressed XML for:
#   tokenize-only   expat, namespace-aware, empty callbacks (Benchmarks/baseline/tokenize.c)
#   gzip -dc        inflate only, to /dev/null
#   convert .xml    feedstream convert from plain XML to JSON Lines (/dev/null)
#   convert .gz     feedstream convert from the gzipped dump
#   libxml2 .xml    feedstream convert --backend libxml2 from plain XML
# and each convert's ratio to tokenize-only, plus convert's peak RSS.
#
# Usage: Benchmarks/throughput.sh [DUMP.xml.gz] [ROUNDS]
#   Default dump: /tmp/feedstream-dump.xml.gz, made with
#   python3 corpus/generate.py dump --size-mb 500 --seed 42 -o /tmp/feedstream-dump.xml.gz
set -euo pipefail
cd "$(dirname "$0")/.."
gz=${1:-/tmp/feedstream-dump.xml.gz}
rounds=${2:-5}
[ -f "$gz" ] || python3 corpus/generate.py dump --size-mb 500 --seed 42 -o "$gz"
xml=${gz%.gz}
[ -f "$xml" ] || gzip -dc "$gz" > "$xml"
swift build -c release --product feedstream >/dev/null
bin=.build/release/feedstream
tok=.build/tokenize-baseline
cc -O2 -o "$tok" Benchmarks/baseline/tokenize.c $(pkg-config --cflags --libs expat)
bytes=$(stat -L -c %s "$xml")

now() { date +%s.%N; }
timeit() { local t0 t1; t0=$(now); "$@" >/dev/null 2>&1; t1=$(now); echo "$t0 $t1" | awk -v b="$bytes" '{printf "%.1f\n", b/1e6/($2-$1)}'; }

declare -A runs
for ((r = 1; r <= rounds; r++)); do
  runs[tok]+="$(timeit "$tok" "$xml") "
  runs[gz]+="$(timeit sh -c "gzip -dc '$gz' > /dev/null") "
  runs[plain]+="$(timeit "$bin" convert -q "$xml") "
  runs[cgz]+="$(timeit "$bin" convert -q "$gz") "
  runs[lx]+="$(timeit "$bin" convert -q --backend libxml2 "$xml") "
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
t=$(echo "${runs[tok]}" | median)
printf "%-16s %8s  %s\n" contender "MB/s" "runs (MB/s)"
printf "%-16s %8s  %s\n" tokenize-only "$t" "${runs[tok]}"
printf "%-16s %8s  %s\n" "gzip -dc" "$(echo "${runs[gz]}" | median)" "${runs[gz]}"
p=$(echo "${runs[plain]}" | median)
g=$(echo "${runs[cgz]}" | median)
printf "%-16s %8s  %s  (%.2fx tokenize-only)\n" "convert .xml" "$p" "${runs[plain]}" "$(echo "$p $t" | awk '{print $1/$2}')"
printf "%-16s %8s  %s  (%.2fx tokenize-only)\n" "convert .gz" "$g" "${runs[cgz]}" "$(echo "$g $t" | awk '{print $1/$2}')"
l=$(echo "${runs[lx]}" | median)
printf "%-16s %8s  %s  (%.2fx tokenize-only, %.2fx expat convert .xml)\n" "libxml2 .xml" "$l" "${runs[lx]}" "$(echo "$l $t" | awk '{print $1/$2}')" "$(echo "$l $p" | awk '{print $1/$2}')"
/usr/bin/time -f "peak RSS convert .gz: %M KB" "$bin" convert -q "$gz" > /dev/null
/usr/bin/time -f "peak RSS convert .xml: %M KB" "$bin" convert -q "$xml" > /dev/null
