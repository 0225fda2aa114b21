"""A three-dimensional pipeline whose loops are reordered in every permutation."""

import itertools

import numpy as np

import webhal as hl

from .conftest import check

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")


def test_every_order(target):
    outputs = []
    for order in itertools.permutations("xyc"):
        f = hl.Func("f_" + "".join(order))
        f[x, y, c] = hl.i16(x * 100 - y * 10 + c)
        f.reorder(*(hl.Var(n) for n in order))
        outputs.append(f)
    xs, ys, cs = np.meshgrid(np.arange(9), np.arange(7), np.arange(3), indexing="ij")
    expected = (xs * 100 - ys * 10 + cs).astype(np.int16)
    check(hl.Pipeline(outputs), [9, 7, 3], target, expected=[expected] * 6)


def test_reorder_split_loops(target):
    f = hl.Func("f")
    f[x, y] = x - 3 * y
    xo, xi, yo, yi = hl.Var("xo"), hl.Var("xi"), hl.Var("yo"), hl.Var("yi")
    f.split(x, xo, xi, 4).split(y, yo, yi, 4).reorder(yi, xi, xo, yo)
    xs, ys = np.meshgrid(np.arange(37), np.arange(23), indexing="ij")
    check(f, [37, 23], target, expected=xs - 3 * ys)
