#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the C example as a C project using FeedStream would: the library installed
# with the repository's Makefile (`make install-lib PREFIX=...`), then the example compiled
# with nothing but `pkg-config --cflags --libs feedstream`:
#
#     Examples/c/build.sh [OUTPUT [PREFIX]]
#         (defaults: Examples/.build/c/feedlist, Examples/.build/c/prefix)
#
# Prints the paths of two binaries: OUTPUT, linked to the shared library (found at run
# time through an rpath to PREFIX/lib, as PREFIX is not a system folder), and
# OUTPUT-static, linked to libfeedstream.a (`pkg-config --static`).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/Examples/.build/c/feedlist}"
mkdir -p "$(dirname "$out")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
prefix="${2:-$(dirname "$out")/prefix}"
CC="${CC:-cc}"
make -s -C "$root" install-lib PREFIX="$prefix" BUILD="$(dirname "$out")/lib-build" >&2
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
warn="-std=c11 -O2 -Wall -Wextra -Werror -pedantic"
# shellcheck disable=SC2046,SC2086
"$CC" $warn "$root/Examples/c/feedlist.c" -o "$out" $(pkg-config --cflags --libs feedstream) \
    -Wl,-rpath,"$prefix/lib"
# shellcheck disable=SC2046,SC2086
"$CC" $warn "$root/Examples/c/feedlist.c" -o "$out-static" $(pkg-config --cflags feedstream) \
    $(pkg-config --static --libs feedstream | sed 's/-lfeedstream/-l:libfeedstream.a/')
echo "$out"
echo "$out-static"
