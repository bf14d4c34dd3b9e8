#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine call: the gpu-labelled profile test and a traced run through the CLI with "--" (after
# the profiler-runner refactor). Needs .carry/hotkernel-bundle.tar.xz with tst_profile.
set -u
mkdir -p /tmp/hk && tar -C /tmp/hk -xJf .carry/hotkernel-bundle.tar.xz && . /tmp/hk/env.sh
export HOTKERNEL_PYTHON=$(command -v python3) HOTKERNEL_NATIVE_DIR=/tmp/native HOTKERNEL_TRACER=/tmp/native/libhotkernel_tracer.so
cmake -S core/native -B /tmp/native -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/native -j 16 >/dev/null
timeout 150 /tmp/hk/bin/tst_profile 2>&1 | tail -8
timeout 60 hotkernel profile --tool trace -- python3 examples/rmsnorm_candidate.py --run 1 2>&1 | tail -4
