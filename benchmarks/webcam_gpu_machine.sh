#!/bin/bash
# The webcam demo in headless Chromium on the GPU machine (no browser, no network there): unpack
# the Chromium bundle carried in parts (benchmarks/build/chrome/part*/, made by
# benchmarks/webcam_bundle.sh; see benchmarks/README.md), link the libraries the machine lacks,
# point Vulkan at the NVIDIA driver and run benchmarks/webcam_chromium.mjs.
#
#   bash benchmarks/webcam_gpu_machine.sh stash   # in a call carrying part1: keep it in $W
#   bash benchmarks/webcam_gpu_machine.sh run [driver args]  # in the next call, carrying part2
#
# The machine keeps $W between calls only while it stays warm: make the two calls back to back.
set -euo pipefail
W=${WEBCAM_DIR:-/root/webcam-chrome}
HERE=benchmarks/build/chrome
mkdir -p "$W/parts"
for part in "$HERE"/part*/; do
  [ -d "$part" ] && cp -r "$part". "$W/parts/"
done
echo "parts on the machine: $(ls "$W/parts" | tr '\n' ' ')"
[ "${1:-}" = stash ] && exit 0
shift || true

if [ ! -x "$W/bundle/chromium-headless-shell" ]; then
  mkdir -p "$W/bundle"
  cat "$W"/parts/shell.xz.* | xz -dc > "$W/bundle/chromium-headless-shell"
  chmod +x "$W/bundle/chromium-headless-shell"
  tar xJf "$W/parts/rest.tar.xz" -C "$W"
  xz -dc "$W/parts/node.xz" > "$W/node"
  chmod +x "$W/node"
fi
# Debian 12's libraries run on the machine's newer glibc; link only those it lacks, so that
# the machine's own (newer) copies are the ones loaded where it has them.
mkdir -p "$W/missing"
for lib in "$W"/bundle/lib/*; do
  name=$(basename "$lib")
  ldconfig -p | grep -q "^[[:space:]]*$name " || ln -sf "$lib" "$W/missing/$name"
done
echo "libraries linked from the bundle: $(ls "$W/missing" | tr '\n' ' ')"
export LD_LIBRARY_PATH="$W/missing"
if ldd "$W/bundle/chromium-headless-shell" | grep "not found"; then exit 3; fi
# The NVIDIA driver's own ICD file names libGLX_nvidia.so.0, which gives no instance there;
# its EGL library answers (shared/ENVIRONMENT.md).
echo '{"file_format_version":"1.0.1","ICD":{"library_path":"libEGL_nvidia.so.0","api_version":"1.4.312"}}' \
  > "$W/nvidia_icd.json"
export VK_DRIVER_FILES="$W/nvidia_icd.json"
# WEBCAM_ALSO_SWIFTSHADER=1 lists SwiftShader's ICD too (for --swiftshader: the compositor there).
[ -n "${WEBCAM_ALSO_SWIFTSHADER:-}" ] && VK_DRIVER_FILES="$VK_DRIVER_FILES:$W/bundle/vk_swiftshader_icd.json"
export XDG_RUNTIME_DIR=$(mktemp -d)
# The machine has no fontconfig setup and no fonts, where Chromium's Skia aborts ("Not
# implemented" in SkFontMgr_FontConfigInterface): one font carried, one config naming it.
if [ ! -e /etc/fonts/fonts.conf ]; then
  printf '%s\n' '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">' \
    "<fontconfig><dir>$W/parts/fonts</dir><cachedir>$W/fontcache</cachedir></fontconfig>" \
    > "$W/fonts.conf"
  export FONTCONFIG_FILE="$W/fonts.conf"
fi
"$W/node" benchmarks/webcam_chromium.mjs --chrome "$W/bundle/chromium-headless-shell" \
  --page "$W/page/unsharp-webcam" "$@"
