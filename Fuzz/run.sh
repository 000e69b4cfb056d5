#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds one libFuzzer harness and runs it for a given time.
#
#   Fuzz/run.sh HARNESS SECONDS [libFuzzer flags...]
#   Fuzz/run.sh HARNESS build          # build only
#   Fuzz/run.sh HARNESS repro FILE...  # run the harness once over files (a crash, a corpus)
#   Fuzz/run.sh HARNESS minimize       # merge the own-seeds corpus into Fuzz/corpus/ (below)
#
# HARNESS: expat | libxml2   the C core (input stage + tokenizer + state machine),
#                            clang -fsanitize=fuzzer,address,undefined
#          resync            the same checks on dumps built from the input: several
#                            documents, every form of document start, four charsets
#                            (resync-libxml2: with libxml2)
#          swift             the pure-Swift backend (input stage, XMLTokenizer,
#                            SwiftFeedMachine, JSON writer), swiftc -sanitize=fuzzer,address
#          differential      the same bytes through expat and swift (FUZZ_BACKENDS to
#                            change: e.g. expat,swift,libxml2), aborts on a difference
#          parts             a dump converted in parts (DumpParts) against one
#                            parse of the whole stream, every backend; aborts on a difference
#          inflate           the inflate step, zlib and ISA-L: the input gzipped must come
#                            back whole from both, member ends alike; the input as deflate
#                            data must end safely in both (clang, as the C core)
#
# Everything built or found goes under .build-fuzz/ (git-ignored): binaries, the
# corpus each harness grows (.build-fuzz/corpus/HARNESS), crashes
# (.build-fuzz/artifacts/HARNESS/), logs (.build-fuzz/logs/). The seeds in corpus/ and
# ../shared/corpus/real/ are read, never written (libFuzzer writes only to the first
# corpus folder it is given, which is always .build-fuzz/corpus/HARNESS).
#
# The corpus kept in the repository, Fuzz/corpus/documents (expat, libxml2, swift,
# differential, parts: their inputs are documents) and Fuzz/corpus/dumps (resync,
# resync-libxml2: their inputs describe dumps), is read as seeds by every run. It is
# grown from the project's own files only, never from ../shared (whose feeds are not
# ours to copy): FUZZ_OWN=1 runs with the project's seeds alone and grows
# .build-fuzz/own/HARNESS; `minimize` then merges that into the kept corpus (libFuzzer
# -merge=1: only inputs that add coverage for this harness are added).
#
# Environment: CLANG, SWIFTC (default: from PATH), FUZZ_MAX_LEN (16384),
# FUZZ_SEEDS (extra seed folders, space-separated), FUZZ_BACKENDS (differential),
# FUZZ_OWN (1: the project's seeds only, see above).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/.build-fuzz
CLANG=${CLANG:-clang}
SWIFTC=${SWIFTC:-swiftc}

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
harness=$1
what=$2
shift 2
case $harness in expat|libxml2|resync|resync-libxml2|swift|differential|parts|inflate) ;; *) usage ;; esac

pc_cflags=$(pkg-config --cflags expat libxml-2.0 zlib libzstd)
pc_libs="$(pkg-config --libs expat libxml-2.0 zlib libzstd) -ldl"
# The C core and the stages it shares with the Swift library: the input stage
# (CFeedStreamInput), the inflate step (CFeedStreamInflate) and the charset stage
# (CFeedStreamCharset).
core_sources=$(ls "$root"/CSources/CFeedStream/*.c "$root"/CSources/CFeedStreamInput/*.c "$root"/CSources/CFeedStreamInflate/*.c "$root"/CSources/CFeedStreamCharset/*.c)
core_includes="-I$root/CSources/CFeedStream/include -I$root/CSources/CFeedStream -I$root/CSources/CFeedStreamInput/include -I$root/CSources/CFeedStreamInflate/include -I$root/CSources/CFeedStreamCharset/include"

# True when $1 is missing or older than any of the files after it.
stale() {
    local target=$1; shift
    [ -e "$target" ] || return 0
    [ -n "$(find "$@" -newer "$target" -print -quit 2>/dev/null)" ]
}

build_c() {
    local backend=$1 bin=$out/fuzz_$2 source=$root/Fuzz/c/$3
    mkdir -p "$out"
    if stale "$bin" "$root/Fuzz/c" "$root/CSources/CFeedStream" "$root/CSources/CFeedStreamInput" "$root/CSources/CFeedStreamInflate" "$root/CSources/CFeedStreamCharset"; then
        echo "building $bin" >&2
        # shellcheck disable=SC2086
        "$CLANG" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
            -fno-sanitize-recover=all -DFUZZ_BACKEND="CFS_BACKEND_$(echo "$backend" | tr a-z A-Z)" \
            -I"$root/Fuzz/c" $core_includes $pc_cflags "$source" $core_sources $pc_libs \
            -fuse-ld=lld -o "$bin"
    fi
}
build_inflate() {
    local bin=$out/fuzz_inflate
    mkdir -p "$out"
    if stale "$bin" "$root/Fuzz/c/fuzz_inflate.c" "$root/CSources/CFeedStreamInflate"; then
        echo "building $bin" >&2
        "$CLANG" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
            -I"$root/CSources/CFeedStreamInflate/include" "$root/Fuzz/c/fuzz_inflate.c" \
            "$root/CSources/CFeedStreamInflate/inflate.c" "$root/CSources/CFeedStreamInflate/unpack.c" $(pkg-config --cflags --libs zlib libzstd) -ldl \
            -fuse-ld=lld -o "$bin"
    fi
}
# The Swift library is compiled once with swiftc (not SwiftPM: its executables bring
# their own main, libFuzzer brings another), as a static library with coverage and
# ASan, against the C core compiled the same way; each harness links it.
build_swift_lib() {
    local lib=$out/swift/libFeedStream.a
    mkdir -p "$out/swift" "$out/cobj" "$out/modulemaps/CFeedStream"
    # A name of this run's own: two Swift harnesses started together raced on one.
    local fresh=$out/modulemaps/CFeedStream/module.modulemap.$$
    cat > "$fresh" <<EOF
module CFeedStream {
    umbrella "$root/CSources/CFeedStream/include"
    export *
}
module CFeedStreamInflate {
    umbrella "$root/CSources/CFeedStreamInflate/include"
    export *
}
module CFeedStreamCharset {
    umbrella "$root/CSources/CFeedStreamCharset/include"
    export *
}
module CFeedStreamInput {
    umbrella "$root/CSources/CFeedStreamInput/include"
    export *
}
EOF
    if ! cmp -s "$fresh" "$out/modulemaps/CFeedStream/module.modulemap"; then
        mv "$fresh" "$out/modulemaps/CFeedStream/module.modulemap"
    else
        rm "$fresh"
    fi
    if stale "$out/cobj/.stamp" "$root/CSources/CFeedStream" "$root/CSources/CFeedStreamInput" "$root/CSources/CFeedStreamInflate" "$root/CSources/CFeedStreamCharset"; then
        echo "building the C core for the Swift harnesses" >&2
        rm -f "$out"/cobj/*.o
        for f in $core_sources; do
            # shellcheck disable=SC2086
            "$CLANG" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer-no-link,address \
                $core_includes $pc_cflags -c "$f" -o "$out/cobj/$(basename "$f" .c).o"
        done
        touch "$out/cobj/.stamp"
    fi
    if stale "$lib" "$root/Sources/FeedStreamCore" "$root/Sources/FeedStreamSwift" "$root/Sources/FeedStreamNative" \
        "$root/Sources/FeedStream" "$root/Sources/FeedStreamBatch" "$root/Sources/FeedStreamTools" \
        "$root/CSources/CFeedStream/include" "$root/CSources/CFeedStreamInput/include" \
        "$root/CSources/CFeedStreamInflate/include" "$root/CSources/CFeedStreamCharset/include"; then
        echo "building $lib (swiftc -O -sanitize=fuzzer,address; a minute or two)" >&2
        # From a snapshot of the sources: the compiler refuses a file that changes
        # while it builds, and the tree may be edited meanwhile. The library's layers
        # are one module here, FeedStream: their Exports.swift files (the re-exports of
        # the package build) are left out, and so are their imports of one another.
        rm -rf "$out/src"
        mkdir -p "$out/src"
        touch "$out/src/.taken"   # when the snapshot was taken (see below)
        for m in FeedStreamCore FeedStreamSwift FeedStreamNative FeedStream FeedStreamBatch; do
            cp -R "$root/Sources/$m" "$out/src/$m"
            rm -f "$out/src/$m/Exports.swift"
        done
        # BackendDiff (the differential harness's rule) lives in FeedStreamTools; its
        # Bench folder needs the package's baselines.
        mkdir -p "$out/src/FeedStreamTools"
        cp -R "$root/Sources/FeedStreamTools/Diff" "$out/src/FeedStreamTools/"
        find "$out/src" -name '*.swift' -exec sed -i -E \
            '/^(@_exported |@testable )?import FeedStream(Core|Swift|Native|Batch)?$/d' {} +
        # shellcheck disable=SC2046
        "$SWIFTC" -emit-library -static -module-name FeedStream -package-name FeedStream -parse-as-library -O -wmo \
            -sanitize=fuzzer,address -swift-version 6 \
            -I "$out/modulemaps/CFeedStream" -I "$root/CSources/CZlib" -I "$root/CSources/CZstd" -Xcc -I"$root/CSources/CFeedStreamInput/include" \
            -emit-module -emit-module-path "$out/swift/FeedStream.swiftmodule" \
            $(find "$out/src" -name '*.swift' | sort) -o "$lib.tmp"
        mv "$lib.tmp" "$lib"
        # Dated as the snapshot, not the end of the build: a source edited while the
        # library built is newer, so the next run builds again (it was taken for built,
        # and two harnesses ran code without the edit).
        touch -r "$out/src/.taken" "$lib"
    fi
}

build_swift() {
    local name=$1 main=$2 bin=$out/fuzz_$1
    build_swift_lib
    if stale "$bin" "$root/Fuzz/swift" "$out/swift/libFeedStream.a" "$out/cobj/.stamp"; then
        echo "building $bin" >&2
        # shellcheck disable=SC2086
        "$SWIFTC" -parse-as-library -package-name FeedStream -O -sanitize=fuzzer,address -use-ld=lld \
            -I "$out/swift" -I "$out/modulemaps/CFeedStream" -I "$root/CSources/CZlib" -I "$root/CSources/CZstd" \
            -Xcc -I"$root/CSources/CFeedStreamInput/include" "$root/Fuzz/swift/Common.swift" "$root/Fuzz/swift/$main" \
            "$out/swift/libFeedStream.a" "$out"/cobj/*.o $pc_libs -o "$bin"
    fi
}

case $harness in
expat|libxml2) build_c "$harness" "$harness" fuzz_core.c ;;
resync) build_c expat resync fuzz_resync.c ;;
resync-libxml2) build_c libxml2 resync-libxml2 fuzz_resync.c ;;
swift) build_swift swift FuzzSwiftParser.swift ;;
differential) build_swift differential FuzzDifferential.swift ;;
parts) build_swift parts FuzzParts.swift ;;
inflate) build_inflate ;;
esac
bin=$out/fuzz_$harness
[ "$what" = build ] && exit 0

# Objects a Swift global's one-time initializer allocates live as long as the process;
# LeakSanitizer cannot always see them (enum payloads keep tag bits in the pointer).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/Fuzz/lsan.supp:print_suppressions=0}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export SWIFT_BACKTRACE=enable=no   # libFuzzer and ASan print the stack

if [ "$what" = repro ]; then
    exec "$bin" -runs=1 "$@"
fi

case $harness in resync*) kept=$root/Fuzz/corpus/dumps ;; *) kept=$root/Fuzz/corpus/documents ;; esac
own=$out/own/$harness
if [ "$what" = minimize ]; then
    [ -d "$own" ] || { echo "no $own: grow it first (FUZZ_OWN=1 Fuzz/run.sh $harness SECONDS)" >&2; exit 2; }
    mkdir -p "$kept"
    before=$(ls "$kept" | wc -l)
    "$bin" -merge=1 -max_len="${FUZZ_MAX_LEN:-16384}" -timeout=20 -rss_limit_mb=2560 \
        "$kept" "$own" > "$out/logs/minimize-$harness.log" 2>&1
    echo "minimize: $kept: $before -> $(ls "$kept" | wc -l) files, $(du -sh "$kept" | cut -f1)"
    exit 0
fi
case $what in ''|*[!0-9]*) usage ;; esac

corpus_dir=$out/corpus/$harness
[ -n "${FUZZ_OWN:-}" ] && corpus_dir=$own
artifacts=$out/artifacts/$harness
mkdir -p "$corpus_dir" "$artifacts" "$out/logs"
seeds=()
shared=../shared/corpus/real
[ -n "${FUZZ_OWN:-}" ] && shared=
for d in "$kept" corpus/feeds corpus/encodings corpus/bad corpus/hostile corpus/fuzz-regressions \
         $shared ${FUZZ_SEEDS:-}; do
    [ -d "$d" ] && seeds+=("$d")
done
log=$out/logs/$harness-$(date -u +%Y%m%dT%H%M%SZ).log
# Findings (crash-, leak-, timeout-, oom- files) and slow units (slow-unit-: a unit that
# ran 10 s or more, written by libFuzzer without stopping; the billion-laughs seed takes
# ~9 s under ASan with its variants and crosses that line on a busy machine) are
# counted apart: a slow unit is not a finding.
findings() { ls "$artifacts" | grep -cv '^slow-unit-' || true; }
slow_units() { ls "$artifacts" | grep -c '^slow-unit-' || true; }
before=$(findings)
slow_before=$(slow_units)
echo "fuzzing $harness for $what s; log $log" >&2
started=$(date +%s)
set +e
"$bin" -max_total_time="$what" -max_len="${FUZZ_MAX_LEN:-16384}" -timeout=20 -rss_limit_mb=2560 \
    -dict="$root/Fuzz/xml.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
    -reload=0 "$@" "$corpus_dir" "${seeds[@]}" > "$log" 2>&1
status=$?
set -e
elapsed=$(( $(date +%s) - started ))
# CPU time of the fuzzer (this shell's children: user, then system; `times` in this
# shell, not in a command substitution's subshell, which has no children).
times > "$out/logs/.times"
cpu=$(tail -1 "$out/logs/.times")
after=$(findings)
slow_after=$(slow_units)
last=$(grep -E '^#[0-9]+' "$log" | tail -1)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
secs=$(sed -n 's/^stat::\(average_exec_per_sec\): *//p' "$log")
echo "harness:  $harness"
echo "time:     $elapsed s wall of $what s asked (one process); CPU user/sys: $cpu"
echo "execs:    ${execs:-?} (${secs:-?}/s)"
echo "last:     ${last:-?}"
echo "corpus:   $(ls "$corpus_dir" | wc -l) files in $corpus_dir"
echo "crashes:  $((after - before)) new in $artifacts"
[ "$slow_after" -gt "$slow_before" ] && echo "slow:     $((slow_after - slow_before)) new slow-unit file(s) in $artifacts (10 s or more; not findings)"
if [ "$status" -ne 0 ]; then
    echo "exit:     $status (a finding; see $log)"
    grep -E 'ERROR|SUMMARY|fuzz_|differs|disagree|Test unit written' "$log" | head -20
fi
exit "$status"
