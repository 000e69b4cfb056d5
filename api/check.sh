#!/usr/bin/env bash
# The public API check, run by .ci/run:
#
#   - the public surface of the FeedStream module (from its symbol graph, with what it
#     re-exports from FeedStreamCore, FeedStreamSwift and FeedStreamNative: the API of
#     `import FeedStream`) must be the one
#     listed in api/FeedStream.txt: a change to the public API is a deliberate, reviewed
#     edit of that file, with a CHANGELOG.md entry saying whether it breaks callers. The
#     FeedStreamSwift product's API is the same list less the symbols of FeedStreamNative
#     (the C backends) and of FeedStream itself (FeedBackend and the entry points that
#     take one);
#   - every public symbol has a doc comment;
#   - the DocC catalog (Sources/FeedStream/FeedStream.docc) and every doc comment's links
#     build with `docc convert --warnings-as-errors`: the same check as
#     `swift package generate-documentation`, without the plugin (see docs/LIBRARY.md);
#   - once there is a release tag: `swift package diagnose-api-breaking-changes` against
#     it, every break listed in api/breakage-allowlist.txt.
#
#     api/check.sh             check
#     api/check.sh --update    rewrite api/FeedStream.txt from the current sources
#
# FEEDSTREAM_SCRATCH picks the build folder (default .build, as `swift test` uses).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${FEEDSTREAM_SCRATCH:-.build}"
work="$scratch/api-check"
rm -rf "$work"
mkdir -p "$work/graphs"

# dump-symbol-graph also tries the test modules and fails when they are not built yet;
# what matters is that FeedStream's graph is written, fresh.
rm -rf "$scratch"/*/symbolgraph
swift package --scratch-path "$scratch" --very-verbose dump-symbol-graph --skip-synthesized-members \
    >"$work/dump.log" 2>&1 || true
graphs=$(sed -n 's/^Files written to //p' "$work/dump.log")
[ -n "$graphs" ] && [ -f "$graphs/FeedStream.symbols.json" ] || { cat "$work/dump.log" >&2; exit 1; }
# The FeedStream module re-exports the library's other modules (`@_exported import`):
# its API, what `import FeedStream` gives, is all their public symbols. SwiftPM's graph of
# FeedStream holds only what FeedStream itself declares, so run SwiftPM's own extractor
# command for FeedStream (from the --very-verbose log) again, with the re-exported module
# let in: one graph, module FeedStream, for the surface and for DocC.
extract=$(sed -n 's/^debug: \(.*swift-symbolgraph-extract -module-name FeedStream .*\)$/\1/p' "$work/dump.log")
[ "$(printf '%s\n' "$extract" | grep -c .)" = 1 ] ||
    { echo "api: no (or more than one) swift-symbolgraph-extract command for FeedStream in $work/dump.log" >&2; exit 1; }
eval "$extract -experimental-allowed-reexported-modules=FeedStreamCore,FeedStreamSwift,FeedStreamNative -output-dir $work/graphs" \
    >"$work/extract.log" 2>&1 || { cat "$work/extract.log" >&2; exit 1; }
[ -f "$work/graphs/FeedStream.symbols.json" ] || { cat "$work/extract.log" >&2; exit 1; }

python3 api/surface.py "$work/graphs" >"$work/FeedStream.txt"
if [ "${1:-}" = "--update" ]; then
    cp "$work/FeedStream.txt" api/FeedStream.txt
    echo "api: api/FeedStream.txt updated ($(wc -l <api/FeedStream.txt) symbols); say what changed in CHANGELOG.md"
elif ! diff -u api/FeedStream.txt "$work/FeedStream.txt"; then
    echo "api: the public API differs from api/FeedStream.txt (above: - listed, + now)." >&2
    echo "api: if intended, run api/check.sh --update and add a CHANGELOG.md entry." >&2
    exit 1
fi

python3 api/surface.py "$work/graphs" --undocumented >"$work/undocumented.txt"
if [ -s "$work/undocumented.txt" ]; then
    echo "api: public symbols without a doc comment:" >&2
    cat "$work/undocumented.txt" >&2
    exit 1
fi

docc convert Sources/FeedStream/FeedStream.docc \
    --additional-symbol-graph-dir "$work/graphs" \
    --output-path "$work/FeedStream.doccarchive" \
    --fallback-display-name FeedStream --fallback-bundle-identifier FeedStream \
    --warnings-as-errors >"$work/docc.log" 2>&1 || { cat "$work/docc.log" >&2; exit 1; }
echo "api: $(wc -l <api/FeedStream.txt) public symbols as listed, all documented; DocC builds without warnings"

# Against the last release (a tag), SwiftPM's own API/ABI comparison: every breaking
# change must be listed in api/breakage-allowlist.txt (and explained in CHANGELOG.md).
# FEEDSTREAM_API_BASELINE overrides the baseline (any commit); no tag, no baseline: skipped.
# Every library module, each on its own: each one's checked API is what it declares.
baseline="${FEEDSTREAM_API_BASELINE:-$(git describe --tags --abbrev=0 2>/dev/null || true)}"
if [ -n "$baseline" ]; then
    touch "$work/allowlist.txt"
    [ -f api/breakage-allowlist.txt ] && cp api/breakage-allowlist.txt "$work/allowlist.txt"
    swift package --scratch-path "$scratch" diagnose-api-breaking-changes "$baseline" --targets FeedStream FeedStreamCore FeedStreamSwift FeedStreamNative \
        --baseline-dir "$work/baseline" --breakage-allowlist-path "$work/allowlist.txt" >"$work/breaking.log" 2>&1 ||
        { cat "$work/breaking.log" >&2; echo "api: breaking changes since $baseline (above) not in api/breakage-allowlist.txt" >&2; exit 1; }
    echo "api: no unlisted breaking change since $baseline"
else
    echo "api: no release tag yet: breaking-change check against a baseline skipped"
fi
