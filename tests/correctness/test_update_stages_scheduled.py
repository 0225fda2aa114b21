"""A Func with a pure definition and two updates, each stage scheduled differently: split with
each tail strategy an update allows, vectorized, unrolled, parallel, reordered, RVars split."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")
xo, xi, yo, yi = hl.Var("xo"), hl.Var("xi"), hl.Var("yo"), hl.Var("yi")


def _func():
    data = ramp_image(np.int32, seed=61) // 65536
    image = hl.Buffer(data, "image")
    r = hl.RDom([(0, 4)], "r")
    f = hl.Func("f")
    f[x, y] = image[x, y]
    f[x, y] = f[x, y] * 3 + x
    f[x, y] += image[(x + r.x) % W, y]
    d = data.T
    xs = np.arange(W)[:, None]
    expected = d * 3 + xs + sum(d[(np.arange(W) + k) % W] for k in range(4))
    return f, expected.astype(np.int32)


@pytest.mark.parametrize("tail", [hl.TailStrategy.Auto, hl.TailStrategy.GuardWithIf,
                                  hl.TailStrategy.RoundUp], ids=lambda t: t.name)
def test_update_split(target, tail):
    f, expected = _func()
    sizes = [W, H] if tail is not hl.TailStrategy.RoundUp else [W - W % 4, H]
    f.update(0).split(x, xo, xi, 4, tail)
    f.update(1).split(x, xo, xi, 4, tail)
    check(f, sizes, target, expected=expected[:sizes[0]])


def test_update_vectorized_and_parallel(target):
    f, expected = _func()
    f.vectorize(x, 8)
    f.update(0).vectorize(x, 4).parallel(y)
    f.update(1).vectorize(x, 8).parallel(y, 5)
    check(f, [W, H], target, expected=expected)


def test_update_reordered_with_rvar_outside(target):
    f, expected = _func()
    r = f.update(1)
    r.reorder(y, x)  # loops are now r.x innermost, y, x
    f.update(0).unroll(x, 3)
    check(f, [W, H], target, expected=expected)


def test_rvar_split_and_unrolled(target):
    data = ramp_image(np.int16, 64, 3, seed=62)
    image = hl.Buffer(data, "image")
    r = hl.RDom([(0, 64)], "r")
    total = hl.Func("total")
    total[y] = 0
    total[y] += hl.i32(image[r.x, y])
    ro, ri = hl.RVar("ro"), hl.RVar("ri")
    total.update(0).split(r.x, ro, ri, 8).unroll(ri)
    check(total, [3], target, expected=data.astype(np.int32).sum(axis=1))


def test_update_tiled(target):
    f, expected = _func()
    f.update(0).tile(x, y, xo, yo, xi, yi, 8, 8, hl.TailStrategy.GuardWithIf).vectorize(xi)
    check(f, [W, H], target, expected=expected)
