#!/usr/bin/env bash
# Builds the C example against the C core's sources with cc and pkg-config, as a C
# project that vendors FeedStream's C core would:
#
#     Examples/c/build.sh [OUTPUT]        (default: Examples/.build/c/feedlist)
#
# Only the public header is on the example's include path; the core's sources compile
# with their own folder (internal.h) on theirs.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/Examples/.build/c/feedlist}"
mkdir -p "$(dirname "$out")"
CC="${CC:-cc}"
deps="expat libxml-2.0 zlib"
objdir="$(dirname "$out")/obj"
mkdir -p "$objdir"
for src in "$root"/CSources/CFeedStream/*.c; do
    # shellcheck disable=SC2046
    "$CC" -std=c11 -O2 -D_GNU_SOURCE -c "$src" -o "$objdir/$(basename "$src" .c).o" $(pkg-config --cflags $deps)
done
# shellcheck disable=SC2046
"$CC" -std=c11 -O2 -Wall -Wextra -Werror -pedantic -I "$root/CSources/CFeedStream/include" \
    -c "$root/Examples/c/feedlist.c" -o "$objdir/feedlist.o"
# shellcheck disable=SC2046
"$CC" "$objdir"/*.o -o "$out" $(pkg-config --libs $deps) -lpthread
echo "$out"
