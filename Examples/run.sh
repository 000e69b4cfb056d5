#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the examples as another package and a C project would, runs them on the
# corpus and checks what they print. Called by .ci/run; runs alone from anywhere:
#
#     Examples/run.sh
#
# Scratch paths are inside Examples/.build (ignored), never the root's .build.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=Examples/.build/ci

expect() {   # expect NAME PATTERN OUTPUT: OUTPUT must contain PATTERN (a fixed string)
    if ! grep -qF -- "$2" <<<"$3"; then
        printf 'examples: %s: expected %s in:\n%s\n' "$1" "$2" "$3" >&2
        exit 1
    fi
}

# --- the Swift package (depends on the root by path) -----------------------------------
swift build --package-path Examples --scratch-path "$scratch/swift"
bin="$scratch/swift/debug"

out=$("$bin/feed-oneshot" corpus/feeds/dump-three.xml)
expect feed-oneshot '{"format":"atom10","items":["Two: only entry"],"title":"Dump Feed Two (Atom)"}' "$out"
expect feed-oneshot 'documents: 3, items: 4, backend: expat (completion and generic agree)' "$out"
out=$("$bin/feed-oneshot" corpus/bad/mismatched.xml --backend libxml2)
expect feed-oneshot-error '"error":"document 1, line 22, column 68: mismatched tag (recovered)"' "$out"

out=$("$bin/feed-stream" corpus/feeds/dump-three.xml 2)
expect feed-stream 'item 2: One: second item' "$out"
if grep -qF 'item 3:' <<<"$out"; then echo "examples: feed-stream did not stop at its limit" >&2; exit 1; fi
expect feed-stream 'events: 3 documents, 4 items, 0 failures' "$out"
out=$("$bin/feed-stream" corpus/bad/mismatched.xml)
expect feed-stream-error 'stopped: xml: document 1, line 22, column 68: mismatched tag' "$out"
# 2 items before the error and 1 after it (the recovery path; docs/SCHEMA.md).
expect feed-stream-error 'events: 1 documents, 3 items, 1 failures' "$out"

out=$("$bin/feed-titles" corpus/feeds/rss2-basic.xml corpus/feeds/atom-basic.xml)
expect feed-titles '  2: Release notes: importer 2.4' "$out"
expect feed-titles 'documents finished: 4' "$out"
status=0
out=$("$bin/feed-titles" corpus/bad/truncated.xml) || status=$?
[ "$status" = 1 ] || { echo "examples: feed-titles on a bad file exited $status, not 1" >&2; exit 1; }
expect feed-titles-error 'failed (swift): document 1, line 22, column 61: no element found' "$out"

# --- the docs' Swift snippets, as written: the snippets target holds each one ----------
python3 Examples/check-snippets.py

# --- the docs' dependency lines, as written: a package beside a clone named FeedStream
# (a symlink to this checkout) uses README's path line, then README's URL line pointing
# at a bare clone of this repository (file://), with README's product line;
# `swift package describe` resolves the graph (a wrong package name fails there).
deps="$scratch/deps"
rm -rf "$deps" && mkdir -p "$deps/app/Sources/App"
ln -s "$PWD" "$deps/FeedStream"
git clone -q --bare . "$deps/remote/FeedStream.git"
git -C "$deps/remote/FeedStream.git" branch -f main HEAD
path_dep=$(grep -o '\.package(path: "\.\./FeedStream")' README.md | head -1)
url_dep=$(grep -o '\.package(url: "https://example.com/you/FeedStream.git", branch: "main")' README.md | head -1)
product=$(grep -o '\.product(name: "FeedStream", package: "FeedStream")' README.md | head -1)
for doc in Sources/FeedStream/FeedStream.docc/GettingStarted.md; do
    for line in "$path_dep" "$url_dep" "$product"; do
        grep -qF -- "$line" "$doc" || { echo "examples: $doc lacks README's $line" >&2; exit 1; }
    done
done
echo 'import FeedStream' > "$deps/app/Sources/App/main.swift"
for dep in "$path_dep" "${url_dep/https:\/\/example.com\/you/file://$PWD/$deps/remote}"; do
    [ -n "$dep" ] && [ -n "$product" ] || { echo "examples: README's dependency lines were not found" >&2; exit 1; }
    cat > "$deps/app/Package.swift" <<MANIFEST
// swift-tools-version: 6.0
import PackageDescription
let package = Package(name: "App", dependencies: [$dep],
                      targets: [.executableTarget(name: "App", dependencies: [$product])])
MANIFEST
    rm -rf "$deps/app/.build" "$deps/app/Package.resolved"
    out=$(swift package --package-path "$deps/app" describe 2>&1) || { echo "examples: $dep: $out" >&2; exit 1; }
    echo "examples: dependency line resolves: $dep"
done

# --- the FeedStreamSwift product alone (no expat, libxml2 or C core) -------------------
# Its JSON Lines are the fixture's, byte for byte (the writer leaves "source" empty), from
# plain and gzip input.
mkdir -p "$scratch/swift-only"
gzip -c corpus/feeds/dump-three.xml > "$scratch/swift-only/dump-three.xml.gz"
for input in corpus/feeds/dump-three.xml "$scratch/swift-only/dump-three.xml.gz"; do
    out=$("$bin/feed-swift-only" "$input")
    expect feed-swift-only 'document 2: Dump Feed Two (Atom) (atom10), 1 items' "$out"
    expect feed-swift-only 'swift: 3 documents, 4 items' "$out"
    if ! diff <(grep '^{' <<<"$out" | sed 's/"source":""/"source":"feeds\/dump-three.xml"/') \
              corpus/expected/dump-three.jsonl >&2; then
        echo "examples: feed-swift-only $input: JSON Lines differ from corpus/expected/dump-three.jsonl" >&2
        exit 1
    fi
done
status=0
out=$("$bin/feed-swift-only" corpus/bad/truncated.xml) || status=$?
[ "$status" = 1 ] || { echo "examples: feed-swift-only on a bad file exited $status, not 1" >&2; exit 1; }
expect feed-swift-only-error 'failed: document 1, line 22, column 61: no element found' "$out"
# What its binary links (the libraries it needs at run time): zlib, never expat or
# libxml2; feed-oneshot (the FeedStream product) needs all three, which shows the
# check sees them.
needed() {
    case "$(uname -s)" in
        Linux) readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' ;;
        Darwin) otool -L "$1" | tail -n +2 ;;
        *) echo "examples: no way to list the libraries $1 needs here" >&2; exit 1 ;;
    esac
}
libs=$(needed "$bin/feed-oneshot")
for lib in libexpat libxml2 libz; do expect feed-oneshot-links "$lib" "$libs"; done
libs=$(needed "$bin/feed-swift-only")
expect feed-swift-only-links libz "$libs"
if grep -E 'libexpat|libxml2' <<<"$libs"; then
    echo "examples: feed-swift-only (FeedStreamSwift alone) links expat or libxml2 (above)" >&2
    exit 1
fi

# --- the C example: the library installed with `make install PREFIX=...`, the example
# built with `pkg-config --cflags --libs feedstream` (shared) and --static (the archive)
mapfile -t feedlists < <(Examples/c/build.sh "$scratch/c/feedlist" "$scratch/c/prefix")
[ "${#feedlists[@]}" = 2 ] || { echo "examples: Examples/c/build.sh printed ${#feedlists[@]} paths, not 2" >&2; exit 1; }
libs=$(needed "${feedlists[0]}")
expect feedlist-links libfeedstream.so.0 "$libs"
libs=$(needed "${feedlists[1]}")
if grep -F libfeedstream <<<"$libs"; then echo "examples: feedlist-static needs libfeedstream (above)" >&2; exit 1; fi
gzip -c corpus/feeds/rss2-basic.xml > "$scratch/c/rss2-basic.xml.gz"
for feedlist in "${feedlists[@]}"; do
    out=$("$feedlist" corpus/feeds/dump-three.xml)
    expect feedlist '{"document":2,"index":0,"title":"Two: only entry","link":"https://example.org/dump/two/1"}' "$out"
    expect feedlist '{"document":3,"feed":"Dump Feed Three (RSS 1.0, no XML declaration)","format":"rss10","items":1}' "$out"
    out=$("$feedlist" --backend libxml2 "$scratch/c/rss2-basic.xml.gz")
    expect feedlist-gzip '"title":"Release notes: importer 2.4"' "$out"
    status=0
    err=$("$feedlist" corpus/bad/mismatched.xml 2>&1 >/dev/null) || status=$?
    [ "$status" = 1 ] || { echo "examples: $feedlist on a bad file exited $status, not 1" >&2; exit 1; }
    expect feedlist-error '"error":"mismatched tag","line":22,"column":68}' "$err"
done

echo "examples: all ran as expected"
