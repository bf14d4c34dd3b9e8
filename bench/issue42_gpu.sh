#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 42's GPU measures, from the repository root on the GPU machine, with the bundle unpacked
# (packaging/gpu-bundle.sh; mkdir -p /tmp/hk && tar -C /tmp/hk -xJf hotkernel-bundle.tar.xz, which
# this script does itself when /tmp/hk is empty and .carry/hotkernel-bundle.tar.xz is there).
# Two parts, each under ten minutes, so that each fits one call of the machine:
#   bash bench/issue42_gpu.sh corpus     the honest corpus (bench/honest_corpus.py), about 5 min
#   bash bench/issue42_gpu.sh sharing    A/A 20 in a session + 20 alone, the ~3% slower candidate 10
#                                        times (bench/aa_gpu.py), then two sessions on one card
#                                        (bench/two_sessions.py), about 5 min
# Tables on stdout, progress on stderr, logs and tables under $OUT (default ./issue42-out).
set -uo pipefail
if [ ! -f /tmp/hk/env.sh ] && [ -f .carry/hotkernel-bundle.tar.xz ]; then
    mkdir -p /tmp/hk && tar -C /tmp/hk -xJf .carry/hotkernel-bundle.tar.xz
fi
. /tmp/hk/env.sh
out=${OUT:-$PWD/issue42-out}
mkdir -p "$out"
export HOTKERNEL_PYTHON=${HOTKERNEL_PYTHON:-$(command -v python3)}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
case "${1:-}" in
corpus)
    python3 bench/honest_corpus.py --out "$out/corpus" | tee "$out/honest_corpus.txt"
    ;;
sharing)
    python3 bench/aa_gpu.py --session "${AA_SESSION:-20}" --alone "${AA_ALONE:-20}" --slow "${AA_SLOW:-10}" \
        --out "$out" | tee "$out/aa_gpu.txt"
    python3 bench/two_sessions.py --out "$out" | tee "$out/two_sessions.txt"
    ;;
*)
    echo "usage: bash bench/issue42_gpu.sh corpus|sharing" >&2
    exit 2
    ;;
esac
