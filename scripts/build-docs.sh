#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the API documentation of `import FeedStream` — every public symbol of the
# FeedStream product, those it re-exports from FeedStreamCore, FeedStreamSwift and
# FeedStreamNative included — with the DocC catalog Sources/FeedStream/FeedStream.docc,
# and fails on any DocC warning.
#
#     scripts/build-docs.sh            # .build/docs/FeedStream.doccarchive
#     docc preview Sources/FeedStream/FeedStream.docc --additional-symbol-graph-dir .build/docs/graphs
#
# SwiftPM's symbol graph of FeedStream (and so `swift package generate-documentation`)
# holds only what FeedStream itself declares; this runs SwiftPM's own extractor command
# for FeedStream again with the re-exported modules let in: one graph, module
# FeedStream, which api/check.sh reads too (.build/docs/graphs).
# FEEDSTREAM_SCRATCH picks the build folder (default .build, as `swift test` uses).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${FEEDSTREAM_SCRATCH:-.build}"
work="$scratch/docs"
rm -rf "$work"
mkdir -p "$work/graphs"

# dump-symbol-graph also tries the test modules and fails when they are not built yet;
# what matters is that FeedStream's graph is written, fresh.
rm -rf "$scratch"/*/symbolgraph
swift package --scratch-path "$scratch" --very-verbose dump-symbol-graph --skip-synthesized-members \
    >"$work/dump.log" 2>&1 || true
graphs=$(sed -n 's/^Files written to //p' "$work/dump.log")
[ -n "$graphs" ] && [ -f "$graphs/FeedStream.symbols.json" ] || { cat "$work/dump.log" >&2; exit 1; }
extract=$(sed -n 's/^debug: \(.*swift-symbolgraph-extract -module-name FeedStream .*\)$/\1/p' "$work/dump.log")
[ "$(printf '%s\n' "$extract" | grep -c .)" = 1 ] ||
    { echo "docs: no (or more than one) swift-symbolgraph-extract command for FeedStream in $work/dump.log" >&2; exit 1; }
eval "$extract -experimental-allowed-reexported-modules=FeedStreamCore,FeedStreamSwift,FeedStreamNative -output-dir $work/graphs" \
    >"$work/extract.log" 2>&1 || { cat "$work/extract.log" >&2; exit 1; }
[ -f "$work/graphs/FeedStream.symbols.json" ] || { cat "$work/extract.log" >&2; exit 1; }

docc convert Sources/FeedStream/FeedStream.docc \
    --additional-symbol-graph-dir "$work/graphs" \
    --output-path "$work/FeedStream.doccarchive" \
    --fallback-display-name FeedStream --fallback-bundle-identifier FeedStream \
    --warnings-as-errors >"$work/docc.log" 2>&1 || { cat "$work/docc.log" >&2; exit 1; }
# The core types have pages of their own.
for page in feedparser feedhandler feederror feedinput feedbackend jsonlineswriter; do
    [ -f "$work/FeedStream.doccarchive/data/documentation/feedstream/$page.json" ] ||
        { echo "docs: no page for $page in $work/FeedStream.doccarchive" >&2; exit 1; }
done
pages=$(find "$work/FeedStream.doccarchive/data/documentation" -name '*.json' | wc -l)
echo "docs: $work/FeedStream.doccarchive, $pages pages, no warnings"
