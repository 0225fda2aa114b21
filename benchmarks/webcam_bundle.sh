#!/bin/bash
# Make the Chromium bundle that benchmarks/webcam_gpu_machine.sh runs on the GPU machine, in
# benchmarks/build/chrome/ (git-ignored): Debian 12's chromium-headless-shell (no GTK; its
# 223 MB binary compresses to 56 MB), the data files it reads from Debian's chromium
# (installed here: ICU, V8 snapshots, the Vulkan loader, SwiftShader), the shared libraries ldd
# names except glibc's and the C++ runtime, the webcam page of the unsharp demo (webgpu and simd
# variants), Node and a font. One device call carries at most 64 MiB, so the files are split into
# part1/ and part2/, each carried by one call (see benchmarks/README.md).
#
#   bash benchmarks/webcam_bundle.sh      # needs apt-get (Debian's archive), emcc, xz
set -euo pipefail
cd "$(dirname "$0")/.."
B=benchmarks/build/chrome
mkdir -p "$B/deb"
rm -rf "$B/root" "$B/bundle" "$B/page" "$B/part1" "$B/part2"
(cd "$B/deb" && apt-get download chromium-headless-shell)
dpkg -x "$B"/deb/chromium-headless-shell_*.deb "$B/root"
mkdir -p "$B/bundle/lib"
cp "$B"/root/usr/lib/chromium/chromium-headless-shell "$B"/root/usr/lib/chromium/*.pak "$B/bundle/"
for f in icudtl.dat v8_context_snapshot.bin snapshot_blob.bin libvulkan.so.1 libEGL.so \
    libGLESv2.so libvk_swiftshader.so vk_swiftshader_icd.json; do
  cp /usr/lib/chromium/$f "$B/bundle/"
done
ldd "$B/bundle/chromium-headless-shell" | awk '$3 ~ /^\// {print $3}' \
  | grep -vE '/(libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+)\.so' \
  | xargs -I{} cp -L {} "$B/bundle/lib/"
.venv/bin/python -c "
from webhal.webcam_page import build_page
build_page('unsharp', '$B/page', targets=('wasm-32-wasmrt-wasm_simd128-webgpu',
                                          'wasm-32-wasmrt-wasm_simd128'))"
# The binary alone, then everything else.
xz -9e -T2 -c "$B/bundle/chromium-headless-shell" > "$B/shell.xz"
tar cf - -C "$B" --exclude=bundle/chromium-headless-shell bundle page | xz -9 -T2 > "$B/rest.tar.xz"
mkdir -p "$B/part1" "$B/part2"
split -b 60M -a 2 "$B/shell.xz" "$B/part1/shell.xz."
for f in "$B"/part1/shell.xz.a[b-z]; do [ -e "$f" ] && mv "$f" "$B/part2/"; done
mv "$B/rest.tar.xz" "$B/part2/"
xz -9 -T2 -c "$(command -v node)" > "$B/part2/node.xz"
# The GPU machine has no fonts, and Chromium's Skia aborts without one (webcam_gpu_machine.sh).
mkdir -p "$B/part2/fonts"
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf "$B/part2/fonts/"
du -sh "$B"/part1 "$B"/part2
