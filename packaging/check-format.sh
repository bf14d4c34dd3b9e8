#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a C++ file under app/, core/, ui/ or tests/ differs from what .clang-format makes of it.
# packaging/test.sh runs it before the tests; `packaging/check-format.sh --fix` rewrites the files.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
formatter=${CLANG_FORMAT:-clang-format}
command -v "$formatter" >/dev/null || { echo "check-format: $formatter not found (apt-get install clang-format)" >&2; exit 1; }
mapfile -t files < <(git ls-files -- 'app/*.cpp' 'app/*.h' 'core/*.cpp' 'core/*.h' 'ui/*.cpp' 'ui/*.h' \
                                    'tests/*.cpp' 'tests/*.h')
if [ "${1:-}" = --fix ]; then
    "$formatter" -i "${files[@]}"
    exit 0
fi
report=$(mktemp)
trap 'rm -f "$report"' EXIT
if ! "$formatter" --dry-run --Werror "${files[@]}" 2>"$report"; then
    grep -m 20 'clang-format-violations' "$report" >&2 || true
    n=$(grep -c 'clang-format-violations' "$report" || true)
    echo "check-format: $n place(s) differ from .clang-format ($($formatter --version | head -1))." >&2
    echo "check-format: run 'bash packaging/check-format.sh --fix' and commit the result." >&2
    exit 1
fi
echo "check-format: ${#files[@]} files match .clang-format"
