"""A small convolution whose loops are unrolled, alone and with splits and vectors."""

import numpy as np

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")


DATA = ramp_image(np.int16, W + 2, H, seed=9)
IMAGE = hl.Buffer(DATA, "image")


def _conv(name="conv"):
    f = hl.Func(name)
    f[x, y] = hl.i32(IMAGE[x, y]) - 2 * hl.i32(IMAGE[x + 1, y]) + IMAGE[x + 2, y]
    d = DATA.T.astype(np.int32)
    return f, d[:W] - 2 * d[1:W + 1] + d[2:W + 2]


def test_unroll_x(target):
    outputs = []
    for factor in (2, 3, 5, 8):
        f, expected = _conv(f"unrolled_by_{factor}")
        f.unroll(x, factor)
        outputs.append(f)
    check(hl.Pipeline(outputs), [W, H], target, expected=[expected] * 4)


def test_unroll_with_guard(target):
    f, expected = _conv()
    f.unroll(x, 4, hl.TailStrategy.GuardWithIf)
    check(f, [W, H], target, expected=expected)


def test_unroll_outer_vectorize_inner(target):
    f, expected = _conv()
    xo, xi = hl.Var("xo"), hl.Var("xi")
    f.split(x, xo, xi, 8).vectorize(xi).unroll(y, 3)
    check(f, [W, H], target, expected=expected)


def test_unroll_a_constant_extent(target):
    rgb = hl.Func("rgb")
    c = hl.Var("c")
    rgb[x, y, c] = hl.u8(x + 10 * c + y)
    rgb.reorder(c, x, y).bound(c, 0, 3).unroll(c)
    xs, ys, cs = np.meshgrid(np.arange(W), np.arange(H), np.arange(3), indexing="ij")
    check(rgb, [W, H, 3], target, expected=(xs + 10 * cs + ys).astype(np.uint8))
