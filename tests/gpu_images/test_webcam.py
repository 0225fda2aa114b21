"""The webcam page (webhal/webcam_page.py) of the unsharp mask in headless Chromium on its fake
camera: frames go camera -> WebGPU canvas on the webgpu variant (SwiftShader) and through an
ImageData on the simd variant; captured frames' outputs (as the canvas shows them) are checked
against the reference evaluator on their inputs (the paused frame as the variant reads it: the
GPU's conversion of the camera's YUV, read back by gpu_images.readImage, or a 2D canvas's).
Prints frames per second and each stage's median time."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from tests.gpu_images.conftest import FAKE_CAMERA_ARGS, WEBGPU_CANVAS_ARGS
from webhal.demo_page import load
from webhal.runners.browser import browser_session
from webhal.testing.harness import Subject
from webhal.webcam_page import build_page

FRAMES = 2
SIZE = (320, 240)


def _decoded(buffer: dict) -> np.ndarray:
    data = np.frombuffer(base64.b64decode(buffer["data"]), dtype=np.uint8)
    return data.reshape(buffer["shape"][::-1]).copy()


@pytest.fixture(scope="module")
def webcam_page(tmp_path_factory, emscripten):
    root = tmp_path_factory.mktemp("webcam")
    build_page("unsharp", str(root), targets=("wasm-32-wasmrt-wasm_simd128-webgpu",
                                              "wasm-32-wasmrt-wasm_simd128"))
    return root


@pytest.mark.browser
@pytest.mark.parametrize("variant", ["webgpu", "simd"])
def test_webcam_frames_match_the_reference(webcam_page, browser_webgpu, variant):
    demo = load("unsharp")
    with browser_session(webcam_page, extra_args=WEBGPU_CANVAS_ARGS + FAKE_CAMERA_ARGS) as browser:
        page = browser.open(f"unsharp-webcam/index.html?variant={variant}&check={FRAMES}"
                            f"&size={SIZE[0]}x{SIZE[1]}", timeout_s=180)
        page.wait_for_function("() => window.webhalResult !== undefined", timeout=180_000)
        got = page.evaluate("window.webhalResult")
    assert "error" not in got, got.get("error")
    assert got["variant"] == variant
    print(f"\n{variant} on {got['adapter']}: {got['fps']:.1f} frames per second; stages (median "
          f"ms): {got['stages']}")
    assert got["fps"] > 0
    assert len(got["frames"]) == FRAMES
    for frame in got["frames"]:
        image = _decoded(frame["input"])
        assert image.shape[1:] == (SIZE[1], SIZE[0]) and image.std() > 5  # a real picture
        subject = Subject(f"{demo.path}:{demo.name}", inputs={"input": image, **got["scalars"]},
                          output_shapes={"output": image.shape}, tolerance=0)
        ok, error, message = subject.compare({"output": _decoded(frame["output"])})
        print(f"  frame: largest difference {error}; its input, GPU vs 2D canvas conversion: "
              f"{frame['gpuVersusCanvas']}")
        assert ok, message
