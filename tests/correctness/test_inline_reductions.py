"""Inline reductions: hl.sum, hl.product, hl.maximum, hl.minimum inside expressions, over 1-D and
2-D RDoms, in a scheduled consumer."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")


def _image(dtype=np.int32, seed=51):
    data = ramp_image(dtype, W + 4, H + 4, seed=seed)
    return data, hl.Buffer(data, "image")


def _windows(d, op):
    return op(np.stack([d[dx:dx + W, dy:dy + H] for dx in range(5) for dy in range(5)]),
              axis=0)


def test_box_sum(target):
    data, image = _image()
    data = data // 64
    image = hl.Buffer(data, "image")
    r = hl.RDom([(0, 5), (0, 5)], "r")
    box = hl.Func("box")
    box[x, y] = hl.sum(image[x + r.x, y + r.y])
    box.vectorize(x, 4).parallel(y)
    check(box, [W, H], target, expected=_windows(data.T, np.sum).astype(np.int32))


@pytest.mark.parametrize("kind", ["maximum", "minimum"])
def test_local_extremes(target, kind):
    data, image = _image(np.uint16, seed=52)
    r = hl.RDom([(0, 5), (0, 5)], "r")
    f = hl.Func("f")
    f[x, y] = getattr(hl, kind)(image[x + r.x, y + r.y])
    f.vectorize(x, 8)
    op = np.max if kind == "maximum" else np.min
    check(f, [W, H], target, expected=_windows(data.T, op))


def test_product_and_sum_in_one_expression(target):
    r = hl.RDom([(1, 4)], "r")
    f = hl.Func("f")
    f[x] = hl.product(x + r.x) - hl.sum(r.x * x, "weights") + 7
    xs = np.arange(W, dtype=np.int64)
    expected = (xs + 1) * (xs + 2) * (xs + 3) * (xs + 4) - 10 * xs + 7
    check(f, [W], target, expected=expected.astype(np.int32))


def test_float_mean(target):
    data, _ = _image(np.float32, seed=53)
    image = hl.Buffer(data, "image")
    r = hl.RDom([(0, 5)], "r")
    mean = hl.Func("mean")
    mean[x, y] = hl.sum(image[x + r.x, y]) / 5.0
    d = data.T
    expected = sum(d[i:i + W, :H] for i in range(5)) / np.float32(5)
    check(mean, [W, H], target, rtol=1e-5, atol=1e-3, expected=expected.astype(np.float32))
