#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the hotkernel .deb into a fresh Debian 12 root and runs it there: `hotkernel --version`
# and an MCP initialize, first alone, then beside Debian's own libKF5SyntaxHighlighting5 (the Qt 5
# build with the same soname as our private Qt 6 one), which must not be picked up.
# Needs root and the Debian mirror (mmdebstrap downloads the root), so it is not part of CI.
#
#   packaging/deb-chroot-check.sh build/release/hotkernel_0.1.0_amd64.deb [ROOT_DIR]
set -euo pipefail
deb=$(realpath "${1:?give the .deb built by packaging/build-deb.sh}")
root=${2:-$(mktemp -d /tmp/hotkernel-debian12.XXXXXX)}
mirror=${HOTKERNEL_DEBIAN_MIRROR:-http://deb.debian.org/debian}

if ! command -v mmdebstrap >/dev/null; then
    echo "== installing mmdebstrap (Debian package)"
    apt-get install -y --no-install-recommends mmdebstrap >/dev/null
fi

echo "== a fresh Debian 12 (bookworm) root in $root"
rmdir "$root" 2>/dev/null || true
mmdebstrap --variant=apt --quiet bookworm "$root" "$mirror"

cleanup() { umount "$root/proc" 2>/dev/null || true; }
trap cleanup EXIT
mount -t proc proc "$root/proc"

echo "== apt install ./$(basename "$deb") (its dependencies from the mirror)"
cp "$deb" "$root/tmp/"
# mmdebstrap leaves no package lists behind: fetch them for the dependencies.
chroot "$root" apt-get update -qq
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "/tmp/$(basename "$deb")" >/dev/null
chroot "$root" dpkg -s hotkernel | grep -E '^(Package|Version|Depends):'

init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"deb-check","version":"0"}}}'
check() {
    echo "-- hotkernel --version"
    chroot "$root" hotkernel --version
    echo "-- the native helpers, found in the package's /usr/lib/hotkernel/ (issue 44)"
    chroot "$root" env QT_QPA_PLATFORM=offscreen hotkernel helpers | tee /dev/stderr \
        | grep -q '^hotkernel-supervise: /usr/lib/hotkernel/hotkernel-supervise$' || { echo "supervisor not found"; exit 1; }
    if [ -n "$(dpkg-deb -c "$deb" | grep libhotkernel_tracer.so)" ]; then
        chroot "$root" env QT_QPA_PLATFORM=offscreen hotkernel helpers \
            | grep -q '^libhotkernel_tracer.so: /usr/lib/hotkernel/' || { echo "tracer not found"; exit 1; }
    fi
    echo "-- MCP initialize (hotkernel mcp --headless, in /tmp)"
    reply=$(printf '%s\n' "$init" | chroot "$root" env QT_QPA_PLATFORM=offscreen HOME=/tmp \
        sh -c 'cd /tmp && hotkernel mcp --headless 2>/dev/null')
    echo "$reply" | cut -c1-300
    echo "$reply" | grep -q '"serverInfo":{"name":"hotkernel"' || { echo "no initialize reply"; exit 1; }
    echo "-- the KSyntaxHighlighting the binary loads"
    chroot "$root" sh -c 'LD_DEBUG=libs QT_QPA_PLATFORM=offscreen hotkernel --version 2>&1 | grep -m1 "trying file=.*KF5SyntaxHighlighting\|init: .*KF5SyntaxHighlighting" || true'
    chroot "$root" sh -c 'ldd /usr/bin/hotkernel | grep KF5SyntaxHighlighting'
}

echo "== run it"
check
echo "== install Debian's Qt 5 libkf5syntaxhighlighting5 beside it and run again"
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    libkf5syntaxhighlighting5 >/dev/null
chroot "$root" sh -c 'ls -l /usr/lib/x86_64-linux-gnu/libKF5SyntaxHighlighting.so.5 /usr/lib/hotkernel/'
check
echo "== OK: the .deb installs into a fresh Debian 12 root and answers MCP initialize"
