#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs FeedStream with `make install PREFIX=<a new folder>` (FEEDSTREAM_BIN, when set,
# is the binary installed instead of a release build: CI gives the self-contained one)
# and checks the tree: the
# binary, whose --version is the header's CFS_VERSION_STRING; the man page, which man(1)
# renders; the bash, zsh and fish completions; the headers, the libraries and
# feedstream.pc, whose version is the header's too. Run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
make -s install PREFIX="$prefix" >/dev/null
fail() { echo "check-install: $*" >&2; exit 1; }
version=$(sed -n 's/^#define CFS_VERSION_STRING "\(.*\)"/\1/p' CSources/CFeedStream/include/feedstream.h)
[ -n "$version" ] || fail "no CFS_VERSION_STRING in feedstream.h"
for f in bin/feedstream share/man/man1/feedstream.1 share/bash-completion/completions/feedstream \
         share/zsh/site-functions/_feedstream share/fish/vendor_completions.d/feedstream.fish \
         include/feedstream.h include/feedstream_input.h include/feedstream_inflate.h \
         lib/libfeedstream.a "lib/libfeedstream.so.$version" lib/libfeedstream.so lib/pkgconfig/feedstream.pc; do
  [ -s "$prefix/$f" ] || fail "$f is not installed"
done
[ "$("$prefix/bin/feedstream" --version)" = "$version" ] || fail "feedstream --version is not $version"
[ "$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion feedstream)" = "$version" ] || fail "feedstream.pc's version is not $version"
page=$(MANWIDTH=80 man -l "$prefix/share/man/man1/feedstream.1" 2>/dev/null | col -b)
for word in "feedstream convert" "--data-errors-ok" "JSON Feed" "WARC"; do
  grep -qF -- "$word" <<<"$page" || fail "the man page does not mention $word"
done
grep -q "convert" "$prefix/share/bash-completion/completions/feedstream" || fail "bash completion lacks convert"
grep -q "convert" "$prefix/share/zsh/site-functions/_feedstream" || fail "zsh completion lacks convert"
grep -q "convert" "$prefix/share/fish/vendor_completions.d/feedstream.fish" || fail "fish completion lacks convert"
echo "check-install: binary, man page, completions, headers, libraries and feedstream.pc of $version installed"
