"""Image inputs and outputs in headless Chromium (WebGPU on SwiftShader): ImageBitmap,
VideoFrame, HTMLCanvasElement, OffscreenCanvas and an HTMLVideoElement of Chromium's fake camera
in, WebGPU canvases out, against the reference evaluator; an ImageBitmap on a CPU variant is a
named error (tests/gpu_images/browser_kinds.html does the runs)."""

from __future__ import annotations

import pathlib
import shutil

import numpy as np
import pytest

from tests.gpu_images.conftest import FAKE_CAMERA_ARGS, WEBGPU_CANVAS_ARGS, luma, reference
from webhal.runners.browser import browser_session

PAGE = pathlib.Path(__file__).parent / "browser_kinds.html"
# The video element's frame goes through YUV: importExternalTexture and a 2D canvas's
# drawImage may round its conversion back to RGB apart by a step or two.
VIDEO_TOLERANCE = 3


@pytest.mark.browser
def test_browser_sources_and_canvases(image_kinds_package, browser_webgpu, tmp_path):
    shutil.copytree(image_kinds_package, tmp_path / "image_kinds")
    shutil.copy(PAGE, tmp_path / "image_kinds.html")
    with browser_session(tmp_path, extra_args=WEBGPU_CANVAS_ARGS + FAKE_CAMERA_ARGS) as browser:
        page = browser.open("image_kinds.html", timeout_s=120)
        try:
            page.wait_for_function("() => window.webhalResult !== undefined", timeout=60_000)
        except Exception:
            raise AssertionError(f"the page stopped at {page.evaluate('window.step')}") from None
        got = page.evaluate("window.webhalResult")
    assert "error" not in got, got.get("error")
    w, h = got["W"], got["H"]
    rgba = np.array(got["rgba"], np.uint8).reshape(h, w, 4)
    level = ((77 * rgba[..., 0].astype(np.float32) + 150 * rgba[..., 1].astype(np.float32)
              + 29 * rgba[..., 2].astype(np.float32)) / 256 / 255).astype(np.float32)
    # ImageBitmap -> planar, VideoFrame -> interleaved, canvas -> grey, OffscreenCanvas -> level.
    planar_out, interleaved_out, grey_out, level_out = reference(
        rgba[..., :3].transpose(2, 0, 1), rgba[..., :3], luma(rgba), level)
    assert got["returned"]  # the canvas context is the result's data
    shown = np.array(got["shown"]["planar_out"], np.uint8).reshape(h, w, 4)
    np.testing.assert_array_equal(shown[..., :3].transpose(2, 0, 1), planar_out)
    shown = np.array(got["shown"]["interleaved_out"], np.uint8).reshape(h, w, 4)
    np.testing.assert_array_equal(shown[..., :3], interleaved_out)
    np.testing.assert_array_equal(np.array(got["grey_out"], np.uint8).reshape(h, w), grey_out)
    np.testing.assert_allclose(np.array(got["level_out"], np.float32).reshape(h, w), level_out,
                               atol=1e-6)

    vw, vh = got["VW"], got["VH"]
    frame = np.array(got["videoBytes"], np.uint8).reshape(vh, vw, 4)
    zeros = np.zeros((vh, vw), np.uint8)
    expected = reference(frame[..., :3].transpose(2, 0, 1), frame[..., :3], zeros,
                         zeros.astype(np.float32))[0]
    video_out = np.array(got["video_out"], np.uint8).reshape(3, vh, vw)
    diff = np.abs(video_out.astype(int) - expected.astype(int)).max()
    print("video element: largest difference from the reference", diff)
    assert diff <= VIDEO_TOLERANCE

    assert got["cpuError"].startswith(
        "ImageKindError: image_kinds.run: input planar is an ImageBitmap, which only the webgpu "
        "variant takes; this pipeline runs the simd variant"), got["cpuError"]
