#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the README's two commands, as written, on a fresh Debian 12 (bookworm) with
# nothing but Swift: a minimal system made with debootstrap in a folder, Swift's own
# dependencies for Debian 12 (swift.org's list) installed with apt, the toolchain of
# this machine (SWIFT_ROOT, default /opt/swift) mounted at /opt/swift, and a clone of
# this repository. Prints the time each command took. Needs root, and network access to
# Debian's mirror (and to the Swift packages the manifest names: a folder standing in for
# github.com can be given as GITHUB_MIRROR, mounted and named in the system's gitconfig).
#
#     sudo scripts/check-fresh-debian.sh [FOLDER]     # default: a new folder in /tmp
#
# The real-world corpus (../shared/corpus/real) is not there, as on a user's clone: the
# tests that read it skip and say so.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-$(mktemp -d /tmp/fresh-debian.XXXXXX)}
swift_root=${SWIFT_ROOT:-/opt/swift}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" = 0 ] || { echo "check-fresh-debian: needs root (debootstrap, chroot, mount)" >&2; exit 1; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
cleanup() {
    for m in proc dev/pts dev sys opt/swift opt/github; do umount "$root/$m" 2>/dev/null || true; done
}
trap cleanup EXIT
if [ ! -x "$root/usr/bin/apt-get" ]; then
    debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
fi
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t sysfs sys "$root/sys"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/opt/swift"
mount --bind -o ro "$swift_root" "$root/opt/swift"
if [ -n "${GITHUB_MIRROR:-}" ]; then
    mkdir -p "$root/opt/github"
    mount --bind -o ro "$GITHUB_MIRROR" "$root/opt/github"
    printf '[url "/opt/github/"]\n\tinsteadOf = https://github.com/\n[safe]\n\tdirectory = *\n' > "$root/etc/gitconfig"
fi
# Swift's dependencies on Debian 12, as swift.org lists them: what "a machine with Swift" has.
chroot "$root" /bin/sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq &&
    apt-get install -y -qq --no-install-recommends binutils git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 \
      libgcc-12-dev libpython3-dev libsqlite3-0 libstdc++-12-dev libxml2-dev libncurses-dev libz3-dev pkg-config \
      tzdata unzip zlib1g-dev ca-certificates >/dev/null'
rm -rf "$root/work/FeedStream"
mkdir -p "$root/work"
git clone -q "$repo" "$root/work/FeedStream"
first=$(sed -n '4p' "$repo/README.md")
second=$(sed -n '5p' "$repo/README.md")
run() {
    local start end
    start=$(date +%s)
    chroot "$root" /bin/bash -c "export PATH=/opt/swift/usr/bin:\$PATH HOME=/root; cd /work/FeedStream && $1" \
        > "$root/work/$2.log" 2>&1 || { tail -30 "$root/work/$2.log" >&2; echo "check-fresh-debian: '$1' failed" >&2; exit 1; }
    end=$(date +%s)
    echo "check-fresh-debian: $(( (end - start) / 60 )) min $(( (end - start) % 60 )) s: $1"
}
run "$first" first
run "$second" second
tail -3 "$root/work/second.log"
