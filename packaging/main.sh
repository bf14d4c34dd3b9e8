#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: installs what is missing, builds, and opens the workbench on the bundled demo
# session (real data recorded on an H200). With a display it opens the window; without one it runs
# the same window under Xvfb and writes a screenshot of every pane, then runs the measurement
# pipeline once on this machine's torch (new -> bench -> verify of a gelu target) to show the CLI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/packaging/setup-deps.sh"
# Only what the demo and the CLI below run (the binary and its native helpers): the tests are
# built by packaging/test.sh, so a user opening the workbench does not wait for them.
bash "$root/packaging/build.sh" hotkernel_runtime
hotkernel="$root/build/release/app/hotkernel"
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    exec "$hotkernel" --demo
fi
shots=${HOTKERNEL_SCREENSHOTS:-$root/build/demo-screenshots}
mkdir -p "$shots"
xvfb-run -a "$hotkernel" --demo --screenshot "$shots"
echo "== no display: the demo workbench was drawn under Xvfb; screenshots of every pane, light and dark, are in $shots"
export HOTKERNEL_PYTHON=${HOTKERNEL_PYTHON:-/usr/bin/python3}
work=$(mktemp -d -t hotkernel-demo.XXXXXX)
cd "$work"
echo "== the CLI pipeline in $work (interpreter $HOTKERNEL_PYTHON)"
"$hotkernel" new gelu --from torch.nn.functional:gelu --shape 1024x2048 --dtype fp32 --device cpu --iters 20
"$hotkernel" bench gelu_baseline.py -n 5
"$hotkernel" verify gelu_baseline.py gelu_candidate.py -n 5
