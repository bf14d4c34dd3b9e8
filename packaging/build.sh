#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds hotkernel (Release with debug info) into build/release. Idempotent.
# Arguments name the targets to build (packaging/main.sh: hotkernel_runtime); none: everything,
# the tests included.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${HOTKERNEL_DEPS_PREFIX:-/opt/hotkernel-deps}
jobs=${HOTKERNEL_JOBS:-$(nproc)}
# A unity build: most of a file's compile time is the optimiser on the templates it instantiates
# (nlohmann_json, QCoro, Qt containers), which every file of a batch then shares (issue 44,
# docs/measurements/build-time-2026-12-07.txt). Dev builds stay file by file for quick rebuilds.
cmake -S "$root" -B "$root/build/release" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_PREFIX_PATH="$prefix" -DBUILD_TESTING=ON \
    -DHOTKERNEL_TEST_PYTHON="$prefix/venv/bin/python" >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$root/build/release" -j"$jobs" "${targets[@]}"
