#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How `feedstream convert` scales, side by side in one run, rounds alternating (and
# the order within a round flipping) so that machine noise hits every contender alike:
#   files -j 1 / -j 2          the per-file corpus (3000 files, every 4th gzipped)
#   dump.gz --no-pipeline / pipeline
#                              one big gzipped dump, parsed with inflating on the same
#                              thread, or read and inflated on a second thread
#   tiny -j 1 / -j 2, each backend
#                              a dump of 200,000 minimal feeds: what each document costs,
#                              on one thread and in parts (which must be no slower)
# Prints the median wall time and MB/s of uncompressed XML of each, the two speed-up
# ratios, and the peak resident memory (/usr/bin/time -f %M) of -j 2 on the dump.
# Output goes to /dev/null, as in throughput.sh.
#
# Usage: Benchmarks/scaling.sh [ROUNDS]
#   FILES=/tmp/feedstream-files  made with: python3 corpus/generate.py files --count 3000 --seed 42 -o DIR
#   DUMP=/tmp/feedstream-dump.xml.gz  made with: python3 corpus/generate.py dump --size-mb 500 --seed 42 -o FILE
#   TINY=/tmp/feedstream-tiny.xml  made with: python3 corpus/generate.py tiny --count 200000 -o FILE
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
files=${FILES:-/tmp/feedstream-files}
gz=${DUMP:-/tmp/feedstream-dump.xml.gz}
[ -d "$files" ] || python3 corpus/generate.py files --count 3000 --seed 42 -o "$files"
[ -f "$gz" ] || python3 corpus/generate.py dump --size-mb 500 --seed 42 -o "$gz"
tiny=${TINY:-/tmp/feedstream-tiny.xml}
[ -f "$tiny" ] || python3 corpus/generate.py tiny --count 200000 -o "$tiny"
xml=${gz%.gz}
[ -f "$xml" ] || gzip -dc "$gz" > "$xml"
swift build -c release --product feedstream >/dev/null
bin=.build/release/feedstream

# Uncompressed XML bytes of each workload, from the converter's own count.
stats=$(mktemp)
xml_bytes() {
  "$bin" convert -q --stats "$stats" "$@" >/dev/null || true
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["bytes_xml"])' "$stats"
}
files_bytes=$(xml_bytes "$files")
dump_bytes=$(xml_bytes "$gz")
tiny_bytes=$(xml_bytes "$tiny")
backends="swift expat libxml2"
rm -f "$stats"

now() { date +%s.%N; }
timeit() { local t0 t1; t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now); echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}'; }

declare -A runs
run() { runs[$1]+="$(timeit "${@:2}") "; }
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then
    run j1 "$bin" convert -q -j 1 "$files"; run j2 "$bin" convert -q -j 2 "$files"
    run nopipe "$bin" convert -q -j 2 --no-pipeline "$gz"; run pipe "$bin" convert -q -j 2 "$gz"
  else
    run j2 "$bin" convert -q -j 2 "$files"; run j1 "$bin" convert -q -j 1 "$files"
    run pipe "$bin" convert -q -j 2 "$gz"; run nopipe "$bin" convert -q -j 2 --no-pipeline "$gz"
  fi
  for b in $backends; do
    if ((r % 2)); then
      run "tiny1$b" "$bin" convert -q -j 1 --backend "$b" "$tiny"; run "tiny2$b" "$bin" convert -q -j 2 --backend "$b" "$tiny"
    else
      run "tiny2$b" "$bin" convert -q -j 2 --backend "$b" "$tiny"; run "tiny1$b" "$bin" convert -q -j 1 --backend "$b" "$tiny"
    fi
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
row() {   # name key bytes
  local m; m=$(echo "${runs[$2]}" | median)
  printf "%-28s %7.2f s %8.1f MB/s   runs (s): %s\n" "$1" "$m" "$(echo "$3 $m" | awk '{print $1/1e6/$2}')" "${runs[$2]}"
}
echo "feedstream convert scaling, $(nproc) cores, median of $rounds alternating rounds, output to /dev/null"
row "files -j 1" j1 "$files_bytes"
row "files -j 2" j2 "$files_bytes"
row "dump.gz -j 2 --no-pipeline" nopipe "$dump_bytes"
row "dump.gz -j 2 (pipeline)" pipe "$dump_bytes"
for b in $backends; do
  row "tiny -j 1 --backend $b" "tiny1$b" "$tiny_bytes"
  row "tiny -j 2 --backend $b" "tiny2$b" "$tiny_bytes"
done
j1=$(echo "${runs[j1]}" | median); j2=$(echo "${runs[j2]}" | median)
np=$(echo "${runs[nopipe]}" | median); p=$(echo "${runs[pipe]}" | median)
printf "speed-up -j 2 over -j 1 (files):        %.2fx\n" "$(echo "$j1 $j2" | awk '{print $1/$2}')"
printf "speed-up pipeline over --no-pipeline:   %.2fx\n" "$(echo "$np $p" | awk '{print $1/$2}')"
for b in $backends; do
  t1=$(echo "${runs[tiny1$b]}" | median); t2=$(echo "${runs[tiny2$b]}" | median)
  printf "speed-up -j 2 over -j 1 (tiny, %-7s): %.2fx\n" "$b" "$(echo "$t1 $t2" | awk '{print $1/$2}')"
done
/usr/bin/time -f "peak RSS -j 2, dump .gz:   %M KB" "$bin" convert -q -j 2 "$gz" >/dev/null
/usr/bin/time -f "peak RSS -j 2, dump .xml:  %M KB" "$bin" convert -q -j 2 "$xml" >/dev/null
/usr/bin/time -f "peak RSS -j 2, files:      %M KB" "$bin" convert -q -j 2 "$files" >/dev/null
