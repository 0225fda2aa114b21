"""An inlined 3x3 stencil on the GPU, each invocation computing a vector of four pixels (a Sobel
magnitude: absolute differences of smoothed neighbours). The stencil repeats its loads and their
index arithmetic many times over; taking the vectors apart must compute each of them once per
invocation, or the kernel grows into thousands of statements (and failed to compile)."""

import numpy as np
import pytest

import webhal as hl

from .conftest import camera, check

x, y, xv = hl.Var("x"), hl.Var("y"), hl.Var("xv")
xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")


@pytest.fixture(params=["host-webgpu", "wasm-32-wasmrt-webgpu"])
def gpu_target(request, wgpu_adapter) -> str:
    if request.param.startswith("wasm"):
        request.getfixturevalue("llvm_wasm")
        request.getfixturevalue("wasm_ld")
        request.getfixturevalue("wasmtime_engine")
    return request.param


def _sobel(pixels: np.ndarray) -> hl.Func:
    image = hl.Buffer(pixels, "photo")
    clamped = hl.BoundaryConditions.repeat_edge(image)
    wide = hl.Func("wide")
    wide[x, y] = hl.u16(clamped[x, y])
    down, across = hl.Func("down"), hl.Func("across")
    down[x, y] = wide[x, y - 1] + 2 * wide[x, y] + wide[x, y + 1]
    across[x, y] = wide[x - 1, y] + 2 * wide[x, y] + wide[x + 1, y]
    edges = hl.Func("edges")
    edges[x, y] = hl.u8(hl.min((hl.absd(down[x + 1, y], down[x - 1, y]) +
                                hl.absd(across[x, y + 1], across[x, y - 1])) / 4, 255))
    return edges


def _expected(pixels: np.ndarray) -> np.ndarray:
    p = np.pad(pixels.astype(np.int64), 1, mode="edge")
    down = p[:-2] + 2 * p[1:-1] + p[2:]
    across = p[:, :-2] + 2 * p[:, 1:-1] + p[:, 2:]
    g = np.abs(down[:, 2:] - down[:, :-2]) + np.abs(across[2:] - across[:-2])
    return np.minimum(g // 4, 255).astype(np.uint8).T


def test_inlined_stencil_four_pixels_per_invocation(gpu_target):
    pixels = camera(70, 20)
    edges = _sobel(pixels)
    edges.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
    check(edges, [70, 20], gpu_target, expected=_expected(pixels))


def test_the_same_stencil_vectorized_on_the_cpu(target):
    pixels = camera(70, 20)
    edges = _sobel(pixels)
    edges.vectorize(x, 16)
    check(edges, [70, 20], target, expected=_expected(pixels))
