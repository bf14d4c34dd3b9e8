#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The unit-labelled tests under AddressSanitizer and UBSan: configures the asan preset (a Debug
# build in build/asan), builds those tests and what they link, and runs them. A use-after-free in
# a coroutine (docs/hacking.md, "Coroutines") fails a test here that may pass by luck in
# build/release. A full extra build (docs/hacking.md, "The asan preset", says what it costs).
#
#   packaging/asan-unit.sh             every unit-labelled test, plus the signal, session and MCP tests
#   packaging/asan-unit.sh --signals   only the signal, session and MCP tests (what packaging/test.sh
#                                      runs: issue 39's SIGTERM race, 50 runs, under ASan in CI)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${HOTKERNEL_DEPS_PREFIX:-/opt/hotkernel-deps}
jobs=${HOTKERNEL_JOBS:-$(nproc)}
cd "$root"
cmake --preset asan -DCMAKE_PREFIX_PATH="$prefix" -DHOTKERNEL_TEST_PYTHON="$prefix/venv/bin/python" >/dev/null
cd "$root/build/asan"
tests=()
if [ "${1:-}" != --signals ]; then
    mapfile -t tests < <(ctest -N -L unit | awk '/Test +#[0-9]+:/ {print $3}')
fi
# Besides the unit label: the signal, session and MCP server tests (issue 39), where a posted event
# reaching an object the shutdown freed, or a coroutine resuming into one, would otherwise pass by
# luck. tst_signals repeats the SIGTERM race 50 times (HOTKERNEL_SIGTERM_RACE_RUNS).
extra=(tst_signals tst_sessionlistener tst_sessionidentity tst_mcpserver)
tests+=("${extra[@]}")
cmake --build . -j"$jobs" --target "${tests[@]}" hotkernel hotkernel-supervise
# Stop at the first report, with a stack for UBSan's too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=0}
# The signal tests end hotkernel by a signal mid-job on purpose: the suspended coroutine frames it
# leaves are freed by the process's end, not by code, so LeakSanitizer would report them and turn
# the exit status 128+signal into its own. What these tests look for is use after free.
if [ "${1:-}" = --signals ]; then
    ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest -R "^($(IFS='|'; echo "${tests[*]}"))\$" --output-on-failure -j"$jobs" --timeout 3600
