"""A gradient whose loops are fused: x with y, split loops with each other, then parallel or
vectorized over the fused loop."""

import numpy as np

import webhal as hl

from .conftest import H, W, check

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")


def _gradient():
    g = hl.Func("gradient")
    g[x, y] = hl.u16(x * 3 + y * 5)
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    return g, (xs * 3 + ys * 5).astype(np.uint16)


def test_fuse_x_and_y(target):
    g, expected = _gradient()
    xy = hl.Var("xy")
    g.fuse(x, y, xy)
    check(g, [W, H], target, expected=expected)


def test_fuse_then_parallel(target):
    g, expected = _gradient()
    xy = hl.Var("xy")
    g.fuse(x, y, xy).parallel(xy, 32)
    check(g, [W, H], target, expected=expected)


def test_fuse_then_vectorize(target):
    g, expected = _gradient()
    xy = hl.Var("xy")
    g.fuse(x, y, xy).vectorize(xy, 8)
    check(g, [W, H], target, expected=expected)


def test_fuse_outer_loops_of_a_tile(target):
    g, expected = _gradient()
    xo, yo, xi, yi, t = (hl.Var(n) for n in ("xo", "yo", "xi", "yi", "tile"))
    g.tile(x, y, xo, yo, xi, yi, 8, 4).fuse(xo, yo, t).parallel(t)
    check(g, [W, H], target, expected=expected)


def test_fuse_three_dimensions(target):
    h = hl.Func("planes")
    h[x, y, c] = x + 10 * y + 1000 * c
    xy, xyc = hl.Var("xy"), hl.Var("xyc")
    h.fuse(x, y, xy).fuse(xy, c, xyc).unroll(xyc, 3)
    xs, ys, cs = np.meshgrid(np.arange(7), np.arange(5), np.arange(3), indexing="ij")
    check(h, [7, 5, 3], target, expected=xs + 10 * ys + 1000 * cs)
