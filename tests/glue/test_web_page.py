"""A pipeline linked by emcc into a generated page runs in headless Chromium and gives the
reference's numbers (uint8 and float32, wasm SIMD and scalar)."""

import numpy as np
import pytest

import webhal as hl
from webhal.glue import web_page


def _stencil(t):
    x, y = hl.Var("x"), hl.Var("y")
    image = hl.ImageParam(t, 2, "image")
    clamped = hl.BoundaryConditions.repeat_edge(image)
    f = hl.Func("stencil")
    wide = hl.Float(32) if t.is_float() else hl.UInt(16)
    total = sum(hl.cast(wide, clamped[x + dx, y]) for dx in (-1, 0, 1))
    f[x, y] = hl.cast(t, total / 3)
    f.vectorize(x, 16 if t.bits == 8 else 4)
    return f, image


@pytest.mark.browser
@pytest.mark.parametrize("target", ["wasm-32-wasmrt-wasm_simd128", "wasm-32-wasmrt"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_page_matches_reference(tmp_path, emscripten, chromium, target, dtype):
    rng = np.random.default_rng(0)
    data = (rng.integers(0, 256, (37, 53)) if dtype == np.uint8 else rng.random((37, 53)))
    data = data.astype(dtype)
    f, image = _stencil(hl.UInt(8) if dtype == np.uint8 else hl.Float(32))
    image.set(hl.Buffer(data))
    settings = web_page.build(f, image, data, (53, 37), hl.Target(target), str(tmp_path),
                              "stencil", reps=3)
    run = web_page.run(str(tmp_path), settings)
    expected = np.asarray(f.realize([53, 37], hl.Target("reference")))
    if dtype == np.uint8:
        np.testing.assert_array_equal(run.output, expected)
    else:
        np.testing.assert_allclose(run.output, expected, rtol=1e-6)
    assert len(run.times_ms) == 3 and "Chrom" in run.user_agent


def test_gpu_targets_are_refused_for_pages(tmp_path, emscripten):
    f, image = _stencil(hl.UInt(8))
    with pytest.raises(hl.ToolchainError, match="WebGPU runtime"):
        web_page.build(f, image, np.zeros((4, 4), np.uint8), (4, 4),
                       hl.Target("wasm-32-wasmrt-webgpu"), str(tmp_path), "stencil")
