#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: installs what is missing, builds, and runs hotkernel's measurement pipeline on a
# bundled example (a gelu target on this machine's torch: new -> bench -> verify).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/packaging/setup-deps.sh"
bash "$root/packaging/build.sh"
hotkernel="$root/build/release/app/hotkernel"
# Debian's python3-torch (installed by setup-deps.sh) is the torch interpreter unless you name one.
export HOTKERNEL_PYTHON=${HOTKERNEL_PYTHON:-/usr/bin/python3}
work=${HOTKERNEL_DEMO_DIR:-$(mktemp -d -t hotkernel-demo.XXXXXX)}
cd "$work"
echo "== working in $work (interpreter $HOTKERNEL_PYTHON)"
"$hotkernel" gpu-info || true
"$hotkernel" new gelu --from torch.nn.functional:gelu --shape 1024x2048 --dtype fp32 --device cpu --iters 20
"$hotkernel" bench gelu_baseline.py -n 5
"$hotkernel" verify gelu_baseline.py gelu_candidate.py -n 5
echo "== the files are in $work"
