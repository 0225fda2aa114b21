"""A buffer that breaks its ImageParam's dim() constraints (set_min, set_extent, set_stride): the
compiled pipeline checks them on entry and names the field, its value and the constraint."""

import numpy as np
import pytest

import webhal as hl

from ._util import expect_error

x, y = hl.Var("x"), hl.Var("y")


@pytest.mark.parametrize("target", ["host", "wasm-32-wasmrt"])
def test_extent_and_stride(target):
    image = hl.ImageParam(hl.UInt(8), 2, "image")
    image.dim(0).set_bounds(0, 16)
    image.dim(1).set_stride(16)
    doubled = hl.Func("doubled")
    doubled[x, y] = image[x, y] * 2
    image.set(hl.Buffer(np.zeros((8, 20), np.uint8)))  # 20 wide, so also a row stride of 20
    with expect_error(hl.BufferError, "image.extent.0 (20) == 16", "dim() constraints"):
        doubled.realize([16, 8], hl.Target(target))


def test_min_given_by_an_expression():
    image = hl.ImageParam(hl.Float(32), 1, "samples")
    offset = hl.Param(hl.Int(32), "offset", 3)
    image.dim(0).set_min(offset)
    out = hl.Func("out")
    out[x] = image[x] + 1.0
    image.set(hl.Buffer(np.zeros(10, np.float32)))
    with expect_error(hl.BufferError, "samples.min.0 (0) == offset (3)"):
        out.realize([4], hl.Target("host"))
