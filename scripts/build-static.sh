#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds a self-contained `feedstream` for machines without a Swift toolchain (Spark
# workers, cluster nodes): the Swift runtime and Foundation linked in
# (--static-swift-stdlib); the system's C libraries stay shared (see below).
#
#     scripts/build-static.sh            # prints the binary's path: .build-static/release/feedstream
#     scripts/build-static.sh --check    # then runs it with the toolchain hidden (CI)
#
# What the binary still needs at run time (readelf -d; printed by this script):
#   libc, libm and libstdc++/libgcc_s (the C and C++ runtimes; every Linux has them),
#   zlib (libz.so.1), zstd (libzstd.so.1), expat (libexpat.so.1) and libxml2
#   (libxml2.so.2, which on Debian/Ubuntu brings ICU and liblzma with it): on
#   Debian/Ubuntu `apt-get install zlib1g libzstd1 libexpat1 libxml2`, the runtime packages of the -dev ones
#   the build needs. Build on the oldest distribution you deploy to (glibc is
#   backward-compatible only).
#
# --check runs the binary as a Spark worker would start it: in `env -i` (no PATH, no
# LD_LIBRARY_PATH) and, where `unshare -m` works (root, or user namespaces), in a
# mount namespace with an empty folder mounted over the toolchain's runtime folder,
# so that a libswift*.so it still needed could not be found; it must convert a
# concatenated dump byte for byte as corpus/expected says.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build-static
swift build -c release --product feedstream --static-swift-stdlib --scratch-path "$scratch" >&2
bin="$PWD/$scratch/release/feedstream"
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
echo "build-static: $bin needs: $needed" >&2
if [ "${1:-}" != "--check" ]; then echo "$bin"; exit 0; fi

fail() { echo "build-static --check: $*" >&2; exit 1; }
case " $needed" in *" libswift"* | *" libFoundation"* | *" libdispatch"* | *" libBlocksRuntime"*)
    fail "the binary still needs the Swift runtime: $needed" ;; esac
if readelf -d "$bin" | grep -E 'R(UN)?PATH' | grep -q swift; then fail "its run path names the toolchain"; fi
runtime="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/lib/swift"
[ -d "$runtime" ] || fail "no toolchain runtime folder at $runtime"
run='cd corpus && env -i "$0" convert -q feeds/dump-three.xml > "$1"'
out=$(mktemp)
if unshare -m true 2>/dev/null; then
    # shellcheck disable=SC2016
    unshare -m sh -c 'mount -t tmpfs hidden "$2" && [ -z "$(ls -A "$2")" ] && '"$run" "$bin" "$out" "$runtime" \
        || fail "the binary did not run with $runtime hidden"
    how="with $runtime hidden (mount namespace) and an empty environment"
else
    sh -c "$run" "$bin" "$out" || fail "the binary did not run in an empty environment"
    how="in an empty environment (unshare -m not permitted here: the toolchain folder was not hidden; its NEEDED list has no Swift library)"
fi
diff "$out" corpus/expected/dump-three.jsonl >&2 || fail "its output differs from corpus/expected/dump-three.jsonl"
rm -f "$out"
echo "build-static --check: $bin ran $how; output as expected" >&2
echo "$bin"
