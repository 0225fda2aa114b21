"""bound(): a producer computed over a declared region instead of the inferred one, and an
output whose loops get constant extents from it."""

import numpy as np

import webhal as hl

from .conftest import check

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")


def test_bound_of_a_producer(target):
    lut = hl.Func("lut")
    lut[x] = hl.u8((x * x) % 251)
    out = hl.Func("out")
    out[x, y] = lut[(x + y) % 256]
    lut.compute_root().bound(x, 0, 256).vectorize(x, 16)
    xs, ys = np.meshgrid(np.arange(20), np.arange(9), indexing="ij")
    check(out, [20, 9], target, expected=(((xs + ys) ** 2) % 251).astype(np.uint8))


def test_bound_of_an_output_unrolled_and_vectorized(target):
    rgb = hl.Func("rgb")
    rgb[x, y, c] = hl.u16(x * 3 + c + 100 * y)
    rgb.bound(c, 0, 3).bound(x, 0, 16).reorder(c, x, y).unroll(c).vectorize(x)
    xs, ys, cs = np.meshgrid(np.arange(16), np.arange(5), np.arange(3), indexing="ij")
    check(rgb, [16, 5, 3], target, expected=(xs * 3 + cs + 100 * ys).astype(np.uint16))


def test_bound_of_a_producer_wider_than_needed(target):
    f = hl.Func("f")
    f[x] = x * 10
    g = hl.Func("g")
    g[x] = f[x] + f[x + 1]
    f.compute_root().bound(x, -5, 40)
    xs = np.arange(12)
    check(g, [12], target, expected=xs * 10 + (xs + 1) * 10)
