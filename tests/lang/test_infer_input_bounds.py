"""Func.infer_input_bounds (Halide's bounds query) binds each unbound ImageParam a Buffer just
large enough, as Halide's does."""

import halide
import pytest

import webhal as hl
from webhal.errors import BufferError


def _sizes(lib, shifts, sizes):
    image = lib.ImageParam(lib.UInt(8), 2, "image")
    x, y = lib.Var("x"), lib.Var("y")
    f = lib.Func("f")
    f[x, y] = lib.u16(image[x + shifts[0], y]) + image[x, y + shifts[1]]
    f.infer_input_bounds(sizes)
    return image.get().width(), image.get().height()


@pytest.mark.parametrize("shifts", [(0, 0), (2, 1), (5, 3)])
def test_sizes_match_halide(shifts):
    assert _sizes(hl, shifts, [10, 7]) == _sizes(halide, shifts, [10, 7])


def test_a_bound_image_param_is_left_alone():
    image = hl.ImageParam(hl.UInt(8), 1, "image")
    image.set(hl.Buffer(hl.UInt(8), [50]))
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = image[x + 1]
    f.infer_input_bounds([10])
    assert image.get().width() == 50


def test_a_read_before_zero_is_named():
    image = hl.ImageParam(hl.UInt(8), 1, "image")
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = image[x - 1]
    with pytest.raises(BufferError, match="image is read at .-1."):
        f.infer_input_bounds([10])
