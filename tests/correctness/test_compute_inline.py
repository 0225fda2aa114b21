"""A chain of Funcs left inline (the default), inlined explicitly after another schedule, and an
inlined Func called at several points by a scheduled consumer."""

import numpy as np

import webhal as hl

from .conftest import H, W, check

x, y = hl.Var("x"), hl.Var("y")


def _chain():
    a, b, c = hl.Func("a"), hl.Func("b"), hl.Func("c")
    a[x, y] = x * 2 + y
    b[x, y] = a[x, y] * a[x + 1, y] - 1
    c[x, y] = b[x, y] + b[x, y + 2]
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")

    def fa(i, j):
        return i * 2 + j

    def fb(i, j):
        return fa(i, j) * fa(i + 1, j) - 1
    return a, b, c, fb(xs, ys) + fb(xs, ys + 2)


def test_default_inline(target):
    _, _, c, expected = _chain()
    check(c, [W, H], target, expected=expected)


def test_compute_inline_after_compute_root(target):
    a, b, c, expected = _chain()
    b.compute_root()
    b.compute_inline()
    a.compute_inline()
    c.vectorize(x, 4).unroll(y, 2)
    check(c, [W, H], target, expected=expected)


def test_inlined_into_a_root_producer(target):
    a, b, c, expected = _chain()
    b.compute_root().vectorize(x, 8)
    check(c, [W, H], target, expected=expected)
