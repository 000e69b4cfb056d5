#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
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
#     build with no warning, over every public symbol (scripts/build-docs.sh, the command
#     docs/LIBRARY.md gives);
#   - once there is a release tag, when api/FeedStream.txt changed since it:
#     `swift package diagnose-api-breaking-changes` against it, every break listed in
#     api/breakage-allowlist.txt.
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

# The symbol graph of `import FeedStream` (re-exported modules included) and the DocC
# archive, built with no warning allowed (scripts/build-docs.sh).
FEEDSTREAM_SCRATCH="$scratch" scripts/build-docs.sh >"$work/docs.log" 2>&1 || { cat "$work/docs.log" >&2; exit 1; }
cp -R "$scratch/docs/graphs/." "$work/graphs/"

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

echo "api: $(wc -l <api/FeedStream.txt) public symbols as listed, all documented; DocC builds without warnings"

# Against the last release (a tag), SwiftPM's own API/ABI comparison: every breaking
# change must be listed in api/breakage-allowlist.txt (and explained in CHANGELOG.md).
# FEEDSTREAM_API_BASELINE overrides the baseline (any commit); no tag, no baseline: skipped.
# Every library module, each on its own: each one's checked API is what it declares.
baseline="${FEEDSTREAM_API_BASELINE:-$(git describe --tags --abbrev=0 2>/dev/null || true)}"
if [ -n "$baseline" ] && [ -z "${FEEDSTREAM_API_BASELINE:-}" ] && git diff --quiet "$baseline" -- api/FeedStream.txt; then
    # The listing (every public declaration, in full) is the release's and matches the
    # sources (checked above): the API is the released one, nothing to compare.
    echo "api: the public API is the one released as $baseline (api/FeedStream.txt unchanged)"
elif [ -n "$baseline" ]; then
    touch "$work/allowlist.txt"
    [ -f api/breakage-allowlist.txt ] && cp api/breakage-allowlist.txt "$work/allowlist.txt"
    swift package --scratch-path "$scratch" diagnose-api-breaking-changes "$baseline" --targets FeedStream FeedStreamCore FeedStreamSwift FeedStreamNative \
        --baseline-dir "$work/baseline" --breakage-allowlist-path "$work/allowlist.txt" >"$work/breaking.log" 2>&1 ||
        { cat "$work/breaking.log" >&2; echo "api: breaking changes since $baseline (above) not in api/breakage-allowlist.txt" >&2; exit 1; }
    echo "api: no unlisted breaking change since $baseline"
else
    echo "api: no release tag yet: breaking-change check against a baseline skipped"
fi
