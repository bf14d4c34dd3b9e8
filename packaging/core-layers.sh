#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Prints the core libraries from the ground up with the core libraries each links, as the table of
# docs/hacking.md ("Layers"): paste its output there when a link changes. It reads the links as
# CMake holds them, which core/CMakeLists.txt writes into the build tree when it configures.
#   bash packaging/core-layers.sh [build-dir]      (default build/dev; configure it first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/dev}
links=$build/core/corelinks.txt
if [ ! -f "$links" ]; then
    echo "core-layers: $links is missing: configure $build first (docs/hacking.md has the command)" >&2
    exit 1
fi
echo '| Folder | CMake target | Links PUBLIC (its headers include them) | Links PRIVATE (only its sources do) |'
echo '|---|---|---|---|'
# Lines read "FOLDER: PUBLIC... [private PRIVATE...]", from the ground up (core/CMakeLists.txt adds
# the folders in the layer order).
awk -F': ?' '
function targets(list,    n, i, out, parts) {
    n = split(list, parts, " ")
    out = ""
    for (i = 1; i <= n; i++) out = out (i > 1 ? ", " : "") "`" parts[i] "`"
    return n ? out : "-"
}
{
    public = $2; private = ""
    at = index($2, "private")
    if (at) { public = substr($2, 1, at - 1); private = substr($2, at + 8) }
    printf "| `%s` | `hotkernel_%s` | %s | %s |\n", $1, $1, targets(public), targets(private)
}' "$links"
