#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Packs the built hotkernel with every shared library it loads (as ldd lists them), the Qt
# platform plugins and a font folder into one xz tarball, for a machine without Qt (the lent GPU
# machine). Unpack there and source the env file:
#   mkdir -p /tmp/hk && tar -C /tmp/hk -xJf hotkernel-bundle.tar.xz && . /tmp/hk/env.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
out=${2:-$root/.carry/hotkernel-bundle.tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/plugins" "$stage/fonts" "$(dirname "$out")"
cp "$build/app/hotkernel" "$stage/bin/"
for extra in "$build"/app/hotkernel-supervise "$build"/app/hotkernel-calibrate "$build"/app/libhotkernel_tracer.so; do
    [ -e "$extra" ] && cp "$extra" "$stage/bin/"
done
# Test binaries to run there (the gpu-labelled ones by default), found anywhere in the build tree.
for name in ${HOTKERNEL_BUNDLE_TESTS-tst_gpuprobe_gpu tst_profile}; do
    found=$(find "$build/tests" -type f -name "$name" -perm -u+x | head -1)
    [ -n "$found" ] && cp "$found" "$stage/bin/" || echo "gpu-bundle: test $name is not built; left out" >&2
done
# The CUDA libraries of the native helpers are the GPU machine's own (and hundreds of MB).
# Debug info is most of the rest; the carry limit is 64 MiB.
strip --strip-debug "$stage"/bin/* 2>/dev/null || true
qt_plugins=$(dirname "$(dirname "$(find /usr/lib -path '*qt6/plugins/platforms/libqoffscreen.so' | head -1)")")
cp -r "$qt_plugins/platforms" "$stage/plugins/"
[ -d "$qt_plugins/imageformats" ] && cp -r "$qt_plugins/imageformats" "$stage/plugins/"
# The libraries of the binary and of the plugins, minus the C library and the loader, which the
# target machine has in a version that matches its kernel.
{ for b in "$stage"/bin/*; do ldd "$b" 2>/dev/null; done; for p in "$stage"/plugins/*/*.so; do ldd "$p"; done; } \
    | awk '/=> \// {print $3}' | sort -u \
    | grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' \
    | grep -vE '/lib(cuda|cudart|cublas|cublasLt|cupti|nvidia-[a-z]+|nvrtc)\.so' \
    | while read -r lib; do cp -L "$lib" "$stage/lib/"; done
cp /usr/share/fonts/truetype/dejavu/*.ttf "$stage/fonts/" 2>/dev/null || true
cat > "$stage/env.sh" <<'ENV'
hk_root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH="$hk_root/bin:$PATH"
export LD_LIBRARY_PATH="$hk_root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export QT_PLUGIN_PATH="$hk_root/plugins"
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
export QT_QPA_FONTDIR="$hk_root/fonts"
ENV
tar -C "$stage" -cJf "$out" .
ls -la "$out"
