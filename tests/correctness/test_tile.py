"""A transpose-and-scale of an input, tiled in several ways."""

import numpy as np

import webhal as hl

from .conftest import check, ramp_image

x, y = hl.Var("x"), hl.Var("y")
xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")


DATA = ramp_image(np.float32, 23, 37, seed=4)  # 37 wide in y, 23 in x: output is 37x23
MATRIX = hl.Buffer(DATA, "m")


def _transpose(name="transpose"):
    t = hl.Func(name)
    t[x, y] = MATRIX[y, x] * 2.0
    return t, (DATA * np.float32(2.0)).astype(np.float32)


def test_tile(target):
    outputs = []
    for tx, ty in ((4, 4), (8, 2), (16, 8), (1, 5)):
        t, expected = _transpose(f"tiled_{tx}x{ty}")
        t.tile(x, y, xo, yo, xi, yi, tx, ty)
        outputs.append(t)
    check(hl.Pipeline(outputs), [37, 23], target, expected=[expected] * 4)


def test_tile_short_form_vectorized(target):
    t, expected = _transpose()
    t.tile(x, y, xi, yi, 8, 8).vectorize(xi).unroll(yi, 2)
    check(t, [37, 23], target, expected=expected)


def test_tile_guard_with_if_parallel(target):
    t, expected = _transpose()
    t.tile(x, y, xo, yo, xi, yi, 16, 16, hl.TailStrategy.GuardWithIf).parallel(yo).vectorize(xi)
    check(t, [37, 23], target, expected=expected)


def test_tile_and_reorder_outer_loops(target):
    t, expected = _transpose()
    t.tile(x, y, xo, yo, xi, yi, 8, 4).reorder(xi, yi, yo, xo)
    check(t, [37, 23], target, expected=expected)
