#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs everything hotkernel needs on Debian 12 (bookworm), as root. Idempotent:
# a second run skips what is already there (the KSyntaxHighlighting build is cached).
#
#   packaging/setup-deps.sh            Debian packages, KSyntaxHighlighting for Qt 6,
#                                      the test venv (MCP Python SDK, cuobjdump/nvdisasm wheels)
#
# Environment:
#   HOTKERNEL_DEPS_PREFIX   where KSyntaxHighlighting and the venv go (default /opt/hotkernel-deps)
set -euo pipefail

prefix=${HOTKERNEL_DEPS_PREFIX:-/opt/hotkernel-deps}
here=$(cd "$(dirname "$0")" && pwd)
say() { printf '[setup-deps] %s\n' "$*" >&2; }

if [ "$(id -u)" != 0 ]; then
    say "needs root (it installs Debian packages); run it with sudo"
    exit 1
fi

# --- Debian packages ------------------------------------------------------------------
packages=(
    build-essential cmake pkg-config ninja-build git ca-certificates xz-utils clang-format
    qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev qt6-qpa-plugins libgl1-mesa-dev
    qcoro-qt6-dev nlohmann-json3-dev extra-cmake-modules
    xvfb xauth fonts-dejavu-core
    python3 python3-venv python3-torch
    openssh-server openssh-client rsync  # tests/remote: a real sshd on localhost (issue 24)
    slurm-wlm munge   # tests/slurm starts a one-node Slurm of its own (issue 24)
    nodejs            # tests/mcp runs the official MCP TypeScript SDK client (../shared/mcp-ts-sdk)
)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${#missing[@]} Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    say "Debian packages: all present"
fi

# --- KSyntaxHighlighting built against Qt 6 ---------------------------------------------
# Bookworm only ships the Qt 5 build; KF 5.116 (trixie's source) builds against Qt 6.
ksh_version=5.116.0
ksh_stamp="$prefix/ksyntaxhighlighting-$ksh_version.stamp"
if [ -f "$ksh_stamp" ]; then
    say "KSyntaxHighlighting $ksh_version (Qt 6): cached in $prefix"
else
    say "building KSyntaxHighlighting $ksh_version for Qt 6 into $prefix"
    work=$(mktemp -d)
    chmod 755 "$work"   # apt drops to the _apt user for downloads
    trap 'rm -rf "$work"' EXIT
    # A private trixie source list: the system's own apt configuration stays untouched.
    uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    keyring=$(awk '/^Signed-By:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    if [ -z "$uri" ]; then
        uri=$(awk '$1=="deb" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
    fi
    [ -n "$uri" ] || { say "cannot find a Debian mirror in /etc/apt/sources.list.d/debian.sources"; exit 1; }
    [ -n "$keyring" ] || keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    mkdir -p "$work/lists/partial"
    cat >"$work/trixie.sources" <<SRC
Types: deb deb-src
URIs: $uri
Suites: trixie
Components: main non-free
Signed-By: $keyring
SRC
    apt_private=(-o "Dir::Etc::SourceList=$work/trixie.sources" -o Dir::Etc::SourceParts=/dev/null
                 -o "Dir::State::Lists=$work/lists" -o Debug::NoLocking=1)
    apt-get "${apt_private[@]}" update -qq
    (cd "$work" && apt-get "${apt_private[@]}" source --tar-only -qq ksyntax-highlighting >/dev/null)
    tar -xf "$work"/ksyntax-highlighting_${ksh_version}.orig.tar.xz -C "$work"
    src=$(find "$work" -maxdepth 1 -type d -name 'syntax-highlighting-*' | head -1)
    # 5.116 asks for ECM 5.116; bookworm's 5.103 builds it. Translations would need LinguistTools.
    sed -i -E 's/find_package\(ECM [0-9.]+/find_package(ECM 5.103.0/' "$src/CMakeLists.txt"
    rm -rf "$src/poqm"
    cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$prefix" -DQT_MAJOR_VERSION=6 \
        -DBUILD_TESTING=OFF -DBUILD_QCH=OFF >/dev/null
    cmake --build "$work/build" --target install -- -j"$(nproc)" >/dev/null
    touch "$ksh_stamp"
    rm -rf "$work"
    trap - EXIT
fi

# --- Python virtual environment for the tests --------------------------------------------
# The MCP Python SDK drives our server in end-to-end tests; cuobjdump/nvdisasm wheels let CI
# disassemble real cubins without a 5 GB toolkit. Never installed into the system interpreter.
venv="$prefix/venv"
reqs="$here/requirements-test.txt"
reqs_stamp="$venv/.requirements.sha256"
want=$(sha256sum "$reqs" | cut -d' ' -f1)
if [ -f "$reqs_stamp" ] && [ "$(cat "$reqs_stamp")" = "$want" ]; then
    say "test venv: up to date in $venv"
else
    say "creating the test venv in $venv"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$reqs"
    echo "$want" >"$reqs_stamp"
fi

say "done: CMAKE_PREFIX_PATH=$prefix, test python $venv/bin/python"
