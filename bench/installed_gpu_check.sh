#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 44's check on the GPU machine: hotkernel as the Debian package installs it, not the build
# tree. Unpacks the .deb with `dpkg -x` (no root) into a prefix, takes only Qt's libraries and
# platform plugins from the GPU bundle (the GPU machine has no Qt; packaging/gpu-bundle.sh), and
# from the unpacked tree runs: `hotkernel helpers` (each helper found under usr/lib/hotkernel/),
# `profile --tool trace` of a torch program, and a verify of the rmsnorm example that the tracer
# witnesses. Prints a short table; exits non-zero when a row fails.
#
# On the build machine:
#   bash packaging/build.sh && bash packaging/build-deb.sh         # prints build/release/hotkernel_*.deb
#   bash packaging/gpu-bundle.sh                                    # .carry/hotkernel-bundle.tar.xz
# On the GPU machine, from the repository root (HOTKERNEL_PYTHON: the torch interpreter):
#   bash bench/installed_gpu_check.sh hotkernel_0.1.0_amd64.deb .carry/hotkernel-bundle.tar.xz
set -uo pipefail
deb=$(readlink -f "${1:?usage: installed_gpu_check.sh HOTKERNEL.deb BUNDLE.tar.xz}")
bundle=$(readlink -f "${2:?usage: installed_gpu_check.sh HOTKERNEL.deb BUNDLE.tar.xz}")
root=$(cd "$(dirname "$0")/.." && pwd)
python=${HOTKERNEL_PYTHON:-$(command -v python3)}
work=$(mktemp -d -t hotkernel-installed.XXXXXX)
out=${OUT:-$work/out}
mkdir -p "$work/prefix" "$work/qt" "$work/rmsnorm" "$out"

dpkg -x "$deb" "$work/prefix"
tar -C "$work/qt" -xJf "$bundle" ./lib ./plugins ./fonts
hk="$work/prefix/usr/bin/hotkernel"
# Qt from the bundle only; hotkernel, its helpers and KSyntaxHighlighting from the package.
export LD_LIBRARY_PATH="$work/qt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export QT_PLUGIN_PATH="$work/qt/plugins" QT_QPA_PLATFORM=offscreen QT_QPA_FONTDIR="$work/qt/fonts"
export HOTKERNEL_PYTHON="$python" HOTKERNEL_NO_SESSION=1
unset HOTKERNEL_NATIVE_DIR HOTKERNEL_TRACER

rows=()
status=0
row() { rows+=("$(printf '%-34s %-6s %s' "$1" "$2" "$3")"); [ "$2" = ok ] || status=1; }

"$hk" helpers > "$out/helpers.txt" 2>&1
private="$work/prefix/usr/lib/hotkernel/"
for helper in hotkernel-supervise libhotkernel_tracer.so hotkernel-calibrate; do
    where=$(awk -v h="$helper:" '$1 == h {print $2}' "$out/helpers.txt")
    case "$where" in "$private"*) row "helper $helper" ok "$where" ;; *) row "helper $helper" FAIL "${where:-missing}" ;; esac
done

"$hk" profile --tool trace --json -- "$python" -c \
    "import torch; x = torch.randn(1 << 22, device='cuda'); [(x * 2).sum().item() for _ in range(3)]" \
    > "$out/profile.json" 2> "$out/profile.stderr"
kernels=$("$python" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("kernel_count", len(d.get("kernels", []))))' \
    "$out/profile.json" 2>/dev/null)
if [ -n "$kernels" ] && [ "$kernels" -gt 0 ] 2>/dev/null; then
    row "profile --tool trace" ok "$kernels kernels"
else
    row "profile --tool trace" FAIL "$(tail -n 2 "$out/profile.stderr" | tr '\n' ' ')"
fi

cp "$root"/examples/{rmsnorm_baseline.py,rmsnorm_candidate.py,kernels.py,tuned_kernels.py,_hotkernel_contract.py} "$work/rmsnorm/"
(cd "$work/rmsnorm" && "$hk" verify rmsnorm_baseline.py rmsnorm_candidate.py --json) \
    > "$out/verify.json" 2> "$out/verify.stderr"
summary=$("$python" - "$out/verify.json" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
w = d.get("witness") or {}
seen = all((w.get(side) or {}).get("kernels", 0) > 0 for side in ("baseline", "candidate"))
print(("witnessed" if seen else "UNWITNESSED"), d.get("verdict"), "verify_id" in d,
      "bytes=%d" % len(json.dumps(d, separators=(",", ":"))))
PY
)
case "$summary" in
    witnessed*True*) row "verify rmsnorm (witnessed)" ok "$summary" ;;
    *) row "verify rmsnorm (witnessed)" FAIL "${summary:-$(tail -n 2 "$out/verify.stderr" | tr '\n' ' ')}" ;;
esac

echo "hotkernel from $deb (unpacked in $work/prefix), card: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
printf '%s\n' "${rows[@]}"
echo "outputs: $out"
exit $status
