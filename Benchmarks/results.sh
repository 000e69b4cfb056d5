#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates the results in docs/PERFORMANCE.md, the README's summary of them and
# docs/bench.png in one command:
#   1. makes the standard inputs when missing (fixed seed, so anyone gets the same bytes):
#        python3 corpus/generate.py dump --size-mb 500 --seed 42 -o /tmp/feedstream-dump.xml.gz
#        gzip -dc /tmp/feedstream-dump.xml.gz > /tmp/feedstream-dump.xml
#        python3 corpus/generate.py files --count 3000 --seed 42 -o /tmp/feedstream-files
#        and the same 3,000 files as plain XML (its gzip quarter inflated) in /tmp/feedstream-files-plain
#   2. builds feedstream (release) and runs
#        feedstream bench --json --runs N --compare-inflaters DUMP.xml DUMP.xml.gz FILES/ FILES-plain/ [REAL_CORPUS/]
#      (--compare-inflaters: the gzip contenders also with ISA-L, where it is installed)
#      into Benchmarks/results.json (the real-feed corpus, ../shared/corpus/real, is read
#      in place when present);
#   3. rewrites docs/PERFORMANCE.md between its bench-results markers and README.md
#      between its bench-summary markers, and redraws docs/bench.png
#      (Benchmarks/render.py; the plot needs matplotlib: pip install matplotlib).
#
# Usage: Benchmarks/results.sh [RUNS]      (default 5; about 10 minutes on 2 cores)
#   RESULTS_ONLY=1 Benchmarks/results.sh   re-renders from Benchmarks/results.json
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
gz=${FEEDSTREAM_DUMP:-/tmp/feedstream-dump.xml.gz}
xml=${gz%.gz}
files=${FEEDSTREAM_FILES:-/tmp/feedstream-files}
plain_files=${files%/}-plain
real=${FEEDSTREAM_REAL_CORPUS:-../shared/corpus/real}

if [ -z "${RESULTS_ONLY:-}" ]; then
  [ -f "$gz" ] || python3 corpus/generate.py dump --size-mb 500 --seed 42 -o "$gz"
  [ -f "$xml" ] || gzip -dc "$gz" > "$xml"
  [ -d "$files" ] || python3 corpus/generate.py files --count 3000 --seed 42 -o "$files"
  if [ ! -d "$plain_files" ]; then
    # The issue's target is on plain XML: the same files, each gzip one inflated.
    rm -rf "$plain_files.partial" && mkdir "$plain_files.partial"
    for f in "$files"/*; do
      b=$(basename "$f")
      case "$b" in
        *.gz) gzip -dc "$f" > "$plain_files.partial/${b%.gz}" ;;
        *) cp "$f" "$plain_files.partial/$b" ;;
      esac
    done
    mv "$plain_files.partial" "$plain_files"
  fi
  inputs=("$xml" "$gz" "$files" "$plain_files")
  [ -d "$real" ] && inputs+=("$real")
  swift build -c release --product feedstream >/dev/null
  .build/release/feedstream bench --json --runs "$runs" --compare-inflaters "${inputs[@]}" > Benchmarks/results.json.partial
  mv Benchmarks/results.json.partial Benchmarks/results.json
fi
python3 Benchmarks/render.py readme Benchmarks/results.json README.md docs/PERFORMANCE.md
if python3 -c 'import matplotlib' 2>/dev/null; then
  python3 Benchmarks/render.py plot Benchmarks/results.json docs/bench.png
else
  echo "results.sh: matplotlib not installed (pip install matplotlib): docs/bench.png not redrawn" >&2
fi
python3 Benchmarks/render.py table Benchmarks/results.json
