"""Update definitions: pure updates at single points and over all points, several in a row, with
reads of other Funcs, and updates whose left side is not the pure Vars."""

import numpy as np

import webhal as hl

from .conftest import H, W, check

x, y = hl.Var("x"), hl.Var("y")


def test_pure_updates(target):
    f = hl.Func("f")
    f[x, y] = x + y
    f[x, y] = f[x, y] * 2
    f[x, y] += 3
    f[x, y] = f[x, y] - x
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    check(f, [W, H], target, expected=(xs + ys) * 2 + 3 - xs)


def test_point_updates(target):
    f = hl.Func("f")
    f[x, y] = 0
    f[3, 4] = 7
    f[0, y] = y * 10
    f[x, 0] = f[x, 1] + 1
    expected = np.zeros((W, H), np.int32)
    expected[3, 4] = 7
    expected[0, :] = np.arange(H) * 10
    expected[:, 0] = expected[:, 1] + 1
    check(f, [W, H], target, expected=expected)


def test_updates_with_a_root_producer(target):
    g = hl.Func("g")
    g[x] = x * x
    f = hl.Func("f")
    f[x] = g[x]
    f[x] += g[x + 1]
    f[5] = g[0] - 1
    g.compute_root()
    xs = np.arange(W)
    expected = xs * xs + (xs + 1) ** 2
    expected[5] = -1
    check(f, [W], target, expected=expected)


def test_update_of_a_producer_used_by_an_output(target):
    g = hl.Func("g")
    g[x, y] = x - y
    g[x, y] = g[x, y] * g[x, y]
    out = hl.Func("out")
    out[x, y] = g[x, y] + g[x + 1, y]
    g.compute_at(out, y)
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    check(out, [W, H], target, expected=(xs - ys) ** 2 + (xs + 1 - ys) ** 2)
