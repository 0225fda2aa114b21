"""The image_kinds package (tests/gpu_images/generators.py: webgpu and simd variants), built
once per session, and its reference outputs."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import webhal as hl
from webhal import build

GENERATORS = pathlib.Path(__file__).parent / "generators.py"
TARGETS = ["wasm-32-wasmrt-wasm_simd128-webgpu", "wasm-32-wasmrt-wasm_simd128"]
# Headless Chromium 156 on SwiftShader loses the device when a WebGPU canvas is first shown ("A
# valid external Instance reference no longer exists"), and refuses to import or copy any video
# frame, unless its compositor runs on Vulkan too (SwiftShader's): with these, both work.
WEBGPU_CANVAS_ARGS = ("--enable-features=Vulkan", "--use-vulkan=swiftshader",
                      "--use-angle=swiftshader", "--enable-unsafe-swiftshader")
# Chromium's own camera, a moving test pattern, granted without asking.
FAKE_CAMERA_ARGS = ("--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream")


@pytest.fixture(scope="session")
def image_kinds_package(tmp_path_factory, emscripten, node) -> pathlib.Path:
    directory = tmp_path_factory.mktemp("gpu-images") / "image_kinds"
    build.build(str(GENERATORS), "image_kinds", str(directory), TARGETS, quiet=True)
    return directory


def reference(planar, interleaved, grey, level):
    """The reference evaluator's four outputs for inputs in numpy order: planar (3, h, w),
    interleaved (h, w, 3), grey (h, w) uint8, level (h, w) float32."""
    generator = build.load_generators(str(GENERATORS))["image_kinds"]()
    pipeline = generator.build_pipeline()
    values = {"planar": planar, "interleaved": interleaved, "grey": grey, "level": level}
    for param in generator.inputs():
        param.set(hl.Buffer(np.ascontiguousarray(values[param.name()])))
    h, w = grey.shape
    outs = pipeline.realize([hl.Buffer(hl.UInt(8), [w, h, 3]), hl.Buffer(hl.UInt(8), [3, w, h]),
                             hl.Buffer(hl.UInt(8), [w, h]), hl.Buffer(hl.Float(32), [w, h])],
                            hl.Target("reference"))
    return [np.asarray(o) for o in outs]


def luma(rgba: np.ndarray) -> np.ndarray:
    """runtime_js/image_data.js's grey of RGBA bytes (h, w, 4): BT.601 in integers."""
    r, g, b = (rgba[..., i].astype(np.int32) for i in range(3))
    return ((77 * r + 150 * g + 29 * b + 128) >> 8).astype(np.uint8)
