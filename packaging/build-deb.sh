#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Debian 12 package from build/release (packaging/build.sh first): `cpack -G DEB`.
# Prints the path of the .deb. The package carries our Qt 6 KSyntaxHighlighting in
# /usr/lib/hotkernel/, found through the binary's RUNPATH (packaging/CMakeLists.txt).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
cmake --build "$build" --target hotkernel >/dev/null
(cd "$build" && cpack -G DEB >/dev/null)
ls -1 "$build"/hotkernel_*.deb
