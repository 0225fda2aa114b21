"""A serial scan on the GPU: a lookup table split into one block of 256 entries, so that its
kernel runs in a single workgroup of one invocation, with the scan it reads (a cumulative
histogram) computed at that block in the invocation's own memory. The block loop runs once, so
the scan's storage has a constant size, as WebGPU needs."""

import numpy as np
import pytest

import webhal as hl

from .conftest import camera, check

x, y, b, bo, bi = (hl.Var(n) for n in ("x", "y", "b", "bo", "bi"))


@pytest.fixture(params=["host-webgpu", "wasm-32-wasmrt-webgpu"])
def gpu_target(request, wgpu_adapter) -> str:
    if request.param.startswith("wasm"):
        request.getfixturevalue("llvm_wasm")
        request.getfixturevalue("wasm_ld")
        request.getfixturevalue("wasmtime_engine")
    return request.param


def test_scan_computed_in_a_single_workgroup(gpu_target):
    pixels = camera(40, 24)
    image = hl.Buffer(pixels, "photo")
    r = hl.RDom([(0, 40), (0, 24)], "r")
    hist = hl.Func("hist")
    hist[b] = 0
    hist[hl.i32(image[r.x, r.y])] += 1
    cdf = hl.Func("cdf")
    cdf[b] = hist[b]
    k = hl.RDom([(1, 255)], "k")
    cdf[k.x] = cdf[k.x - 1] + cdf[k.x]
    table = hl.Func("table")
    table[b] = hl.u8(cdf[b] * 255 // (40 * 24))
    hist.compute_root()  # on the CPU
    table.compute_root().bound(b, 0, 256).split(b, bo, bi, 256).gpu_blocks(bo)
    cdf.compute_at(table, bo)
    c = np.cumsum(np.bincount(pixels.reshape(-1), minlength=256))
    check(table, [256], gpu_target, expected=(c * 255 // (40 * 24)).astype(np.uint8))
